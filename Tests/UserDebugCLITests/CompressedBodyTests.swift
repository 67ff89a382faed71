import Foundation
import Testing

/// Bodies sent with a `Content-Encoding` (issue 12, item 1): every output decodes them before
/// redaction, and a body that redaction cannot inspect (an unknown coding, a corrupt stream,
/// more than the decoding limit) is never shown or exported without `--reveal`. Each run's
/// stdout, stderr and `--trace`, and every file under the home but the store, are searched for
/// the secrets as text and inside base64, gzip, zlib, deflate, brotli and zstd.
@Suite struct CompressedBodyTests {
    /// The `access_token` of the echo server's `/encoded/NAME` answers (Tests/Support/echo_server.py).
    static let serverSecret = "srv-canary-5e1d9b-body"
    static let secrets = [Samples.canary, serverSecret]
    /// What the echo server's answer decodes to once redacted: the session's token (echoed back
    /// from the request's Authorization) is a known secret, access_token a secret by its name.
    static let redactedAnswer = ["access_token": "[redacted]", "user": "usr_42", "seen": "Bearer [redacted]"]
    static let decodable = ["gzip", "x-gzip", "deflate", "raw-deflate", "br", "gzip-br"]
    /// What the marker says for each answer redaction cannot inspect.
    static let opaque = [
        "zstd": "zstd-encoded", "corrupt-gzip": "gzip-encoded (corrupt)", "unknown": "x-unknown-encoded",
    ]
    /// Every output that shows a recorded body, without --reveal.
    static let bodyOutputs: [[String]] = [
        ["print-response"], ["print-response", "--full"], ["print-response", "--json"], ["export", "har"],
        ["export", "curl"], ["export", "postman-collection"], ["run", "last-body", "--trace"],
    ]

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// The HAR's single entry's response content and headers, after haralyzer read the file.
    static func harResponse(_ har: RunResult, watch: LeakWatch, entries: Int = 1) throws -> [String: Any] {
        try Consumers.require()
        let path = try watch.keep("checked.har", har.stdout)
        let check = try runTool(Consumers.python, [Consumers.support("har_check.py"), path])
        #expect(check.status == 0 && check.out == "ok \(entries)\n", "\(check)")
        let entry = try #require((try json(har.out)["log"] as? [String: Any])?["entries"] as? [[String: Any]]).last
        return try #require(entry?["response"] as? [String: Any])
    }

    static func contentEncoding(_ response: [String: Any]) -> String? {
        (response["headers"] as? [[String: String]])?.first { $0["name"]?.lowercased() == "content-encoding" }?[
            "value"]
    }

