import Foundation
import Testing

/// One name per thing (issue 24 item 6): the session is `--session` on every command that names
/// one (`session import --name` still works, with a deprecation line), `session set --name`
/// names the user, and every path that records a login names its session the same way,
/// `IDENTIFIER@HOST:PORT` off the scheme's port.
@Suite struct SessionNamingTests {
    static func names(_ home: UserDebugHome) throws -> [String] {
        try home.ok(["session", "list", "--json"]).out.split(separator: "\n").compactMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["name"] as? String
        }
    }

    @Test func sessionImportNamesTheSessionWithSessionAndStillTakesNameWithANotice() throws {
        let home = try UserDebugHome()
        let document = #"{"user": {"id": "usr_1"}, "environment": "staging"}"#
        let new = try home.run(["session", "import", "-", "--session", "mine"], stdin: Data(document.utf8))
        #expect(new.status == 0 && new.err.contains("recorded session 'mine'"), "\(new)")
        #expect(!new.err.contains("deprecated"), "\(new)")

        let old = try home.run(["session", "import", "-", "--name", "legacy"], stdin: Data(document.utf8))
        #expect(old.status == 0 && old.err.contains("recorded session 'legacy'"), "\(old)")
        let notices = old.err.split(separator: "\n").filter { $0.contains("deprecated") }
        #expect(
            notices == [
                "userdebug: session import --name is deprecated: use --session instead "
                    + "(--name will name the user, as in 'session set')"
            ], "\(old.err)")

        let both = try home.run(
            ["session", "import", "-", "--session", "a", "--name", "b"], stdin: Data(document.utf8))
        #expect(both.status == 64 && both.err.contains("give --session only"), "\(both)")
        #expect(try Self.names(home).sorted() == ["legacy", "mine"])
        // The same name twice is no conflict.
        let same = try home.run(
            ["session", "import", "-", "--session", "mine", "--name", "mine"], stdin: Data(document.utf8))
        #expect(same.status == 0, "\(same)")
    }

    @Test func useRemoveAndShowTakeSessionAsWellAsAName() throws {
        let home = try UserDebugHome()
        for name in ["one", "two"] {
            try home.ok([
                "session", "set", "--session", name, "--id", "usr_" + name, "--name", "User " + name.capitalized,
            ])
        }
        // session set --name names the user, not the session.
        let shown = try home.ok(["session", "show", "--session", "one"]).out
        #expect(shown.contains(#""name": "one""#) && shown.contains(#""name": "User One""#), "\(shown)")
        let used = try home.run(["session", "use", "--session", "one"])
        #expect(used.status == 0 && used.err.contains("current session: 'one'"), "\(used)")
        let clash = try home.run(["session", "remove", "one", "--session", "two"])
        #expect(clash.status == 64, "\(clash)")
        let removed = try home.run(["session", "remove", "--session", "two"])
        #expect(removed.status == 0 && removed.err.contains("removed session 'two'"), "\(removed)")
        #expect(try Self.names(home) == ["one"])
        #expect(try home.run(["session", "use"]).status == 64)
    }

    /// A login handed over as a session document (the shell and Python recipes) is named as the
    /// login rule names it: two local servers on two ports are two sessions, and the document
    /// and a captured login of the same user on the same server are one.
    @Test func aLoginDocumentIsNamedAsTheLoginRuleNamesItPortIncluded() throws {
        let home = try UserDebugHome()
        for port in [18391, 18392] {
            let document = #"{"user": {"id": "usr_ada"}, "token": "tok-x", "baseURL": "http://127.0.0.1:\#(port)/v1"}"#
            try home.ok(["session", "import", "-"], stdin: document)
        }
        #expect(try Self.names(home).sorted() == ["usr_ada@127.0.0.1:18391", "usr_ada@127.0.0.1:18392"])

        try home.file("config/config.json", #"{"login": [{"match": "POST /v1/login"}]}"#)
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let captured = try home.run([
            "capture", "--", "curl", "-s", "-o", "/dev/null", "-d", #"{"username": "ana"}"#,
            server.baseURL + "/v1/login",
        ])
        #expect(captured.status == 0 && captured.err.contains("'usr_ana@\(server.hostAndPort)'"), "\(captured)")
        let imported = try home.run(
            ["session", "import", "-"],
            stdin: Data(#"{"user": {"id": "usr_ana"}, "token": "t2", "baseURL": "\#(server.baseURL)"}"#.utf8))
        #expect(imported.err.contains("recorded session 'usr_ana@\(server.hostAndPort)'"), "\(imported)")
        #expect(try Self.names(home).filter { $0.hasPrefix("usr_ana@") } == ["usr_ana@\(server.hostAndPort)"])
        // Without a baseURL or with an environment, as before.
        try home.ok(["session", "import", "-"], stdin: #"{"user": {"id": "usr_z"}}"#)
        try home.ok(["session", "import", "-"], stdin: #"{"user": {"id": "usr_z"}, "environment": "qa"}"#)
        #expect(try Self.names(home).contains("default") && Self.names(home).contains("qa"))
    }
}
