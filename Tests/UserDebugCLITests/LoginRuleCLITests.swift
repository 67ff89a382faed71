import Foundation
import Testing

/// The config's login rules wherever responses come in: `capture -- curl`, `response record`,
/// `response import` of a HAR. The login becomes the current session, one stderr line says so,
/// and the token is never printed.
@Suite struct LoginRuleCLITests {
    static let token = "tok-login-canary-83c1f0"

    static func home(rules: String = #"[{"match": "POST /v1/login"}]"#) throws -> UserDebugHome {
        let home = try UserDebugHome()
        try FileManager.default.createDirectory(
            atPath: home.root.appendingPathComponent("config").path, withIntermediateDirectories: true)
        try #"{"login": \#(rules)}"#.write(toFile: home.configPath, atomically: true, encoding: .utf8)
        return home
    }

    @Test func aLoginCapturedWithCurlBecomesTheCurrentSessionOnAFreshStore() throws {
        let home = try Self.home()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let result = try home.run([
            "capture", "--", "curl", "-s", "-o", "/dev/null", "-H", "Content-Type: application/json",
            "-d", #"{"username": "ana", "password": "pw"}"#, server.baseURL + "/v1/login",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.err.contains(
                "recorded session 'usr_ana@\(server.hostAndPort)' (user usr_ana) from response 1 (POST /v1/login → 200)"
            ),
            "\(result.err)")
        #expect(!result.err.contains(Self.token) && !result.out.contains(Self.token), "the token is never printed")
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_ana\n")
        let session = try home.ok(["session", "show", "--reveal"]).out
        #expect(session.contains(Self.token) && session.contains(#""baseURL": "\#(server.baseURL)""#), "\(session)")
        #expect(try home.ok(["response", "list"]).out.contains(#""session":"usr_ana@\#(server.hostAndPort)""#))

        // Another login: another session, now current; a refused one changes nothing.
        _ = try home.ok(["capture", "--", "curl", "-s", "-d", #"{"username": "bo"}"#, server.baseURL + "/v1/login"])
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_bo\n")
        let refused = try home.run([
            "capture", "--", "curl", "-s", "-d", #"{"username": "cy", "password": "wrong"}"#,
            server.baseURL + "/v1/login",
        ])
        #expect(refused.status == 0 && !refused.err.contains("recorded session"), "\(refused)")
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_bo\n")
    }

    @Test func withoutASessionOrALoginNothingIsRecordedAndTheErrorSaysSo() throws {
        let home = try Self.home()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let result = try home.run(["capture", "--", "curl", "-s", "-o", "/dev/null", server.baseURL + "/other"])
        #expect(result.status == 66, "\(result)")
        #expect(result.err.contains("no current session"), "\(result.err)")
        // A rule whose paths find nothing says what it looked for; the response is still recorded.
        let odd = try Self.home(rules: #"[{"match": "POST /v1/login", "user": "$.account"}]"#)
        try odd.recordSession(baseURL: server.baseURL)
        let missed = try odd.run(["capture", "--", "curl", "-s", "-d", "{}", server.baseURL + "/v1/login"])
        #expect(missed.status == 0, "\(missed)")
        #expect(
            missed.err.contains(
                "login rule matched POST /v1/login → 200 but found no session in it: at $: no user object at $.account"),
            "\(missed.err)")
        #expect(try odd.ok(["copy-id", "--to", "stdout"]).out == "usr_42\n")
    }

    @Test func responseRecordOfALoginRecordsTheSession() throws {
        let home = try Self.home(rules: #"[{"match": "POST */auth", "user": "$.data.profile", "session": "app"}]"#)
        let document = """
            {"request": {"method": "POST", "url": "https://api.example.test/v2/auth?x=1"},
             "response": {"status": 201, "headers": [{"name": "Content-Type", "value": "application/json"}],
                          "body": "{\\"data\\": {\\"profile\\": {\\"id\\": 99, \\"name\\": \\"Rec\\"}, \\"access_token\\": \\"\(Self.token)\\"}}"}}
            """
        let result = try home.run(["response", "record", "-"], stdin: Data(document.utf8))
        #expect(result.status == 0 && result.out == "1\n", "\(result)")
        #expect(
            result.err.contains("recorded session 'app' (user 99) from response 1 (POST /v2/auth → 201)"),
            "\(result.err)")
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "99\n")
        #expect(try home.ok(["copy-token", "--to", "stdout", "--reveal"]).out == Self.token + "\n")
    }

    static func har(_ entries: [(method: String, url: String, status: Int, body: String)]) throws -> Data {
        let made: [[String: Any]] = entries.map { entry in
            [
                "startedDateTime": "2026-12-01T20:00:00.000Z", "time": 12,
                "request": [
                    "method": entry.method, "url": entry.url, "httpVersion": "HTTP/1.1", "headers": [],
                    "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0,
                ],
                "response": [
                    "status": entry.status, "statusText": "", "httpVersion": "HTTP/1.1",
                    "headers": [["name": "Content-Type", "value": "application/json"]], "cookies": [],
                    "content": ["size": entry.body.utf8.count, "mimeType": "application/json", "text": entry.body],
                    "redirectURL": "", "headersSize": -1, "bodySize": entry.body.utf8.count,
                ],
                "cache": [:], "timings": ["send": 0, "wait": 10, "receive": 2],
            ]
        }
        let log: [String: Any] = [
            "log": ["version": "1.2", "creator": ["name": "test", "version": "1"], "entries": made]
        ]
        return try JSONSerialization.data(withJSONObject: log)
    }

    @Test func aHARFromTheBrowserWithALoginBecomesTheSessionWithOrWithoutOneBefore() throws {
        let home = try Self.home()
        let login = #"{"user": {"id": "usr_har", "name": "Har"}, "token": "\#(Self.token)"}"#
        let har = try Self.har([
            ("GET", "https://app.example.test/v1/config", 200, #"{"ok": true}"#),
            ("POST", "https://app.example.test/v1/login", 200, login),
            ("GET", "https://app.example.test/v1/me", 200, #"{"id": "usr_har"}"#),
        ])
        let fresh = try home.run(["response", "import", "-"], stdin: har)
        #expect(fresh.status == 0 && fresh.out == "1\n2\n3\n", "\(fresh)")
        #expect(
            fresh.err.contains(
                "recorded session 'usr_har@app.example.test' (user usr_har) from response 2 (POST /v1/login → 200)"),
            "\(fresh.err)")
        #expect(!fresh.err.contains(Self.token))
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_har\n")

        // With a session current: the entries go to it, and the login then becomes current.
        let other = try Self.home()
        try other.recordSession(baseURL: "https://app.example.test")
        let streamed = try other.run(["response", "import", "-"], stdin: har)
        #expect(streamed.status == 0 && streamed.err.contains("from response 2 (POST /v1/login → 200)"), "\(streamed)")
        #expect(try other.ok(["copy-id", "--to", "stdout"]).out == "usr_har\n")
        #expect(try other.ok(["response", "list", "--all-sessions"]).out.contains(#""session":"local""#))

        // A HAR without a login and no session: refused, nothing recorded.
        let none = try Self.home()
        let refused = try none.run(
            ["response", "import", "-"], stdin: try Self.har([("GET", "https://x.test/a", 200, "{}")]))
        #expect(refused.status == 66 && refused.err.contains("no current session"), "\(refused)")
    }

    @Test func aBadRuleIsAConfigErrorAtItsPlace() throws {
        let home = try Self.home(rules: #"[{"match": "POST /v1/login", "token": "token"}]"#)
        let document = #"{"request": {"method": "GET", "url": "https://x.test/"}, "response": {"status": 200}}"#
        let result = try home.run(["response", "record", "-"], stdin: Data(document.utf8))
        #expect(result.status == 78, "\(result)")
        #expect(
            result.err.contains(home.configPath + #":1:49: login[0].token: "token": a JSON path starts with "$""#),
            "\(result.err)")
    }
}