    @Test(arguments: decodable + opaque.keys.sorted())
    func aCapturedCompressedBodyIsShownDecodedAndRedactedOrNotAtAll(_ name: String) throws {
        let home = try UserDebugHome()
        let watch = try LeakWatch()
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        try home.file(
            "config/config.json",
            #"{"actions": [{"id": "last-body", "title": "Last Body", "template": "{{response.body}}"}]}"#)
        // curl refuses to decode a coding it does not know; without --compressed it keeps the bytes.
        let curl =
            ["-s"] + (name == "unknown" ? [] : ["--compressed"])
            + ["-H", "Authorization: Bearer \(Samples.canary)", server.baseURL + "/encoded/" + name]
        let captured = try home.run(["capture", "--", "curl"] + curl)
        #expect(captured.status == 0 && captured.err.contains("recorded response 1"), "\(captured)")
        try watch.keep("capture.stderr", captured.stderr)  // its stdout is curl's own output
        for arguments in Self.bodyOutputs {
            let result = try home.run(arguments + ["--to", "stdout"])
            #expect(result.status == 0, "\(arguments): \(result)")
            try watch.keep(result, as: arguments.joined(separator: "-"))
        }
        try watch.expectClean(of: Self.secrets, home: home)

        let body = try home.ok(["print-response", "--to", "stdout"]).out
        let response = try Self.harResponse(try home.ok(["export", "har", "--to", "stdout"]), watch: watch)
        let content = try #require(response["content"] as? [String: Any])
        #expect(content["encoding"] == nil, "\(content)")
        #expect(Self.contentEncoding(response) == nil, "the content is no longer encoded: \(response)")
        if let marker = Self.opaque[name] {
            #expect(body.hasPrefix("[body: ") && body.contains(" bytes, \(marker), shown with --reveal]"), "\(body)")
            #expect(content["text"] as? String == body.trimmingCharacters(in: .newlines))
        } else {
            #expect(try Self.json(body) as? [String: String] == Self.redactedAnswer, "\(body)")
            #expect(try Self.json(content["text"] as? String ?? "") as? [String: String] == Self.redactedAnswer)
        }

        let revealed = try home.ok(["print-response", "--reveal", "--to", "stdout"])
        let revealedResponse = try Self.harResponse(
            try home.ok(["export", "har", "--reveal", "--to", "stdout"]), watch: watch)
        #expect(!revealed.out.contains("shown with --reveal"))
        if Self.opaque[name] != nil {
            #expect(Self.contentEncoding(revealedResponse) != nil, "the bytes as received, with their coding")
        } else {
            let answer = try Self.json(revealed.out)
            #expect(answer["access_token"] as? String == Self.serverSecret, "\(revealed)")
            #expect(answer["seen"] as? String == "Bearer \(Samples.canary)")
            let text = (revealedResponse["content"] as? [String: Any])?["text"] as? String ?? ""
            #expect(try Self.json(text)["access_token"] as? String == Self.serverSecret)
            #expect(Self.contentEncoding(revealedResponse) == nil)
        }
    }

    @Test func aCompressedRequestBodyIsExportedDecoded() throws {
        let home = try UserDebugHome()
        let watch = try LeakWatch()
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        let secret = "form-canary-0b7e2d"
        let form = "user=zoe&password=\(secret)&note=\(Samples.canary)"
        let document: [String: Any] = [
            "request": [
                "method": "POST", "url": server.baseURL + "/echo/upload",
                "headers": [
                    ["name": "Content-Type", "value": "application/x-www-form-urlencoded"],
                    ["name": "Content-Encoding", "value": "gzip"],
                ],
                "body": ["base64": try Compressed.gzip(Data(form.utf8)).base64EncodedString()],
            ],
            "response": ["status": 204],
        ]
        // The document holds the secrets: it goes in on stdin, never into a file under the home.
        let text = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
        try home.ok(["response", "record", "-"], stdin: text)
        for arguments in [
            ["export", "curl"], ["export", "har"], ["export", "postman-collection"], ["print-response", "--full"],
        ] {
            let result = try home.run(arguments + ["--to", "stdout"])
            #expect(result.status == 0, "\(arguments): \(result)")
            try watch.keep(result, as: arguments.joined(separator: "-"))
        }
        try watch.expectClean(of: [Samples.canary, secret], home: home)

        let command = try home.ok(["export", "curl", "--to", "stdout"]).out
        #expect(command.contains("password=%5Bredacted%5D") && !command.lowercased().contains("content-encoding"))
        #expect(try runTool("/usr/bin/dash", ["-c", command]).status == 0)
        let redacted = try #require(try server.requests().last)
        #expect(String(decoding: redacted.body, as: UTF8.self).hasPrefix("user=zoe&password=%5Bredacted%5D&note="))
        #expect(redacted.header("Content-Encoding") == nil)

        let revealed = try home.ok(["export", "curl", "--reveal", "--to", "stdout"]).out
        #expect(try runTool("/usr/bin/dash", ["-c", revealed]).status == 0)
        let sent = try #require(try server.requests().last)
        #expect(String(decoding: sent.body, as: UTF8.self) == form, "the decoded body, byte for byte")
        #expect(sent.header("Content-Encoding") == nil, "and no coding the body no longer has")
    }

    @Test func aHARsCompressedContentIsImportedAndShownDecoded() throws {
        let home = try UserDebugHome()
        let watch = try LeakWatch()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let plain = #"{"access_token":"\#(Self.serverSecret)","user":"usr_1"}"#
        let compressed = try Compressed.gzip(Data(plain.utf8)).base64EncodedString()
        func entry(_ url: String, coding: String, content: String) -> String {
            #"""
            {"startedDateTime": "2026-11-30T10:00:00Z", "time": 1,
             "request": {"method": "GET", "url": "https://api.example.com\#(url)", "headers": []},
             "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"},
                                                     {"name": "Content-Encoding", "value": "\#(coding)"}],
                          "content": {"size": \#(plain.utf8.count), "mimeType": "application/json", \#(content)}}}
            """#
        }
        // Some tools keep the bytes as received (base64); browsers write the decoded text, as HAR
        // 1.2 says, and keep the header.
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
              \(entry("/wire", coding: "gzip", content: #""text": "\#(compressed)", "encoding": "base64""#)),
              \(entry("/browser", coding: "br", content: #""text": \#(String(reflecting: plain))"#))]}}
            """
        try home.ok(["response", "import", "-"], stdin: har)
        for id in ["1", "2"] {
            let shown = try home.ok(["print-response", id, "--to", "stdout"])
            try watch.keep(shown, as: "print-response-\(id)")
            #expect(try Self.json(shown.out) as? [String: String] == ["access_token": "[redacted]", "user": "usr_1"])
            let revealed = try home.ok(["print-response", id, "--reveal", "--to", "stdout"]).out
            #expect(try Self.json(revealed)["access_token"] as? String == Self.serverSecret, "\(revealed)")
        }
        let exported = try home.ok(["export", "har", "--to", "stdout"])
        try watch.keep(exported, as: "export-har")
        _ = try Self.harResponse(exported, watch: watch, entries: 2)
        try watch.expectClean(of: Self.secrets, home: home)
    }

    @Test func aBodyThatDecodesPastTheLimitIsNotShown() throws {
        let home = try UserDebugHome()
        let watch = try LeakWatch()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        // 300 MiB of "0" after a secret, gzip-compressed to about 300 KB: past the 256 MiB limit.
        let script = """
            import base64, json, sys, zlib
            gz = zlib.compressobj(6, zlib.DEFLATED, 31)
            parts = [gz.compress(b'{"access_token":"\(Self.serverSecret)","pad":"')]
            chunk = b"0" * (1 << 20)
            parts += [gz.compress(chunk) for _ in range(300)]
            parts.append(gz.compress(b'"}') + gz.flush())
            body = base64.b64encode(b"".join(parts)).decode()
            json.dump({"request": {"method": "GET", "url": "https://api.example.com/big"},
                       "response": {"status": 200, "headers": {"Content-Type": "application/json",
                                    "Content-Encoding": "gzip"}, "body": {"base64": body}}}, sys.stdout)
            """
        let document = try runTool("/usr/bin/python3", ["-c", script])
        #expect(document.status == 0, "\(document)")
        try home.ok(["response", "record", "-"], stdin: document.out)
        for arguments in [["print-response"], ["export", "har"]] {
            let result = try home.run(arguments + ["--to", "stdout"])
            #expect(result.status == 0, "\(result)")
            #expect(result.out.contains(" bytes, gzip-encoded (larger than 256 MiB decoded), shown with --reveal]"))
            try watch.keep(result, as: arguments.joined(separator: "-"))
        }
        try watch.expectClean(of: Self.secrets, home: home)
    }

    @Test func theBackendSectionsCompressedAnswerIsDecodedAndRedacted() throws {
        let home = try UserDebugHome()
        let watch = try LeakWatch()
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        for name in ["gzip", "br"] {
            try home.file("config/config.json", #"{"backend": {"path": "/encoded/\#(name)", "timeoutSeconds": 10}}"#)
            let result = try home.run(["run", "backend.body", "--to", "stdout"])
            #expect(result.status == 0, "\(result)")
            try watch.keep(result, as: "backend-\(name)")
            #expect(try Self.json(result.out) as? [String: String] == Self.redactedAnswer, "\(result)")
        }
        try watch.expectClean(of: Self.secrets, home: home)
    }
}
