import Foundation
import Testing

/// Logins are never filed silently (issue 24 item 5): a 2xx answer that looks like a login (a
/// user object with an identifier, and a token) that no login rule matched is recorded as a
/// response, with one stderr line naming the rule to add and the config file — from every path
/// that records: `response record`, `capture`, `response import` of a HAR.
@Suite struct LoginHintTests {
    static let token = "tok-login-canary-83c1f0"
    static let hint = "answered what looks like a login (a user with an identifier, and a token)"

    /// A home with a current session and, when `rules` is given, a config with that `login`.
    static func home(rules: String? = nil) throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: "https://app.example.test")
        if let rules { try home.file("config/config.json", #"{"login": \#(rules)}"#) }
        return home
    }

    static func hints(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.contains(hint) }
    }

    static let loginDocument = """
        {"request": {"method": "POST", "url": "https://app.example.test/v1/login?next=%2F"},
         "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                      "body": "{\\"user\\": {\\"id\\": \\"usr_7\\", \\"name\\": \\"Ada\\"}, \\"token\\": \\"\(token)\\"}"}}
        """

    @Test func responseRecordOfAnUnmatchedLoginSaysWhichRuleToAdd() throws {
        let home = try Self.home()
        let result = try home.run(["response", "record", "-"], stdin: Data(Self.loginDocument.utf8))
        #expect(result.status == 0 && result.out == "1\n", "\(result)")
        let hints = Self.hints(result.err)
        #expect(hints.count == 1, "\(result.err)")
        #expect(
            hints.first?.hasSuffix(#"add {"login": [{"match": "POST /v1/login"}]} to \#(home.configPath)"#) == true,
            "\(hints)")
        #expect(!result.err.contains(Self.token) && !result.err.contains("next="), "\(result.err)")
        // It went to the current session, which is unchanged.
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_42\n")

        // The rule it names, added: the same response is a login now, and no hint.
        try home.file("config/config.json", #"{"login": [{"match": "POST /v1/login"}]}"#)
        let matched = try home.run(["response", "record", "-"], stdin: Data(Self.loginDocument.utf8))
        #expect(matched.status == 0 && Self.hints(matched.err).isEmpty, "\(matched)")
        #expect(matched.err.contains("recorded session 'usr_7@app.example.test'"), "\(matched.err)")

        // Not a login: a 2xx without a token, a user without an identifier, a 401.
        for body in [
            #"{\"user\": {\"id\": \"usr_7\"}}"#, #"{\"user\": {\"name\": \"Ada\"}, \"token\": \"t\"}"#,
        ] {
            let document = """
                {"request": {"method": "GET", "url": "https://app.example.test/v1/me"},
                 "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": "\(body)"}}
                """
            let plain = try home.run(["response", "record", "-"], stdin: Data(document.utf8))
            #expect(plain.status == 0 && Self.hints(plain.err).isEmpty, "\(plain)")
        }
        let refused = try Self.home().run(
            ["response", "record", "-"],
            stdin: Data(Self.loginDocument.replacingOccurrences(of: #""status": 200"#, with: #""status": 401"#).utf8))
        #expect(refused.status == 0 && Self.hints(refused.err).isEmpty, "\(refused)")
    }

    @Test func withOtherRulesTheHintAddsToTheirList() throws {
        let home = try Self.home(rules: #"[{"match": "POST /auth"}]"#)
        let result = try home.run(["response", "record", "-"], stdin: Data(Self.loginDocument.utf8))
        #expect(result.status == 0, "\(result)")
        #expect(
            Self.hints(result.err).first?.hasSuffix(
                #"add {"match": "POST /v1/login"} to "login" in \#(home.configPath)"#)
                == true, "\(result.err)")
    }

    @Test func captureOfAnUnmatchedLoginSaysWhichRuleToAdd() throws {
        let home = try Self.home()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let result = try home.run([
            "capture", "--", "curl", "-s", "-o", "/dev/null", "-d", #"{"username": "ana"}"#,
            server.baseURL + "/v1/login",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(Self.hints(result.err).count == 1, "\(result.err)")
        #expect(result.err.contains(#"add {"login": [{"match": "POST /v1/login"}]}"#), "\(result.err)")
        #expect(!result.err.contains(Self.token))
        let plain = try home.run(["capture", "--", "curl", "-s", "-o", "/dev/null", server.baseURL + "/other"])
        #expect(plain.status == 0 && Self.hints(plain.err).isEmpty, "\(plain)")
    }

    @Test func aHARImportHintsOncePerLoginRequestWithOrWithoutASession() throws {
        let login = #"{"data": {"user": {"userId": 12, "name": "Har"}, "access_token": "\#(Self.token)"}}"#
        let har = try LoginRuleCLITests.har([
            ("POST", "https://app.example.test/v1/session", 200, login),
            ("GET", "https://app.example.test/v1/me", 200, #"{"id": "usr_har"}"#),
            ("POST", "https://app.example.test/v1/session", 201, login),
        ])
        // A session current: the entries stream into it.
        let home = try Self.home()
        let streamed = try home.run(["response", "import", "-"], stdin: har)
        #expect(streamed.status == 0 && streamed.out == "1\n2\n3\n", "\(streamed)")
        #expect(Self.hints(streamed.err).count == 1, "\(streamed.err)")
        #expect(streamed.err.contains(#"add {"login": [{"match": "POST /v1/session"}]}"#), "\(streamed.err)")
        #expect(!streamed.err.contains(Self.token))

        // No session, a rule for another path: the entries wait for a login that never comes;
        // the hint says why, and the import is refused as before.
        let fresh = try UserDebugHome()
        try fresh.file("config/config.json", #"{"login": [{"match": "POST /v1/login"}]}"#)
        let refused = try fresh.run(["response", "import", "-"], stdin: har)
        #expect(refused.status == 66 && refused.err.contains("no current session"), "\(refused)")
        #expect(Self.hints(refused.err).count == 1, "\(refused.err)")
        #expect(refused.err.contains(#"add {"match": "POST /v1/session"} to "login""#), "\(refused.err)")
    }
}
