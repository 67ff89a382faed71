import Foundation
import Testing

/// A redacted export shared by a teammate and imported back holds placeholders where the token
/// was (`[redacted]`, Postman's `{{authToken}}`): the session is recorded without a token, stderr
/// says so, and `copy-token` refuses (66) instead of handing out the placeholder as a credential.
@Suite struct PlaceholderTokenTests {
    static let loginRules = #"{"login": [{"match": "POST /v1/login"}]}"#

    static func home(config: String? = loginRules) throws -> UserDebugHome {
        let home = try UserDebugHome()
        if let config { try home.file("config/config.json", config) }
        return home
    }

    @Test func aHARExportedByUserdebugAndImportedBackGivesASessionWithoutAUsableToken() throws {
        let sender = try Self.home()
        try sender.ok(["response", "record", "-"], stdin: Samples.loginResponse)
        #expect(try sender.ok(["copy-token", "--to", "stdout", "--reveal"]).out == Samples.canary + "\n")
        let har = try sender.ok(["export", "har", "--to", "stdout"])
        #expect(har.out.contains(#"\"token\":\"[redacted]\""#), "the export hides the token: \(har.out)")

        let receiver = try Self.home()
        let path = try receiver.file("shared.har", har.stdout)
        let imported = try receiver.run(["response", "import", path])
        #expect(imported.status == 0 && imported.out == "1\n", "\(imported)")
        #expect(
            imported.err.contains(
                "recorded session 'usr_1@api.example.com' (user usr_1, no usable token: the response held the placeholder '[redacted]'"
            ), "\(imported.err)")

        let copy = try receiver.run(["copy-token", "--to", "stdout"])
        #expect(copy.status == 66, "\(copy)")
        #expect(copy.out.isEmpty, "the placeholder is never handed out as a token: \(copy.out)")
        #expect(copy.err.contains("session 'usr_1@api.example.com' has no token"), "\(copy.err)")
        #expect(
            copy.err.contains(
                "record a real login, or pipe the token to: userdebug session set --session usr_1@api.example.com --token-stdin"
            ),
            "says what to do: \(copy.err)")

        #expect(try receiver.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")
        let user = try receiver.ok(["dump-json", "--to", "stdout"]).out
        #expect(user.contains(#""identifier": "usr_1""#), "\(user)")
    }

    @Test(arguments: ["[redacted]", "{{authToken}}", "%5Bredacted%5D"])
    func aSessionDocumentWithAPlaceholderTokenIsRecordedWithoutOne(placeholder: String) throws {
        let home = try Self.home(config: nil)
        let imported = try home.run(
            ["session", "import", "-"],
            stdin: Data(#"{"name": "shared", "user": {"identifier": "usr_7"}, "token": "\#(placeholder)"}"#.utf8))
        #expect(imported.status == 0, "\(imported)")
        #expect(
            imported.err.contains(
                "recorded session 'shared' (user usr_7, no usable token: the document held the placeholder '\(placeholder)'"
            ),
            "\(imported.err)")
        let copy = try home.run(["copy-token", "--to", "stdout"])
        #expect(copy.status == 66 && copy.out.isEmpty, "\(copy)")
        #expect(copy.err.contains("session set --session shared --token-stdin"), "\(copy.err)")
    }

    @Test func aLoginResponseWithAPostmanVariableForTheTokenIsRecordedWithoutOne() throws {
        let home = try Self.home()
        let document = """
            {"request": {"method": "POST", "url": "https://api.example.com/v1/login"},
             "response": {"status": 200, "headers": {"Content-Type": "application/json"},
              "body": "{\\"token\\":\\"{{authToken}}\\",\\"user\\":{\\"id\\":\\"usr_3\\"}}"}}
            """
        let recorded = try home.run(["response", "record", "-"], stdin: Data(document.utf8))
        #expect(recorded.status == 0, "\(recorded)")
        #expect(
            recorded.err.contains("no usable token: the response held the placeholder '{{authToken}}'"),
            "\(recorded.err)")
        let copy = try home.run(["copy-token", "--to", "stdout"])
        #expect(copy.status == 66 && copy.out.isEmpty, "\(copy)")
    }

    @Test func aPlaceholderAStoreAlreadyHoldsIsNamedAndNeverHandedOut() throws {
        // What an import made before placeholders were recognised left in the store.
        let home = try Self.home(config: nil)
        try home.ok(["session", "set", "--session", "old", "--id", "usr_8", "--token", "[redacted]"])
        let copy = try home.run(["copy-token", "--to", "stdout"])
        #expect(copy.status == 66 && copy.out.isEmpty, "\(copy)")
        #expect(
            copy.err.contains(
                "session 'old' has no token: its token is the placeholder '[redacted]' a redacted export writes"),
            "\(copy.err)")
    }
}
