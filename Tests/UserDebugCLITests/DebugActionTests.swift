import Foundation
import Testing

/// The three debug actions, driven through the built binary as a script would.
@Suite struct DebugActionTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
        try home.ok(["response", "record", "-"], stdin: Samples.notFound)
    }

    @Test func copyIdPrintsTheIdentifierWhenPiped() throws {
        let result = try home.ok(["copy-id"])
        #expect(result.out == "usr_1\n")
    }

    @Test func copyIdToStdoutIsExplicit() throws {
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")
    }

    @Test func dumpJsonKeepsEveryFieldExactlyAndInAStableOrder() throws {
        let result = try home.ok(["dump-json"])
        let object = try #require(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(object["identifier"] as? String == "usr_1")
        #expect(object["name"] as? String == "Zoë")
        #expect(object["email"] as? String == "zoe@example.com")
        // The 20-digit number keeps its literal text (it does not fit a Double or an Int64).
        #expect(result.out.contains("12345678901234567890"))
        // identifier and name first, then the rest sorted by key.
        let keys = ["\"identifier\"", "\"name\"", "\"apiKey\"", "\"email\"", "\"plan\""]
        let positions = keys.map { result.out.range(of: $0)!.lowerBound }
        #expect(positions == positions.sorted())
    }

    @Test func dumpJsonRedactsSecretLookingFieldsUnlessRevealed() throws {
        #expect(!(try home.ok(["dump-json"]).out.contains("ak-secret-1")))
        #expect(try home.ok(["dump-json", "--reveal"]).out.contains("ak-secret-1"))
    }

    @Test func printResponseShowsTheLastBody() throws {
        let result = try home.ok(["print-response"])
        #expect(result.out == "{\"error\":\"not found\"}\n")
    }

    @Test func printResponseSelectsByTagStatusPathAndId() throws {
        #expect(
            try home.ok(["print-response", "--tag", "login", "--reveal"]).out.contains("\"user\":{\"id\":\"usr_1\"}"))
        #expect(try home.ok(["print-response", "--status", "404"]).out.contains("not found"))
        #expect(try home.ok(["print-response", "--status", "2xx", "--headers"]).out.hasPrefix("HTTP 200\n"))
        #expect(try home.ok(["print-response", "--path", "/orders/"]).out.contains("not found"))
        #expect(
            try home.ok(["print-response", "1", "--full"]).out.hasPrefix(
                "POST https://api.example.com/v1/login?debug=1\n"))
    }

    @Test func printResponseJsonIsValidJson() throws {
        let result = try home.ok(["print-response", "--tag", "login", "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let response = try #require(object["response"] as? [String: Any])
        #expect(response["status"] as? Int == 200)
    }

    @Test func aMissingResponseIsExit66() throws {
        let result = try home.run(["print-response", "--status", "500"])
        #expect(result.status == 66)
        #expect(result.err.contains("no recorded response matches"))
        #expect(try home.run(["print-response", "99"]).status == 66)
    }

    @Test func theClipboardTargetWithoutADisplayIsExit69() throws {
        let result = try home.run(["copy-id", "--to", "clipboard"], extraEnvironment: ["DISPLAY": ""])
        #expect(result.status == 69)
        #expect(result.stdout.isEmpty)
        #expect(result.err.contains("display"))
    }

    @Test(arguments: [
        ["dump-json"], ["print-response"], ["print-response", "--full"], ["print-response", "--json"],
        ["print-response", "--headers", "--tag", "login"], ["print-response", "--full", "--tag", "login"],
        ["print-response", "--json", "--tag", "login"], ["print-response", "--tag", "login"],
        ["session", "show"], ["session", "list"], ["response", "list"],
    ])
    func theCanaryTokenNeverAppearsWithoutReveal(arguments: [String]) throws {
        let result = try home.ok(arguments)
        #expect(!result.out.contains(Samples.canary), "\(arguments) leaked the token: \(result.out)")
        #expect(!result.err.contains(Samples.canary))
        #expect(!result.out.contains("hunter2"))
    }

    @Test func sessionShowRevealsTheTokenOnlyWhenAsked() throws {
        #expect(try home.ok(["session", "show", "--reveal"]).out.contains(Samples.canary))
    }

    @Test func copyTokenPrintsTheTokenWhenExplicitlyAsked() throws {
        #expect(try home.ok(["copy-token", "--to", "stdout"]).out == Samples.canary + "\n")
    }
}
