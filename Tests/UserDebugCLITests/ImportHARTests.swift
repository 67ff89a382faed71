import Foundation
import Testing

/// `response import`: lenient with what real exporters write, loud about what it skips, and all
/// or nothing: a file it refuses leaves the store exactly as it was.
@Suite struct ImportHARTests {
    /// What Chrome, Firefox, Charles and mitmproxy actually write, in one file: a BOM, nulls,
    /// empty serverIPAddress, -1 sizes, missing optional members, base64 bodies, a blocked
    /// request (status 0) and a data: URL.
    static let lenientHAR =
        "\u{FEFF}" + #"""
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [],
              "entries": [
                {"startedDateTime": "2026-11-30T10:00:00.123+01:00", "time": 12.5, "serverIPAddress": "", "connection": null,
                 "request": {"method": "GET", "url": "https://api.example.com/v1/me", "httpVersion": "http/2.0",
                             "headers": [{"name": "accept", "value": "application/json"}], "queryString": [], "cookies": [],
                             "headersSize": -1, "bodySize": -1},
                 "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0", "headers": [], "cookies": [],
                              "content": {"size": -1, "mimeType": "application/json", "text": "{\"id\":\"usr_42\"}"},
                              "redirectURL": null, "headersSize": -1, "bodySize": -1, "_transferSize": 120},
                 "cache": {}, "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 12, "receive": 0.5}},
                {"startedDateTime": "2026-11-30T10:00:01Z", "time": -1,
                 "request": {"method": "POST", "url": "https://api.example.com/v1/upload",
                             "postData": {"mimeType": "application/octet-stream", "text": "AAEC/w==", "encoding": "base64"}},
                 "response": {"status": 201, "content": {"mimeType": "image/png", "text": "iVBORw0KGgo=", "encoding": "base64"}}},
                {"startedDateTime": "2026-11-30T10:00:02Z", "time": 0,
                 "request": {"method": "GET", "url": "https://ads.example.com/pixel"},
                 "response": {"status": 0, "statusText": "", "content": {"size": 0, "mimeType": "x-unknown"}, "_error": "net::ERR_BLOCKED_BY_CLIENT"}},
                {"startedDateTime": "2026-11-30T10:00:03Z", "time": 0,
                 "request": {"method": "GET", "url": "data:image/png;base64,iVBORw0KGgo="},
                 "response": {"status": 200, "content": {"size": 8, "mimeType": "image/png"}}}
              ]}}
            """#

    @Test func aRealWorldHARIsImportedAndTheSkippedEntriesAreReported() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let path = try home.file("devtools.har", Self.lenientHAR)
        let result = try home.run(["response", "import", path, "--tag", "devtools"])
        #expect(result.status == 0, "\(result)")
        #expect(result.out == "1\n2\n")
        #expect(
            result.err.contains("skipped entry 2 (GET https://ads.example.com/pixel): no response (status 0"),
            "\(result.err)")
        #expect(result.err.contains("skipped entry 3 (GET data:image/png"), "\(result.err)")
        #expect(result.err.contains("imported 2 of 4 entries"), "\(result.err)")
        // Binary bodies are shown only with --reveal (redaction cannot read them; issue 12, item 1).
        let upload = try home.ok(["print-response", "2", "--json", "--reveal", "--to", "stdout"]).out
        #expect(upload.contains(#""base64": "AAEC/w==""#), "\(upload)")
        #expect(upload.contains(#""base64": "iVBORw0KGgo=""#))
        #expect(upload.contains(#""durationMs": null"#))
        let me = try home.ok(["print-response", "1", "--json", "--to", "stdout"]).out
        #expect(me.contains(#""startedAt": "2026-11-30T09:00:00.123Z""#))
        #expect(me.contains(#""devtools""#))
    }

    @Test func standardInputWorksToo() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let result = try home.run(["response", "import", "-"], stdin: Data(Self.lenientHAR.utf8))
        #expect(result.status == 0 && result.out == "1\n2\n", "\(result)")
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var input: Data
        var message: String
        var testDescription: String { name }
    }

    static let entry =
        #"{"startedDateTime": "2026-11-30T10:00:00Z", "time": 1, "request": {"method": "GET", "url": "https://x/a"}, "response": {"status": 200}}"#
    static let cases: [Case] = [
        Case(name: "malformed JSON", input: Data(#"{"log": {"entries": [\#(entry),]}}"#.utf8), message: "1:"),
        Case(name: "truncated", input: Data(String(lenientHAR.prefix(900)).utf8), message: "bad.har: 10:"),
        Case(
            name: "not UTF-8",
            input: Data(#"{"log": {"entries": [{"request": {"url": ""#.utf8) + Data([0xC3, 0x28])
                + Data(#""}}]}}"#.utf8),
            message: "UTF-8"),
        Case(
            name: "deeply nested",
            input: Data(
                (#"{"log": {"entries": [\#(entry)], "x": "# + String(repeating: "[", count: 50_000)
                    + String(repeating: "]", count: 50_000) + "}}").utf8), message: "nesting"),
        Case(name: "not HAR", input: Data(#"[\#(entry)]"#.utf8), message: "not a HAR file"),
        Case(
            name: "one bad entry among good ones",
            input: Data(
                #"{"log": {"entries": [\#(entry), {"request": {"method": "GET", "url": "https://x/b"}, "response": {"status": 999}}]}}"#
                    .utf8),
            message: "$.log.entries[1].response.status"),
        Case(
            name: "an entry without a request",
            input: Data(#"{"log": {"entries": [\#(entry), {"response": {"status": 200}}]}}"#.utf8),
            message: "entries[1]: missing \"request\""),
        Case(
            name: "nothing importable",
            input: Data(
                #"{"log": {"entries": [{"request": {"method": "GET", "url": "blob:x"}, "response": {"status": 200}}]}}"#
                    .utf8),
            message: "nothing to import"),
        Case(name: "empty", input: Data(), message: "empty"),
    ]

    @Test(arguments: cases)
    func aBadFileIsRefusedAndTheStoreIsUnchanged(_ badCase: Case) throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.notFound)
        let before = try home.storeFingerprint()
        let path = try home.file("bad.har", badCase.input)
        let result = try home.run(["response", "import", path])
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains(badCase.message), "\(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(try home.storeFingerprint() == before)
    }

    @Test func aOneGibibyteHARIsRefusedWithoutReadingIt() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let before = try home.storeFingerprint()
        let path = home.root.appendingPathComponent("huge.har").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let result = try home.run(["response", "import", path])
        #expect(result.status == 65)
        #expect(result.err.contains("256 MiB"), "\(result.err)")
        #expect(try home.storeFingerprint() == before)
    }
}
