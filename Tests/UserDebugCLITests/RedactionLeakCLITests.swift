import Foundation
import Testing

/// Issue 12 item 4 end to end: exchanges that hide secrets in every shape the redactor used to
/// miss, recorded with the real binary, then shown through each output path without `--reveal`.
/// Nothing of the canary token (in any encoding), of the name-judged secrets (`hunter2…`) or of
/// the JWT may come out on stdout, stderr or in any file beside the store.
@Suite struct RedactionLeakCLITests {
    static let token = "Tok/EN+cnry-4d2e9b=Zq"
    /// A JWT (`{"alg":"HS256","typ":"JWT"}`, `{"sub":"usr_42","scope":"admin"}`), written out.
    static let jwtValue =
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfNDIiLCJzY29wZSI6ImFkbWluIn0.c2lnbmF0dXJlLWJ5dGVz"

    /// The token as the exchanges hide it, computed outside the code under test: itself,
    /// percent-encoded (upper hex; every byte, lower hex), JSON-escaped (`\/`; every character as
    /// `\u`), base64, base64url of "x" + token unpadded, base64 of "zoe:" + token.
    static let encodedTokens = [
        token, "Tok%2FEN%2Bcnry-4d2e9b%3DZq",
        "%54%6f%6b%2f%45%4e%2b%63%6e%72%79%2d%34%64%32%65%39%62%3d%5a%71", #"Tok\/EN+cnry-4d2e9b=Zq"#,
        #"\u0054\u006f\u006b\u002f\u0045\u004e\u002b\u0063\u006e\u0072\u0079\u002d\u0034\u0064\u0032\u0065\u0039\u0062\u003d\u005a\u0071"#,
        "VG9rL0VOK2NucnktNGQyZTliPVpx", "eFRvay9FTitjbnJ5LTRkMmU5Yj1acQ", "em9lOlRvay9FTitjbnJ5LTRkMmU5Yj1acQ==",
    ]

    /// Whether any 8 consecutive bytes of `encoded` survived in `out`.
    static func survives(_ encoded: String, in out: String) -> Bool {
        let bytes = Array(encoded.utf8)
        return (0...(bytes.count - 8)).contains { start in
            out.contains(String(decoding: bytes[start..<start + 8], as: UTF8.self))
        }
    }

    static func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Secret headers of every name item 4 lists, and the token encoded in harmless ones.
    static let leakyHeaders: [[String: String]] = {
        let encoded = encodedTokens
        return [
            ["name": "X-Auth", "value": "hunter2-xauth"], ["name": "X-Upstream-Auth", "value": "Bearer hunter2-up"],
            ["name": "Authentication", "value": "Bearer hunter2-authn"], ["name": "X-Session", "value": "hunter2-xs"],
            ["name": "X-Signature", "value": "hunter2-sig"], ["name": "X-Api-Key", "value": "hunter2-key"],
            ["name": "X-Echo", "value": "b64 \(encoded[5]) pct \(encoded[1])"],
            ["name": "X-Basic", "value": "Basic \(encoded[7])"], ["name": "X-Trace", "value": jwtValue],
        ]
    }()

    /// Four exchanges; between them every kind of item 4: headers, matrix parameters, GraphQL
    /// variables in the query and the body, NDJSON, BOM, JSONP, XML, multipart, text pairs, JWT,
    /// session/sid, and the token percent-, JSON- and base64-encoded.
    static func documents(base: String) throws -> String {
        let encoded = encodedTokens
        let variables = "%7B%22user%22%3A%22zoe%22%2C%22password%22%3A%22hunter2-gqlget%22%7D"
        let first: [String: Any] = [
            "request": [
                "method": "POST",
                "url": "\(base)/v1/login;jsessionid=hunter2-matrix?variables=\(variables)&t=\(encoded[2])",
                "headers": leakyHeaders + [["name": "Content-Type", "value": "application/x-ndjson"]],
                "body": "{\"user\":\"zoe\"}\n{\"password\":\"hunter2-ndjson\"}\n",
            ],
            "response": [
                "status": 200, "headers": [["name": "Content-Type", "value": "application/json"]],
                "body":
                    "\u{FEFF}{\"access_token\":\"hunter2-bom\",\"data\":\"\(jwtValue)\",\"session\":\"hunter2-session\",\"sid\":\"hunter2-sid\",\"note\":\"\(encoded[4])\",\"url\":\"\(base)\\/cb?t=\(encoded[3])\"}",
            ],
            "tags": ["login"],
        ]
        let second: [String: Any] = [
            "request": [
                "method": "POST", "url": "\(base)/v1/upload",
                "headers": [["name": "Content-Type", "value": "multipart/form-data; boundary=XyZ"]],
                "body":
                    "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nzoe\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2-multipart\r\n--XyZ--\r\n",
            ],
            "response": [
                "status": 200, "headers": [["name": "Content-Type", "value": "application/javascript"]],
                "body": "cb({\"access_token\":\"hunter2-jsonp\",\"echo\":\"\(encoded[6])\"});",
            ],
        ]
        let third: [String: Any] = [
            "request": [
                "method": "PUT", "url": "\(base)/v1/notes;sid=hunter2-sidmatrix",
                "headers": [["name": "Content-Type", "value": "text/plain"]],
                "body": "user=zoe\npassword=hunter2-textpair\ntoken: hunter2-colon\n",
            ],
            "response": [
                "status": 200, "headers": [["name": "Content-Type", "value": "application/xml"]],
                "body":
                    "<r><user>zoe</user><password>hunter2-xmlel</password><s token=\"hunter2-xmlattr\"/><b>\(jwtValue)</b></r>",
            ],
        ]
        let fourth: [String: Any] = [
            "request": [
                "method": "POST", "url": "\(base)/graphql",
                "headers": [["name": "Content-Type", "value": "application/json"]],
                "body":
                    "{\"query\":\"mutation\",\"variables\":{\"input\":{\"user\":\"zoe\",\"password\":\"hunter2-gqlpost\"}},\"extensions\":\"{\\\"token\\\":\\\"hunter2-gqlstring\\\"}\"}",
            ],
            "response": [
                "status": 200, "headers": [["name": "Content-Type", "value": "text/plain"]],
                "body": "issued \(encoded[0]) as \(encoded[5]) and \(jwtValue)",
            ],
        ]
        return try json([first, second, third, fourth])
    }

