import Foundation
import Testing

/// Labels — tags, session names, users' identifiers — are shown by lists, completion and stderr
/// notices. One that holds a secret (a session's token, a JWT, `access_token=…`: pasted into the
/// wrong field, or a login rule naming a session after an identifier that is the token) is
/// `[redacted]` as a whole in lists unless `--reveal`, left out of completion, and `[redacted]`
/// in notices whatever `--reveal` says.
@Suite struct SecretLabelTests {
    /// A JWT-shaped value (header `{"alg":"HS256"}`), no token of any session.
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNpZ24"
    /// Tags that hold a secret, each in its own way.
    static let secretTags = [
        Samples.canary, "x-\(Samples.canary)", jwt, "access_token=abcdef123456", "password: hunter2",
    ]

    /// The sample session, current, and a second one named with the first's token (its own
    /// token differs): its name is secret because of another session's token.
    static func home() throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let named = #"{"user": {"identifier": "usr_2"}, "token": "other-token-4d5e6f"}"#
        try home.ok(["session", "import", "--name", Samples.canary, "--keep-current", "-"], stdin: named)
        let tags = secretTags.flatMap { ["--tag", $0] } + ["--tag", "checkout"]
        try home.ok(["response", "record", "-"] + tags, stdin: Samples.notFound)
        return home
    }

    static func leaks(_ text: String) -> [String] {
        ([Samples.canary, jwt, "abcdef123456", "hunter2"]).filter { text.contains($0) }
    }

    /// `userdebug ARGS` on a terminal (script(1)): the table output.
    static func onATerminal(_ home: UserDebugHome, _ arguments: [String]) throws -> String {
        let command = ([UserDebugHome.binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let result = try runTool(
            "/usr/bin/script", ["-qec", command, "/dev/null"],
            environment: home.environment.merging(["TERM": "dumb"]) { $1 })
        #expect(result.status == 0, "\(result)")
        return result.out
    }

    @Test func completionLeavesOutTagsAndSessionNamesThatHoldASecret() throws {
        let home = try Self.home()
        #expect(try home.ok(["__complete", "tags"]).out == "checkout\n")
        #expect(try home.ok(["__complete", "sessions"]).out == "staging\n")
        // The shell asks, not the user: --reveal brings nothing back.
        #expect(try home.ok(["__complete", "tags", "--reveal"]).out == "checkout\n")
    }

    @Test func responseListRedactsSecretTagsUnlessRevealed() throws {
        let home = try Self.home()
        let listed = try home.ok(["response", "list", "--json"]).out
        #expect(Self.leaks(listed).isEmpty, "\(listed)")
        #expect(
            listed.contains(#""tags":["[redacted]","[redacted]","[redacted]","[redacted]","[redacted]","checkout"]"#),
            "\(listed)")
        let table = try Self.onATerminal(home, ["response", "list"])
        #expect(Self.leaks(table).isEmpty && table.contains("[redacted],[redacted]"), "\(table)")
        let revealed = try home.ok(["response", "list", "--json", "--reveal"]).out
        for tag in Self.secretTags {
            #expect(revealed.contains(tag), "\(tag) not in \(revealed)")
        }
    }

    @Test func responseListRedactsASessionNameThatHoldsAToken() throws {
        let home = try Self.home()
        try home.ok(["response", "record", "--session", Samples.canary, "-"], stdin: Samples.notFound)
        let listed = try home.ok(["response", "list", "--all-sessions"]).out
        #expect(Self.leaks(listed).isEmpty && listed.contains(#""session":"[redacted]""#), "\(listed)")
        #expect(listed.contains(#""session":"staging""#), "\(listed)")
        let revealed = try home.ok(["response", "list", "--all-sessions", "--reveal"]).out
        #expect(revealed.contains(#""session":"\#(Samples.canary)""#), "\(revealed)")
    }

    @Test func sessionListRedactsANameOrAUserThatIsAToken() throws {
        let home = try Self.home()
        let user =
            #"{"user": {"identifier": "\#(Self.jwt)", "name": "\#(Samples.canary)"}, "token": "third-token-77aa"}"#
        try home.ok(["session", "import", "--name", "jwt-user", "--keep-current", "-"], stdin: user)
        let listed = try home.ok(["session", "list"]).out
        #expect(Self.leaks(listed).isEmpty, "\(listed)")
        #expect(listed.contains(#"{"name":"[redacted]","current":false"#), "\(listed)")
        #expect(listed.contains(#""user":{"identifier":"[redacted]","name":"[redacted]"}"#), "\(listed)")
        #expect(listed.contains(#"{"name":"staging","current":true"#), "\(listed)")
        let table = try Self.onATerminal(home, ["session", "list"])
        #expect(Self.leaks(table).isEmpty && table.contains("[redacted]") && table.contains("staging"), "\(table)")
        let revealed = try home.ok(["session", "list", "--reveal"]).out
        #expect(revealed.contains(#"{"name":"\#(Samples.canary)""#) && revealed.contains(Self.jwt), "\(revealed)")
    }

    @Test func aLoginRuleWhoseUserIdIsTheTokenNamesNeitherOnStderr() throws {
        let home = try UserDebugHome()
        try home.file("config/config.json", #"{"login": [{"match": "POST /v1/login"}]}"#)
        let login = """
            {"request": {"method": "POST", "url": "https://api.example.com/v1/login"},
             "response": {"status": 200, "headers": {"Content-Type": "application/json"},
              "body": "{\\"token\\":\\"\(Samples.canary)\\",\\"user\\":{\\"id\\":\\"\(Samples.canary)\\"}}"}}
            """
        for reveal in [[], ["--reveal"]] {
            let result = try home.ok(["response", "record", "-"] + reveal, stdin: login)
            #expect(Self.leaks(result.err).isEmpty && Self.leaks(result.out).isEmpty, "\(result)")
            #expect(
                result.err.contains("recorded session '[redacted]' (user [redacted]) from response"), "\(result.err)")
        }
        // The session is recorded as found: the id is what copy-id gives.
        #expect(try home.ok(["copy-id", "--to", "stdout", "--reveal"]).out.contains(Samples.canary))
    }

    /// The menu's header (JSON, text, rofi's message) names the session: never its token.
    @Test func theMenuNamesASessionNamedWithItsTokenRedacted() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "--name", "s-\(Samples.canary)", "-"], stdin: Samples.session)
        for arguments in [["menu", "--json"], ["menu"], ["rofi"]] {
            let result = try home.ok(arguments)
            #expect(Self.leaks(result.out + result.err).isEmpty, "\(arguments): \(result)")
            #expect(result.out.contains("s-[redacted]"), "\(arguments): \(result.out)")
        }
    }

    @Test func sessionImportAndSetNameNoTokenOnStderr() throws {
        let home = try UserDebugHome()
        let document = #"{"user": {"identifier": "\#(Samples.canary)"}, "token": "\#(Samples.canary)"}"#
        let imported = try home.ok(["session", "import", "--name", "x\(Samples.canary)", "-"], stdin: document)
        #expect(Self.leaks(imported.err).isEmpty, "\(imported.err)")
        #expect(imported.err.contains("recorded session '[redacted]' (user [redacted])"), "\(imported.err)")
        let set = try home.ok(["session", "set", "--name", "Zoë"])
        #expect(Self.leaks(set.err).isEmpty && set.err.contains("saved session '[redacted]'"), "\(set.err)")
    }
}
