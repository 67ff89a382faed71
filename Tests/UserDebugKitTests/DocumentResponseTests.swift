import FoundationEssentials
import Testing

@testable import UserDebugKit

private func json(_ text: String) throws -> JSONValue {
    try JSONParser().parse(text)
}

private func responseError(_ text: String) throws -> DocumentError? {
    let value = try json(text)
    do {
        _ = try ResponseDocument.decodeAll(value)
        return nil
    } catch {
        return error
    }
}

@Test func ourShapeIsReadWithHeadersAsAnObjectOrAnArray() throws {
    let response = try ResponseDocument.decode(
        json(
            """
            {"request": {"method": "POST", "url": "https://api.example/v1/login",
                         "headers": {"Content-Type": "application/json", "Accept": "*/*"}, "body": "{\\"a\\":1}"},
             "response": {"status": 201, "headers": [{"name": "Set-Cookie", "value": "a=1"}, {"name": "Set-Cookie", "value": "b=2"}],
                          "body": {"base64": "AAEC/w=="}},
             "tags": ["login", "slow"], "startedAt": "2024-03-01T09:15:02.123Z", "durationMs": 12.5}
            """))
    #expect(response.request.method == "POST")
    #expect(
        response.request.headers == [
            HTTPHeader(name: "Content-Type", value: "application/json"), HTTPHeader(name: "Accept", value: "*/*"),
        ])
    #expect(response.request.body == Array(#"{"a":1}"#.utf8))
    #expect(response.status == 201)
    #expect(response.headers.map(\.value) == ["a=1", "b=2"])
    #expect(response.body == [0x00, 0x01, 0x02, 0xFF])
    #expect(response.tags == ["login", "slow"])
    #expect(response.startedAt == ISO8601.parse("2024-03-01T09:15:02.123Z"))
    #expect(response.durationMs == 12.5)
}

@Test func onlyMethodURLAndStatusAreRequired() throws {
    let response = try ResponseDocument.decode(
        json(#"{"request": {"method": "GET", "url": "/x"}, "response": {"status": 204}}"#))
    #expect(response == BackendResponse(request: BackendRequest(method: "GET", url: "/x"), status: 204))
}

@Test func base64MayBeWrappedOverLines() throws {
    let response = try ResponseDocument.decode(
        json(
            #"{"request": {"method": "GET", "url": "/"}, "response": {"status": 200, "body": {"base64": "aGVs\nbG8="}}}"#
        ))
    #expect(response.body == Array("hello".utf8))
}

struct BadResponse: Sendable, CustomTestStringConvertible {
    let json: String
    let path: String
    let fragment: String
    var testDescription: String { "\(path): \(fragment)" }
}

private let okRequest = #""request": {"method": "GET", "url": "https://a/"}"#
private let okResponse = #""response": {"status": 200}"#

@Test(arguments: [
    BadResponse(json: "1", path: "$", fragment: "expected an object, got a number"),
    BadResponse(json: "{\(okResponse)}", path: "$", fragment: "missing \"request\""),
    BadResponse(json: "{\(okRequest)}", path: "$", fragment: "missing \"response\""),
    BadResponse(
        json: #"{"request": {"url": "/"}, "response": {"status": 200}}"#, path: "$.request",
        fragment: "missing \"method\""),
    BadResponse(
        json: #"{"request": {"method": "GET"}, "response": {"status": 200}}"#, path: "$.request",
        fragment: "missing \"url\""),
    BadResponse(
        json: #"{"request": {"method": "GET", "url": ""}, "response": {"status": 200}}"#, path: "$.request.url",
        fragment: "empty"),
    BadResponse(
        json: #"{"request": {"method": "GET", "url": "/a\nb"}, "response": {"status": 200}}"#, path: "$.request.url",
        fragment: "control character"),
    BadResponse(
        json: #"{"request": {"method": "GE T", "url": "/"}, "response": {"status": 200}}"#, path: "$.request.method",
        fragment: "not an HTTP method: \"GE T\""),
    BadResponse(
        json: #"{"request": {"method": "", "url": "/"}, "response": {"status": 200}}"#, path: "$.request.method",
        fragment: "not an HTTP method"),
    BadResponse(
        json: #"{"request": {"method": 1, "url": "/"}, "response": {"status": 200}}"#, path: "$.request.method",
        fragment: "expected a string"),
    BadResponse(json: "{\(okRequest), \"response\": {}}", path: "$.response", fragment: "missing \"status\""),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": \"200\"}}", path: "$.response.status",
        fragment: "expected an integer, got a string"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 200.0}}", path: "$.response.status",
        fragment: "expected an integer, got 200.0"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 99}}", path: "$.response.status",
        fragment: "from 100 to 599, got 99"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 600}}", path: "$.response.status", fragment: "got 600"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 200, \"headers\": {\"X-N\": 5}}}",
        path: #"$.response.headers["X-N"]"#, fragment: "expected a string, got a number"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 200, \"headers\": [{\"name\": \"A\", \"value\": null}]}}",
        path: "$.response.headers[0]", fragment: "missing \"value\""),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 200, \"headers\": [{\"name\": \"A\", \"value\": [1]}]}}",
        path: "$.response.headers[0].value", fragment: "expected a string, got an array"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 200, \"headers\": [{\"name\": \"A B\", \"value\": \"v\"}]}}",
        path: "$.response.headers[0].name", fragment: "not an HTTP header name"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 200, \"headers\": \"A: b\"}}", path: "$.response.headers",
        fragment: "expected an array of"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 200, \"body\": {\"base64\": \"***\"}}}",
        path: "$.response.body.base64", fragment: "invalid base64"),
    BadResponse(
        json: "{\(okRequest), \"response\": {\"status\": 200, \"body\": 5}}", path: "$.response.body",
        fragment: "expected a string or {\"base64\""),
    BadResponse(
        json: "{\(okRequest), \(okResponse), \"tags\": [\"a\", 1]}", path: "$.tags[1]", fragment: "expected a string"),
    BadResponse(
        json: "{\(okRequest), \(okResponse), \"startedAt\": \"now\"}", path: "$.startedAt", fragment: "ISO 8601"),
    BadResponse(
        json: "{\(okRequest), \(okResponse), \"durationMs\": true}", path: "$.durationMs", fragment: "expected a number"
    ),
    BadResponse(
        json:
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "/"}, "response": {"status": 200}}, {"startedDateTime": "2024-03-01T09:15:02Z", "request": {"method": "GET", "url": "/"}, "response": {"status": 0}}]}}"#,
        path: "$.log.entries[1].response.status", fragment: "got 0"),
    BadResponse(
        json: #"{"log": {"entries": [{"startedDateTime": "2024-03-01T09:15:02Z", "response": {"status": 200}}]}}"#,
        path: "$.log.entries[0]", fragment: "missing \"request\""),
    BadResponse(json: #"{"log": {}}"#, path: "$.log", fragment: "missing \"entries\""),
    BadResponse(
        json:
            #"{"startedDateTime": "2024-03-01T09:15:02Z", "request": {"method": "GET", "url": "/"}, "response": {"status": 200, "content": {"text": "x", "encoding": "gzip"}}}"#,
        path: "$.response.content.encoding", fragment: "unsupported encoding \"gzip\""),
    BadResponse(
        json:
            #"{"startedDateTime": "2024-03-01T09:15:02Z", "request": {"method": "GET", "url": "/", "postData": {"text": "%%%", "encoding": "base64"}}, "response": {"status": 200}}"#,
        path: "$.request.postData.text", fragment: "invalid base64"),
])
func badResponsesAreRefusedNamingThePath(_ bad: BadResponse) throws {
    let error = try #require(try responseError(bad.json))
    #expect(error.path == bad.path, "\(error)")
    #expect(error.message.contains(bad.fragment), "\(error)")
}

