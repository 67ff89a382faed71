import Foundation
import Testing

/// `export curl` commands run by a real curl, in bash and in dash, against the echo server: the
/// server must receive the recorded method, headers and body byte for byte.
@Suite struct ExportCurlTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var method: String
        var path: String
        var headers: [(String, String)]
        var body: [UInt8]
        var testDescription: String { name }
    }

    static let tricky = #"it's "quoted" $HOME `id` $(id) \ \\ ! !! 'a'\''b' %s ${x:-y}"#
    static let cases: [Case] = [
        Case(
            name: "quotes, dollars, backticks, backslashes, bangs", method: "POST", path: "/echo/quotes",
            headers: [("Content-Type", "text/plain"), ("X-Tricky", tricky)], body: Array(tricky.utf8)),
        Case(
            name: "newlines, CRLF and tabs in the body, a tab in a header", method: "POST", path: "/echo/lines",
            headers: [("Content-Type", "text/plain"), ("X-Tab", "a\tb")],
            body: Array("line 1\nline 2\r\n\tindented\n\n".utf8)),
        Case(
            name: "non-ASCII text", method: "PUT", path: "/echo/unicode",
            headers: [("Content-Type", "application/json; charset=utf-8"), ("X-Name", "Zoë Ångström 🚀")],
            body: Array(#"{"name":"Zoë Ångström 🚀","bidi":"\u202e"}"#.utf8)),
        Case(
            name: "NUL bytes through a file", method: "POST", path: "/echo/binary",
            headers: [("Content-Type", "application/octet-stream")],
            body: [0, 39, 34, 36, 96, 92, 33, 0, 255, 10, 13, 9, 0]),
        Case(
            name: "a body that starts with @ and no content type", method: "POST", path: "/echo/at",
            headers: [("X-Empty", "")], body: Array("@/etc/passwd".utf8)),
        Case(
            name: "GET with glob characters in the URL", method: "GET", path: "/echo/glob?a[]=1&b={x}&c=%5B",
            headers: [("Accept", "application/json")], body: []),
        Case(name: "DELETE without a body", method: "DELETE", path: "/echo/items/7", headers: [], body: []),
    ]

    static func document(_ testCase: Case, baseURL: String) throws -> String {
        let body: Any =
            String(validating: testCase.body, as: UTF8.self).flatMap { $0.contains("\0") ? nil : $0 }
            ?? ["base64": Data(testCase.body).base64EncodedString()]
        let object: [String: Any] = [
            "request": [
                "method": testCase.method, "url": baseURL + testCase.path,
                "headers": testCase.headers.map { ["name": $0.0, "value": $0.1] } + [
                    ["name": "Authorization", "value": "Bearer \(Samples.canary)"]
                ],
                "body": body,
            ],
            "response": ["status": 200],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test(arguments: cases, ["/bin/bash", "/usr/bin/dash"])
    func theCommandReproducesTheRequestByteForByte(_ testCase: Case, shell: String) throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        try home.ok(["response", "record", "-"], stdin: try Self.document(testCase, baseURL: server.baseURL))
        let bodyFile = home.root.appendingPathComponent("body.bin").path
        let export = try home.ok(["export", "curl", "--reveal", "--to", "stdout", "--body-file", bodyFile])
        let ran = try runTool(shell, ["-c", export.out], directory: home.root)
        #expect(ran.status == 0, "\(shell) -c: \(ran)\n\(export.out)")
        let received = try #require(try server.requests().last, "the server got nothing")
        #expect(received.method == testCase.method)
        #expect(received.target == testCase.path)
        #expect(
            received.body == Data(testCase.body), "body: \(received.body as NSData) != \(Data(testCase.body) as NSData)"
        )
        for (name, value) in testCase.headers {
            #expect(
                received.hasHeader(name, Data(value.utf8)),
                "header \(name): \(received.headers.map { String(decoding: $0.value, as: UTF8.self) })")
        }
        #expect(received.hasHeader("Authorization", Data("Bearer \(Samples.canary)".utf8)))
        if !testCase.body.isEmpty, !testCase.headers.contains(where: { $0.0 == "Content-Type" }) {
            #expect(received.header("Content-Type") == nil, "curl added its own Content-Type")
        }
        #expect(try server.requests().count == 1)
    }

    /// Characters a terminal or an editor acts on or hides: U+009B (CSI to terminals that read
    /// C1), U+202E (shows what follows reversed), U+2028 (a line break to editors).
    static let invisible: [Unicode.Scalar] = ["\u{9B}", "\u{202E}", "\u{2028}"]

    /// In a header value and a text body they reach no export raw, redacted or revealed, one
    /// line or several; bash, dash and zsh run the command and send their exact bytes.
    @Test(
        arguments: [["--reveal"], ["--reveal", "--one-line"], [], ["--one-line"]],
        ["/bin/bash", "/usr/bin/dash", "/usr/bin/zsh"])
    func invisibleCharactersAreSpelledVisiblyAndStillSent(_ options: [String], shell: String) throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        let value = "a\u{9B}31mb \u{202E}gnp.exe\u{2028}c'd\u{9B}\u{202E}"
        let request = Case(
            name: "invisible", method: "POST", path: "/echo/invisible",
            headers: [("Content-Type", "text/plain"), ("X-Note", value)],
            body: Array("body \u{202E}txt.exe\u{2028}next".utf8))
        try home.ok(["response", "record", "-"], stdin: try Self.document(request, baseURL: server.baseURL))
        let export = try home.ok(["export", "curl", "--to", "stdout"] + options)
        for scalar in Self.invisible {
            #expect(
                !export.out.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) raw: \(export.out)")
        }
        let ran = try runTool(shell, ["-c", export.out], directory: home.root)
        #expect(ran.status == 0, "\(shell) -c: \(ran)\n\(export.out)")
        let received = try #require(try server.requests().last, "the server got nothing")
        #expect(
            received.hasHeader("X-Note", Data(value.utf8)),
            "X-Note: \(received.headers.map { ($0.value as NSData).description })\n\(export.out)")
        #expect(received.body == Data(request.body), "body: \(received.body as NSData)\n\(export.out)")
    }

    @Test func withoutRevealTheCommandHasNoSecretAndStillRuns() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        var login = Self.cases[0]
        login.path = "/echo/login?access_token=\(Samples.canary)&page=2"
        login.body = Array(#"{"token":"\#(Samples.canary)","note":"mine is \#(Samples.canary)"}"#.utf8)
        login.headers.append(("Cookie", "sid=\(Samples.canary); theme=dark"))
        try home.ok(["response", "record", "-"], stdin: try Self.document(login, baseURL: server.baseURL))
        let export = try home.ok(["export", "curl", "--to", "stdout", "--one-line"])
        #expect(!export.out.contains(Samples.canary))
        #expect(!export.out.dropLast().contains("\n"), "--one-line")
        #expect(export.out.contains("Bearer [redacted]"))
        let ran = try runTool("/usr/bin/dash", ["-c", export.out], directory: home.root)
        #expect(ran.status == 0, "\(ran)")
        let received = try #require(try server.requests().last)
        #expect(!String(decoding: received.body, as: UTF8.self).contains(Samples.canary))
        #expect(received.target == "/echo/login?access_token=%5Bredacted%5D&page=2")
    }

    @Test func theMethodIsWrittenOnlyWhenCurlWouldNotImplyIt() throws {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: "http://127.0.0.1:9")
        for (method, body, expected) in [
            ("GET", "", nil), ("POST", "a=1", nil), ("POST", "", "-X 'POST'"), ("PATCH", "x", "-X 'PATCH'"),
            ("HEAD", "", "--head"),
        ] {
            let document =
                #"{"request": {"method": "\#(method)", "url": "http://127.0.0.1:9/x", "body": "\#(body)"}, "response": {"status": 200}}"#
            try home.ok(["response", "record", "-"], stdin: document)
            let out = try home.ok(["export", "curl", "--to", "stdout", "--one-line"]).out
            if let expected {
                #expect(out.contains(expected), "\(method): \(out)")
            } else {
                #expect(!out.contains("-X") && !out.contains("--head"), "\(method): \(out)")
            }
        }
    }
}
