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

    /// `session list` before anything is recorded: an empty list and 0 (as `ls` of an empty
    /// directory), the store named on stderr, and nothing created (issue 28 item 5).
    @Test func sessionListWithoutAStoreIsAnEmptyList() throws {
        for arguments in [["session", "list"], ["session", "list", "--json"]] {
            let result = try home.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.out.isEmpty, "\(result)")
            #expect(result.err.contains("no sessions yet (no store at \(home.databasePath))"), "\(result)")
            #expect(result.err.contains("userdebug session import FILE"), "\(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: home.root.appendingPathComponent("data").path))
        // Other reads of a missing store stay 66.
        #expect(try home.run(["session", "show"]).status == 66)
    }

    @Test func aBareUserIsASessionOfItsOwn() throws {
        try home.ok(["session", "import", "-", "--name", "local"], stdin: #"{"id": 42, "name": "Ada"}"#)
        #expect(try home.ok(["copy-id"]).out == "42\n")
        let list = try home.ok(["session", "list"]).out
        #expect(list.contains(#""name":"local""#))
    }

    @Test func setCreatesUpdatesAndUseSwitches() throws {
        try home.ok(["session", "set", "--session", "a", "--id", "u-a", "--name", "Alice"])
        try home.ok(["session", "set", "--session", "b", "--id", "u-b", "--keep-current"])
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

    /// The last stderr line of a command that wrote a session.
    func lastLine(_ result: RunResult) -> String {
        result.err.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// `session set` and `session import` mean the same by "current": the session they record
    /// becomes the one the debug actions use, unless `--keep-current`; each says which is current.
    @Test func setAndImportBothMakeTheSessionCurrentAndSaySo() throws {
        let first = try home.ok(["session", "import", "-"], stdin: Samples.session)
        #expect(lastLine(first) == "userdebug: current session: 'staging' (usr_1)", "\(first)")
        let set = try home.ok(
            ["session", "set", "--session", "slow", "--id", "usr_9", "--token-stdin"], stdin: Samples.canary + "-2")
        #expect(lastLine(set) == "userdebug: current session: 'slow' (usr_9)", "\(set)")
        #expect(!set.err.contains(Samples.canary))
        #expect(try home.ok(["copy-id"]).out == "usr_9\n")

        let kept = try home.ok(["session", "set", "--session", "other", "--id", "usr_7", "--keep-current"])
        #expect(lastLine(kept) == "userdebug: current session: 'slow' (usr_9)", "\(kept)")
        #expect(try home.ok(["copy-id"]).out == "usr_9\n")
        let imported = try home.ok(
            ["session", "import", "-", "--name", "quiet", "--keep-current"], stdin: #"{"id": "usr_5"}"#)
        #expect(lastLine(imported) == "userdebug: current session: 'slow' (usr_9)", "\(imported)")
        // Updating the current session's fields keeps it current; updating another makes it current.
        let updated = try home.ok(["session", "set", "--session", "other", "--name", "Seven"])
        #expect(lastLine(updated) == "userdebug: current session: 'other' (usr_7)", "\(updated)")
        #expect(try home.ok(["copy-id"]).out == "usr_7\n")

        let used = try home.ok(["session", "use", "staging"])
        #expect(lastLine(used) == "userdebug: current session: 'staging' (usr_1)", "\(used)")
        let removed = try home.ok(["session", "remove", "staging"])
        #expect(lastLine(removed).hasPrefix("userdebug: no session is current"), "\(removed)")
        // --quiet silences it, like every notice.
        #expect(try home.ok(["session", "use", "slow", "--quiet"]).err.isEmpty)
    }

    @Test func keepCurrentOnAnEmptyStoreStillMakesTheOnlySessionCurrent() throws {
        let set = try home.ok(["session", "set", "--session", "first", "--id", "usr_1", "--keep-current"])
        #expect(lastLine(set) == "userdebug: current session: 'first' (usr_1)", "\(set)")
        #expect(try home.ok(["copy-id"]).out == "usr_1\n")
    }

    @Test func theHelpOfSetAndImportSaysTheSessionBecomesCurrent() throws {
        for command in [["session", "set"], ["session", "import"]] {
            let help = try home.ok(command + ["--help"]).out
            #expect(help.contains("--keep-current"), "\(help)")
            #expect(help.contains("becomes the current one"), "\(help)")
        }
    }

    @Test func theTokenCanComeFromStdinSoItStaysOutOfTheProcessList() throws {
        try home.ok(["session", "set", "--session", "s", "--id", "u", "--token-stdin"], stdin: "tok-from-stdin\n")
        #expect(try home.ok(["copy-token", "--to", "stdout"]).out == "tok-from-stdin\n")
    }

    @Test(arguments: ["", "\n", "\r\n"])
    func anEmptyTokenOnStdinIsRefusedUnlessAllowed(stdin: String) throws {
        try home.ok(["session", "set", "--session", "s", "--id", "u", "--token-stdin"], stdin: "tok-before")
        let refused = try home.run(
            ["session", "set", "--session", "s", "--token-stdin"], stdin: Data(stdin.utf8))
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.err.contains("--token-stdin: standard input held no token"), "\(refused.err)")
        #expect(refused.err.contains("--allow-empty-token"), "says how to mean it: \(refused.err)")
        #expect(try home.ok(["copy-token", "--to", "stdout"]).out == "tok-before\n", "the token is kept")

        let allowed = try home.run(
            ["session", "set", "--session", "s", "--token-stdin", "--allow-empty-token"], stdin: Data(stdin.utf8))
        #expect(allowed.status == 0, "\(allowed)")
        let copy = try home.run(["copy-token", "--to", "stdout"])
        #expect(copy.status == 66 && copy.out.isEmpty, "the session has no token now: \(copy)")
    }

    @Test func aTokenOnStdinEndingInCRLFIsStoredWithoutIt() throws {
        try home.ok(["session", "set", "--session", "s", "--id", "u", "--token-stdin"], stdin: "tok-crlf\r\n")
        #expect(try home.ok(["copy-token", "--to", "stdout"]).out == "tok-crlf\n")
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