    static func recordedHome() throws -> UserDebugHome {
        let home = try UserDebugHome()
        let base = "http://127.0.0.1:9"
        try home.ok(
            ["session", "import", "-"],
            stdin: try json([
                "name": "local", "user": ["identifier": "usr_42", "name": "Zoë"], "token": token, "baseURL": base,
            ]))
        let ids = try home.ok(["response", "record", "-"], stdin: try documents(base: base))
        #expect(ids.out == "1\n2\n3\n4\n", "\(ids)")
        return home
    }

    /// What must never come out: returns the offending findings.
    static func leaks(in output: String) -> [String] {
        // JSON outputs double every backslash of what they carry: look at both spellings.
        let text = output + "\n" + output.replacingOccurrences(of: "\\\\", with: "\\")
        var found: [String] = []
        if text.contains("hunter2") { found.append("a hunter2 value") }
        if text.contains(jwtValue.prefix(24)) { found.append("the JWT") }
        for form in encodedTokens where survives(form, in: text) {
            found.append("token as \(form)")
        }
        return found
    }

    /// Every file under the home but the store itself.
    static func filesBesideTheStore(_ home: UserDebugHome) -> [(String, String)] {
        let root = home.root.path
        let paths = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        return paths.compactMap { relative in
            guard !relative.hasPrefix("data/userdebug.sqlite3") else { return nil }
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { return nil }
            let contents = FileManager.default.contents(atPath: path) ?? Data()
            return (relative, String(decoding: contents, as: UTF8.self))
        }
    }

    static let outputPaths: [[[String]]] = [
        (1...4).flatMap { [["print-response", "\($0)", "--full"], ["print-response", "\($0)", "--json"]] },
        (1...4).map { ["export", "curl", "\($0)"] },
        [["export", "har"]],
        [["export", "postman-collection"]],
    ]

    /// The content of the file a curl command reads its body from (`--data-binary '@PATH'`), or "".
    static func bodyFileNamed(in command: String) -> String {
        guard let start = command.range(of: "--data-binary '@") else { return "" }
        let rest = command[start.upperBound...]
        guard let end = rest.firstIndex(of: "'") else { return "" }
        return (try? String(contentsOfFile: String(rest[..<end]), encoding: .utf8)) ?? ""
    }

    @Test(arguments: outputPaths)
    func nothingSecretComesOutWithoutReveal(_ commands: [[String]]) throws {
        let home = try Self.recordedHome()
        for arguments in commands {
            let result = try home.run(arguments + ["--to", "stdout"])
            #expect(result.status == 0, "\(arguments): \(result)")
            // A body with control characters (a multipart body's CR LF) goes to a file that the
            // command names (`--data-binary '@PATH'`): what it holds is output too.
            let shown = result.out + Self.bodyFileNamed(in: result.out)
            #expect(shown.contains("[redacted]"), "\(arguments)")
            #expect(shown.contains("zoe"), "\(arguments): redaction is not erasure")
            #expect(Self.leaks(in: shown).isEmpty, "\(arguments) body file: \(Self.leaks(in: shown))")
            #expect(Self.leaks(in: result.out).isEmpty, "\(arguments) stdout: \(Self.leaks(in: result.out))")
            #expect(Self.leaks(in: result.err).isEmpty, "\(arguments) stderr: \(result.err)")
        }
        for (path, contents) in Self.filesBesideTheStore(home) {
            #expect(Self.leaks(in: contents).isEmpty, "\(path): \(Self.leaks(in: contents))")
        }
        // The same exchanges with --reveal are shown as recorded: the test above is not vacuous.
        let revealed = try home.run(commands[0] + ["--to", "stdout", "--reveal"])
        #expect(!Self.leaks(in: revealed.out).isEmpty, "\(revealed)")
    }
}