@Test func encodingWritesTextBodiesAsTextAndOthersAsBase64() throws {
    let response = BackendResponse(
        id: 7, sessionName: "staging",
        request: BackendRequest(method: "GET", url: "https://a/", headers: [HTTPHeader(name: "Accept", value: "*/*")]),
        status: 200, body: [0xFF, 0x00], startedAt: ISO8601.parse("2024-03-01T09:15:02.123Z"), durationMs: 12,
        tags: ["t"]
    )
    #expect(
        JSONWriter().string(ResponseDocument.encode(response))
            == #"{"id":7,"session":"staging","startedAt":"2024-03-01T09:15:02.123Z","durationMs":12,"tags":["t"],"request":{"method":"GET","url":"https://a/","headers":[{"name":"Accept","value":"*/*"}],"body":""},"response":{"status":200,"headers":[],"body":{"base64":"/wA="}}}"#
    )
}

@Test(arguments: [[], Array("héllo\u{0}\n".utf8), [0xC3], Array(0...255).map(UInt8.init)] as [[UInt8]])
func encodeThenDecodeGivesTheSameResponse(_ body: [UInt8]) throws {
    let response = BackendResponse(
        id: 9_007_199_254_740_993, sessionName: "s",
        request: BackendRequest(
            method: "PATCH", url: "https://a/b?c=d",
            headers: [HTTPHeader(name: "X", value: "1"), HTTPHeader(name: "x", value: "2")], body: body),
        status: 418,
        headers: [HTTPHeader(name: "Set-Cookie", value: "a=1"), HTTPHeader(name: "Set-Cookie", value: "b=2")],
        body: body,
        startedAt: ISO8601.parse("1999-12-31T23:59:59.999Z"), durationMs: 0.25, tags: ["a", "b"]
    )
    let text = JSONWriter(indent: 2).string(ResponseDocument.encode(response))
    #expect(try ResponseDocument.decode(json(text)) == response)
}

@Test func anArrayOfResponsesIsReadInOrder() throws {
    let responses = try ResponseDocument.decodeAll(
        json("[{\(okRequest), \(okResponse)}, {\(okRequest), \"response\": {\"status\": 404}}]"))
    #expect(responses.map(\.status) == [200, 404])
}
