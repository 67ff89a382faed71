import Foundation
import TestSupport
import Testing

/// The daemon makes its hotkeys' payloads ahead of the presses (issue 26): a change of the store or
/// of the config between two presses is made ahead again and the next press serves it; secrets are
/// made at the press only. `--trace` says what was made ahead ("made copy-id ahead") and which
/// press was served from it ("(prepared)").
extension DaemonTests {
    /// How many lines of the daemon's log contain `needle`.
    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: "\n").filter { $0.contains(needle) }.count
    }

    /// Waits until the daemon made `id` ahead more than `before` times; the new count.
    func madeAhead(_ daemon: DaemonRun, _ id: String, after before: Int) -> Int? {
        let needle = "trace: made \(id) ahead"
        guard eventually(timeout: 10, { Self.count(needle, in: daemon.text) > before }) else { return nil }
        return Self.count(needle, in: daemon.text)
    }

    @Test func aStoreOrConfigChangeBetweenPressesIsMadeAheadAndServedByTheNextPress() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                let made = try #require(madeAhead(daemon, "copy-id", after: 0), "\(daemon.text)")
                try setStale(x)
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                #expect(Self.count("copy-id (prepared)", in: daemon.text) == 1, "\(daemon.text)")
                // The store changes between two presses: made again before the next press, which
                // serves the new value from what was made.
                try home.ok(["session", "set", "--id", "usr_3", "-q"])
                try #require(madeAhead(daemon, "copy-id", after: made) != nil, "\(daemon.text)")
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_3" }, "\(daemon.text)")
                #expect(Self.count("copy-id (prepared)", in: daemon.text) == 2, "\(daemon.text)")
                // The config changes: the key now copies the name, made ahead after the reload.
                try home.file("config/config.json", #"{"hotkeys": {"Super+Alt+I": "copy-name"}}"#)
                try #require(madeAhead(daemon, "copy-name", after: 0) != nil, "\(daemon.text)")
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "Zoë" }, "\(daemon.text)")
                #expect(Self.count("copy-name (prepared)", in: daemon.text) == 1, "\(daemon.text)")
                // Since the reload, copy-id (no longer bound) is made no more.
                let sinceReload = daemon.text.components(separatedBy: "reloaded ").last ?? ""
                #expect(!sinceReload.contains("made copy-id ahead"), "\(daemon.text)")
            }
        }
    }

    @Test func aSecretIsMadeAtThePressAndNeverAhead() throws {
        let keys = #""Super+Alt+I": "copy-id", "Super+Alt+T": "copy-token", "Super+Alt+J": "dump-json""#
        try home.file("config/config.json", "{\"hotkeys\": {\(keys)}}")
        try withXvfb { x in
            // --reveal: copy-token copies the token itself, and dump-json the secret apiKey field.
            let daemon = try DaemonRun(home: home, environment: try environment(x), arguments: ["--trace", "--reveal"])
            defer { daemon.stop() }
            try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
            try #require(madeAhead(daemon, "copy-id", after: 0) != nil, "\(daemon.text)")
            try setStale(x)
            try press(x, "super+alt+t")
            #expect(eventually { clipboard(x) == Samples.canary }, "\(daemon.text)")
            try setStale(x)
            try press(x, "super+alt+j")
            #expect(eventually { clipboard(x).contains("ak-secret-1") }, "\(daemon.text)")
            // Both were made at their press, neither ahead (nor after the presses).
            try press(x, "super+alt+i")
            #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
            #expect(daemon.text.contains("Super+Alt+T pressed → copy-token"), "\(daemon.text)")
            #expect(!daemon.text.contains("copy-token (prepared)"), "\(daemon.text)")
            #expect(!daemon.text.contains("made copy-token ahead"), "\(daemon.text)")
            #expect(!daemon.text.contains("dump-json (prepared)"), "\(daemon.text)")
            #expect(!daemon.text.contains("made dump-json ahead"), "\(daemon.text)")
        }
    }
}
