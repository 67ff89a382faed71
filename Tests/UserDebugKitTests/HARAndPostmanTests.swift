import FoundationEssentials
import Testing

@testable import UserDebugKit

/// HAR writing and reading, Postman documents, as pure functions.
@Suite struct HARAndPostmanTests {
    static let session = Session(
        name: "local", user: User(identifier: "usr_42", name: "Zoë"), token: "tok-123456789",
        baseURL: "https://api.example.com/")
    static let exchange = BackendResponse(
        request: BackendRequest(
            method: "POST", url: "https://api.example.com/v1/users/usr_42/orders?x=usr_42&y=usr_420&t=tok-123456789",
            headers: [
                HTTPHeader(name: "Authorization", value: "Bearer tok-123456789"),
                HTTPHeader(name: "X-User", value: "usr_42"),
                HTTPHeader(name: "Content-Type", value: "application/json"),
                HTTPHeader(name: "Cookie", value: "a=1; b=2"),
            ],
            body: Array(#"{"owner":"usr_42","other":"usr_420"}"#.utf8)),
        status: 201,
        headers: [HTTPHeader(name: "Set-Cookie", value: "sid=9; Path=/"), HTTPHeader(name: "Location", value: "/o/1")],
        body: [0, 1, 255], startedAt: Date(timeIntervalSince1970: 1_800_000_000.25), durationMs: 12.5, tags: ["t"])

    @Test func harEntriesHaveEveryRequiredMemberAndReadBackTheSame() throws {
        let document = HARDocument.encode([Self.exchange], creatorVersion: "9")
        let entry = try #require(document["log"]?["entries"]?.arrayValue?.first)
        for key in ["startedDateTime", "time", "request", "response", "cache", "timings"] {
            #expect(entry[key] != nil, "\(key)")
        }
        for key in [
            "method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize", "postData",
        ] {
            #expect(entry["request"]?[key] != nil, "request.\(key)")
        }
        for key in [
            "status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize",
            "bodySize",
        ] {
            #expect(entry["response"]?[key] != nil, "response.\(key)")
        }
        #expect(entry["response"]?["content"]?["encoding"] == .string("base64"))
        #expect(entry["response"]?["redirectURL"] == .string("/o/1"))
        #expect(entry["request"]?["cookies"]?.arrayValue?.count == 2)
        #expect(entry["request"]?["queryString"]?.arrayValue?.count == 3)
        let back = try ResponseDocument.decodeAll(document)
        #expect(back == [Self.exchange])
    }

    @Test func aHARImportSkipsByRuleAndRefusesWhatNoRuleCovers() throws {
        let text =
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "ws://x/"}, "response": {"status": 101}},"#
            + #"{"request": {"method": "GET", "url": "https://x/"}, "response": {"status": 0}},"#
            + #"{"request": {"method": "GET", "url": "https://x/"}, "response": {"status": 200, "content": {"size": 10, "mimeType": "a"}}}]}}"#
        let har = try HARImport(try JSONParser().parse(text))
        #expect(har.responses.count == 1 && har.entryCount == 3 && har.bodiesMissing == 1)
        #expect(har.skipped.map(\.index) == [0, 1])
        #expect(throws: DocumentError.self) {
            try HARImport(try JSONParser().parse(#"{"log": {"entries": [{"response": {"status": 200}}]}}"#))
        }
    }

    @Test func theCollectionUsesTheEnvironmentsVariables() throws {
        let collection = PostmanCollection([Self.exchange], session: Self.session, redactor: Redactor())
        let request = try #require(collection.document["item"]?.arrayValue?.first?["request"])
        #expect(
            request["url"]?["raw"]
                == .string("{{baseUrl}}/v1/users/{{userId}}/orders?x={{userId}}&y=usr_420&t={{authToken}}"))
        let headers = request["header"]?.arrayValue ?? []
        #expect(
            headers.first
                == .object(JSONObject(["key": .string("Authorization"), "value": .string("Bearer {{authToken}}")])))
        #expect(headers.filter { $0["key"] == .string("Authorization") }.count == 1)
        #expect(headers.contains { $0["key"] == .string("X-User") && $0["value"] == .string("{{userId}}") })
        #expect(
            headers.contains { $0["key"] == .string("Cookie") && $0["value"] == .string("a=[redacted]; b=[redacted]") })
        #expect(request["body"]?["raw"] == .string(#"{"owner":"{{userId}}","other":"usr_420"}"#))
        #expect(!JSONWriter().string(collection.document).contains("tok-123456789"))
    }

    @Test func aURLOutsideTheBaseURLKeepsItsOrigin() {
        let url = PostmanURL("http://other.example.com:8080/a/usr_42/?q=1#top", baseURL: "https://api.example.com")
        #expect(url.raw == "http://other.example.com:8080/a/usr_42/?q=1#top")
        #expect(url.jsonValue["port"] == .string("8080"))
        #expect(url.jsonValue["host"] == .array([.string("other"), .string("example"), .string("com")]))
        #expect(PostmanURL("https://api.example.com", baseURL: "https://api.example.com/").raw == "{{baseUrl}}")
        #expect(
            PostmanURL("https://api.example.community/x", baseURL: "https://api.example.com").raw
                == "https://api.example.community/x")
    }

    @Test func theEnvironmentTurnsOffWhatItCannotGive() {
        let hidden = PostmanEnvironment.encode(Self.session, revealToken: false, exporterVersion: "9")
        let shown = PostmanEnvironment.encode(Self.session, revealToken: true, exporterVersion: "9")
        let token = { (document: JSONValue) in
            document["values"]?.arrayValue?.first { $0["key"] == .string("authToken") }
        }
        #expect(token(hidden)?["disabled"] == .bool(true) && token(hidden)?["enabled"] == .bool(false))
        #expect(token(hidden)?["value"] == .string(Redactor.placeholder))
        #expect(token(shown)?["value"] == .string("tok-123456789") && token(shown)?["disabled"] == nil)
        #expect(hidden["id"] == shown["id"], "stable ids")
    }
}
