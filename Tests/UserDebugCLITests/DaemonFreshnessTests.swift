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
