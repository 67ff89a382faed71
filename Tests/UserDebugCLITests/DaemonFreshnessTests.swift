import Foundation
import TestSupport
import Testing

/// The daemon keeps the store's connection open between key presses (issue 10): every press still
/// reads the store as it is now — a `session use` just before it, another store renamed into
/// place, the store moved away (the failure path) and back.
extension DaemonTests {
    /// `Samples.session` under `name` with the user identifier `identifier`.
    static func session(_ identifier: String) -> String {
        Samples.session.replacingOccurrences(of: "\"usr_1\"", with: "\"\(identifier)\"")
    }

    @Test func aSessionUseJustBeforeAPressIsWhatThatPressCopies() throws {
        try home.file("config/config.json", Self.config)
        try home.ok(["session", "import", "-", "--name", "other"], stdin: Self.session("usr_2"))
        try withXvfb { x in
            try withDaemon(x) { daemon in
                // Each press follows its `session use` at once and finds the other value on the
                // clipboard: one press, so a stale read would stay there.
                for round in 0..<4 {
                    let (name, identifier) = round % 2 == 0 ? ("staging", "usr_1") : ("other", "usr_2")
                    try home.ok(["session", "use", name, "-q"])
                    try press(x, "super+alt+i")
                    #expect(eventually { clipboard(x) == identifier }, "round \(round): \(daemon.text)")
                }
                // `session set` changes the current session in place: seen by the next press too.
                try home.ok(["session", "set", "--id", "usr_3", "-q"])
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_3" }, "\(daemon.text)")
            }
        }
    }

    @Test func anotherStoreRenamedIntoPlaceIsReadByTheNextPress() throws {
        try home.file("config/config.json", Self.config)
        let other = try UserDebugHome()
        try other.ok(["session", "import", "-", "--name", "elsewhere"], stdin: Self.session("usr_9"))
        let data = home.root.appendingPathComponent("data").path
        try withXvfb { x in
            try withDaemon(x) { daemon in
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                // The whole store (database, -wal, -shm) replaced by two renames, no press between.
                #expect(rename(data, data + "-old") == 0)
                #expect(rename(other.root.appendingPathComponent("data").path, data) == 0)
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_9" }, "\(daemon.text)")
            }
        }
    }

    /// A directory above the store's renamed (no event in the directory the daemon watches): the
    /// data directory is a link into `stores/current`, and another store directory is renamed into
    /// `stores/current` between two presses. The database is then another file, so the press does
    /// not serve what it made ahead for the old one.
    @Test func aDirectoryAboveTheStoreRenamedIsSeenByTheNextPress() throws {
        try home.file("config/config.json", Self.config)
        let other = try UserDebugHome()
        try other.ok(["session", "import", "-", "--name", "elsewhere"], stdin: Self.session("usr_9"))
        let data = home.root.appendingPathComponent("data").path
        let stores = home.root.appendingPathComponent("stores").path
        #expect(mkdir(stores, 0o700) == 0)
        #expect(mkdir(stores + "/current", 0o700) == 0)
        #expect(mkdir(stores + "/next", 0o700) == 0)
        #expect(rename(data, stores + "/current/data") == 0)
        #expect(rename(other.root.appendingPathComponent("data").path, stores + "/next/data") == 0)
        #expect(symlink(stores + "/current/data", data) == 0)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                // Made ahead, and found fresh again once the daemon's own reads of the store were
                // seen by its watch: from then on a press is served without a fingerprint.
                try #require(madeAhead(daemon, "copy-id", after: 0) != nil, "\(daemon.text)")
                try #require(
                    eventually(timeout: 10) { daemon.text.contains("trace: copy-id made ahead is still fresh") },
                    "\(daemon.text)")
                #expect(rename(stores + "/current", stores + "/old") == 0)
                #expect(rename(stores + "/next", stores + "/current") == 0)
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_9" }, "\(daemon.text)")
                #expect(Self.count("copy-id (prepared)", in: daemon.text) == 0, "\(daemon.text)")
            }
        }
    }

    @Test func aStoreMovedAwayFailsThePressAndItsReturnIsSeen() throws {
        try home.file("config/config.json", Self.config)
        let data = home.root.appendingPathComponent("data").path
        try withXvfb { x in
            try withDaemon(x) { daemon in
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                #expect(rename(data, data + "-away") == 0)
                try setStale(x)
                try press(x, "super+alt+i")
                #expect(daemon.waitFor("Super+Alt+I → copy-id failed"), "\(daemon.text)")
                #expect(daemon.text.contains("no store yet"), "\(daemon.text)")
                #expect(clipboard(x) == "stale")
                #expect(rename(data + "-away", data) == 0)
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                #expect(daemon.exited() == nil)
            }
        }
    }
}
