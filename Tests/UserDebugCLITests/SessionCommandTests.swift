import Foundation
import Testing

/// Recording and switching sessions through the binary.
@Suite struct SessionCommandTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
    }

    @Test func readingBeforeAnythingIsRecordedSaysSoAndCreatesNothing() throws {
        let result = try home.run(["copy-id"])
        #expect(result.status == 66)
        #expect(result.err.contains("userdebug.sqlite3"))
        #expect(!FileManager.default.fileExists(atPath: home.databasePath))
        #expect(!FileManager.default.fileExists(atPath: home.root.appendingPathComponent("data").path))
    }

    @Test func aBareUserIsASessionOfItsOwn() throws {
        try home.ok(["session", "import", "-", "--name", "local"], stdin: #"{"id": 42, "name": "Ada"}"#)
        #expect(try home.ok(["copy-id"]).out == "42\n")
        let list = try home.ok(["session", "list"]).out
        #expect(list.contains(#""name":"local""#))
    }

    @Test func setCreatesUpdatesAndUseSwitches() throws {
        try home.ok(["session", "set", "--session", "a", "--id", "u-a", "--name", "Alice"])
        try home.ok(["session", "set", "--session", "b", "--id", "u-b"])
        #expect(try home.ok(["copy-id"]).out == "u-a\n")
        try home.ok(["session", "use", "b"])
        #expect(try home.ok(["copy-id"]).out == "u-b\n")
        #expect(try home.ok(["copy-id", "--session", "a"]).out == "u-a\n")
        try home.ok(["session", "set", "--name", "Bob"])
        let shown = try home.ok(["session", "show"]).out
        #expect(shown.contains("\"Bob\"") && shown.contains("u-b"))
        try home.ok(["session", "remove", "b"])
        #expect(try home.run(["copy-id"]).status == 66)
        #expect(try home.run(["session", "use", "b"]).status == 66)
    }

    @Test func theTokenCanComeFromStdinSoItStaysOutOfTheProcessList() throws {
        try home.ok(["session", "set", "--session", "s", "--id", "u", "--token-stdin"], stdin: "tok-from-stdin\n")
        #expect(try home.ok(["copy-token", "--to", "stdout"]).out == "tok-from-stdin\n")
    }

    @Test func storeFilesArePrivate() throws {
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let dir = try FileManager.default.attributesOfItem(atPath: home.root.appendingPathComponent("data").path)
        let file = try FileManager.default.attributesOfItem(atPath: home.databasePath)
        #expect((dir[.posixPermissions] as? Int) == 0o700)
        #expect((file[.posixPermissions] as? Int) == 0o600)
    }

    @Test func versionAndHelpWork() throws {
        #expect(try home.ok(["--version"]).out.hasPrefix("userdebug "))
        #expect(try home.ok(["--help"]).out.contains("copy-id"))
        #expect(try home.ok(["session", "import", "--help"]).out.contains("Usage: userdebug session import"))
        #expect(try home.ok(["help", "print-response"]).out.contains("--status"))
    }
}
