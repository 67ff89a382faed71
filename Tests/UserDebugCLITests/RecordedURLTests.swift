import Foundation
import Testing

/// Recorded URLs and session base URLs end up in curl commands, templates and the backend
/// request: only absolute http(s) URLs are accepted (65 naming the entry, nothing recorded), the
/// backend request reads no glob pattern from the base URL, and a redirect never takes the token
/// to another place, whatever the user's ~/.curlrc says.
@Suite struct RecordedURLTests {
    static let notHTTP = [
        "-K/etc/passwd", "/v1/login", "ftp://files.example.com/x", "http://", "http:///x", "https://:443/x",
        "file:///etc/passwd", "javascript:alert(1)", "http:example.com", "{a,b}[1-2]", "http://host:port/",
    ]

    static func document(url: String) -> String {
        #"{"request": {"method": "GET", "url": "\#(url)"}, "response": {"status": 200}}"#
    }

    @Test(arguments: notHTTP)
    func recordRefusesAURLThatIsNotAbsoluteHTTP(_ url: String) throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.notFound)
        let before = try home.storeFingerprint()
        let single = try home.run(["response", "record", "-"], stdin: Data(Self.document(url: url).utf8))
        #expect(single.status == 65, "\(url): \(single)")
        #expect(single.err.contains("$.request.url"), "\(single)")
        let array = "[\(Samples.notFound), \(Self.document(url: url))]"
        let many = try home.run(["response", "record", "-"], stdin: Data(array.utf8))
        #expect(many.status == 65, "\(url): \(many)")
        #expect(many.err.contains("element [1]") && many.err.contains("$.request.url"), "\(many)")
        let har =
            #"{"startedDateTime": "2024-03-01T09:15:02Z", "request": {"method": "GET", "url": "\#(url)", "httpVersion": "HTTP/1.1"}, "response": {"status": 200}}"#
        #expect(try home.run(["response", "record", "-"], stdin: Data(har.utf8)).status == 65, "\(url) in a HAR entry")
        #expect(try home.storeFingerprint() == before)
    }

    @Test func harImportRefusesAnHTTPURLWithoutAHost() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let before = try home.storeFingerprint()
        let entry = { (url: String) in
            #"{"startedDateTime": "2024-03-01T09:15:02Z", "request": {"method": "GET", "url": "\#(url)"}, "response": {"status": 200}}"#
        }
        let har = #"{"log": {"entries": [\#(entry("https://api.example.com/ok")), \#(entry("http:///etc/passwd"))]}}"#
        let result = try home.run(["response", "import", "-"], stdin: Data(har.utf8))
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains("$.log.entries[1].request.url"), "\(result)")
        #expect(try home.storeFingerprint() == before)
    }

    @Test func captureRefusesARequestTargetThatMakesNoURL() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        let before = try home.storeFingerprint()
        let result = try home.run(["capture", "--", "curl", "-s", "--request-target", "-K/etc/passwd", server.baseURL])
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains("exchange 1"), "\(result)")
        #expect(try home.storeFingerprint() == before)
    }

    @Test(arguments: ["{a,b}[1-2]", "-K/etc/passwd", "ftp://api.example.com", "api.example.com", "http://"])
    func aSessionBaseURLMustBeAbsoluteHTTP(_ url: String) throws {
        let home = try UserDebugHome()
        let imported = try home.run(
            ["session", "import", "-"],
            stdin: Data(#"{"name": "s", "user": {"identifier": "u"}, "baseURL": "\#(url)"}"#.utf8))
        #expect(imported.status == 65, "\(url): \(imported)")
        #expect(imported.err.contains("baseURL"), "\(imported)")
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let set = try home.run(["session", "set", "--base-url=\(url)"])
        #expect(set.status == 65, "\(url): \(set)")
        #expect(try home.ok(["session", "show", "staging"]).out.contains("https://api.example.com"))
    }

    /// A server that answers /me only for the token, and counts what it got.
    static func backendHome(baseURL: String, server: EchoServer) throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.ok(
            ["session", "import", "-"],
            stdin:
                #"{"name": "s", "user": {"identifier": "u"}, "token": "\#(Samples.canary)", "baseURL": "\#(baseURL)"}"#
        )
        try home.file("config/config.json", #"{"backend": {"path": "/me", "timeoutSeconds": 5}}"#)
        return home
    }

    @Test func theBackendRequestReadsNoGlobPattern() throws {
        let scratch = try UserDebugHome()
        let server = try EchoServer(directory: scratch.root)
        defer { server.stop() }
        let home = try Self.backendHome(baseURL: server.baseURL + "/g{a,b}[1-2]", server: server)
        let result = try home.run(["menu", "--json"])
        #expect(result.status == 0, "\(result)")
        let requests = try server.requests()
        #expect(requests.count == 1, "\(requests.map(\.target))")
        #expect(requests.first?.target.contains("{") == true || requests.first?.target.contains("%7B") == true)
    }

    /// Even a ~/.curlrc that tells curl to follow redirects and resend credentials
    /// (`location-trusted`) must not send the token to the place a redirect names.
    @Test func theBackendTokenNeverFollowsARedirect() throws {
        let scratch = try UserDebugHome()
        let server = try EchoServer(directory: scratch.root)
        let elsewhere = try EchoServer(directory: scratch.root)
        defer {
            server.stop()
            elsewhere.stop()
        }
        let home = try Self.backendHome(
            baseURL: server.baseURL + "/redirect?to=" + elsewhere.baseURL + "/steal&x=", server: server)
        try home.file(".curlrc", "location-trusted\n")
        try home.file(".config/.curlrc", "location-trusted\n")
        let result = try home.run(["menu", "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(try server.requests().count == 1)
        #expect(try elsewhere.requests().isEmpty, "the redirect was followed")
        #expect(result.out.contains("HTTP 302"), "\(result)")
    }
}
