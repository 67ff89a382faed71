import FoundationEssentials
import Testing

@testable import UserDebugKit

/// Shaped like Chrome DevTools' "Save all as HAR": HTTP/2 pseudo-headers, `_`-prefixed private
/// fields, `-1` sizes and timings, a fractional `time`, and Set-Cookie lines joined by `\n`.
private let chromeEntry = #"""
    {
      "_initiator": {"type": "script", "stack": {"callFrames": []}},
      "_priority": "High",
      "_resourceType": "fetch",
      "cache": {},
      "connection": "443",
      "pageref": "page_1",
      "request": {
        "method": "POST",
        "url": "https://api.staging.example.com/v1/login?client=web",
        "httpVersion": "http/2.0",
        "headers": [
          {"name": ":authority", "value": "api.staging.example.com"},
          {"name": ":method", "value": "POST"},
          {"name": "accept", "value": "application/json"},
          {"name": "content-type", "value": "application/json"}
        ],
        "queryString": [{"name": "client", "value": "web"}],
        "cookies": [],
        "headersSize": -1,
        "bodySize": 44,
        "postData": {"mimeType": "application/json", "text": "{\"email\":\"zoe@example.com\",\"remember\":true}"}
      },
      "response": {
        "status": 200,
        "statusText": "",
        "httpVersion": "http/2.0",
        "headers": [
          {"name": "content-type", "value": "application/json; charset=utf-8"},
          {"name": "set-cookie", "value": "sid=abc123; Path=/; HttpOnly\nlang=en; Path=/"}
        ],
        "cookies": [],
        "content": {"size": 23, "mimeType": "application/json", "text": "{\"user\":{\"id\":\"usr_1\"}}"},
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": -1,
        "_transferSize": 412,
        "_error": null
      },
      "serverIPAddress": "203.0.113.7",
      "startedDateTime": "2024-03-01T09:15:02.123Z",
      "time": 182.41700000000003,
      "timings": {"blocked": 1.2, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 180.3, "receive": 0.8}
    }
    """#

/// Shaped like Firefox's export: a zone offset, an integer `time`, a GET without `postData`, a
/// binary body as base64, and `redirectURL: null` from a sloppier producer.
private let firefoxEntry = #"""
    {
      "pageref": "page_1",
      "startedDateTime": "2024-03-01T10:15:02.500+01:00",
      "request": {
        "bodySize": 0, "method": "GET", "url": "https://cdn.example.com/avatar/usr_1.png",
        "httpVersion": "HTTP/1.1",
        "headers": [{"name": "Host", "value": "cdn.example.com"}, {"name": "Accept", "value": "image/avif,image/webp,*/*"}],
        "cookies": [], "queryString": [], "headersSize": 312
      },
      "response": {
        "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
        "headers": [{"name": "Content-Type", "value": "image/png"}],
        "cookies": [],
        "content": {"mimeType": "image/png", "size": 8, "encoding": "base64", "text": "iVBORw0KGgo="},
        "redirectURL": null, "headersSize": 201, "bodySize": 8
      },
      "cache": {}, "timings": {"blocked": 0, "dns": 0, "connect": 0, "ssl": 0, "send": 0, "wait": 35, "receive": 0},
      "time": 35, "_securityState": "secure", "serverIPAddress": "198.51.100.4", "connection": "443"
    }
    """#

/// Shaped like Charles: a form POST given only as `params`, a status-less `content` (no text),
/// `time` quoted as a string, an empty comment.
private let charlesEntry = #"""
    {
      "startedDateTime": "2024-03-01T09:15:02.000+00:00",
      "time": "45",
      "request": {
        "method": "POST", "url": "https://auth.example.com/oauth/token", "httpVersion": "HTTP/1.1",
        "cookies": [], "headers": [{"name": "Content-Type", "value": "application/x-www-form-urlencoded"}],
        "queryString": [], "headersSize": 120, "bodySize": 52,
        "postData": {"mimeType": "application/x-www-form-urlencoded",
                     "params": [{"name": "grant_type", "value": "password"}, {"name": "username", "value": "zoë b"}, {"name": "flag"}]}
      },
      "response": {
        "status": 204, "statusText": "No Content", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
        "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": 80, "bodySize": 0
      },
      "serverIPAddress": "192.0.2.10", "cache": {}, "timings": {"send": 1, "wait": 43, "receive": 1}, "comment": ""
    }
    """#

private func decode(_ text: String) throws -> BackendResponse {
    try ResponseDocument.decode(JSONParser().parse(text))
}

@Test func aChromeEntryIsRead() throws {
    let response = try decode(chromeEntry)
    #expect(response.request.method == "POST")
    #expect(response.request.url == "https://api.staging.example.com/v1/login?client=web")
    #expect(response.request.headers.first == HTTPHeader(name: ":authority", value: "api.staging.example.com"))
    #expect(response.request.body == Array(#"{"email":"zoe@example.com","remember":true}"#.utf8))
    #expect(response.status == 200)
    #expect(
        response.headers.filter { $0.name == "set-cookie" }.map(\.value) == [
            "sid=abc123; Path=/; HttpOnly", "lang=en; Path=/",
        ])
    #expect(response.body == Array(#"{"user":{"id":"usr_1"}}"#.utf8))
    #expect(response.startedAt == ISO8601.parse("2024-03-01T09:15:02.123Z"))
    #expect(response.durationMs == 182.41700000000003)
}

@Test func aFirefoxEntryIsReadWithItsBinaryBody() throws {
    let response = try decode(firefoxEntry)
    #expect(response.request.body.isEmpty)
    #expect(response.body == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    #expect(response.startedAt == ISO8601.parse("2024-03-01T09:15:02.500Z"))
    #expect(response.durationMs == 35)
}

@Test func aCharlesEntryRebuildsAFormBodyFromItsParams() throws {
    let response = try decode(charlesEntry)
    #expect(String(decoding: response.request.body, as: UTF8.self) == "grant_type=password&username=zo%C3%AB+b&flag=")
    #expect(response.status == 204)
    #expect(response.body.isEmpty)
    #expect(response.durationMs == 45)
}

@Test func aWholeHARFileGivesEveryEntryInOrder() throws {
    let har =
        "{\"log\": {\"version\": \"1.2\", \"creator\": {\"name\": \"WebInspector\", \"version\": \"537.36\"}, \"pages\": [], \"entries\": [\(chromeEntry), \(firefoxEntry), \(charlesEntry)]}}"
    let responses = try ResponseDocument.decodeAll(JSONParser().parse(har))
    #expect(responses.map(\.request.method) == ["POST", "GET", "POST"])
}

@Test func anImportedHAREntrySurvivesOurOwnExportUnchanged() throws {
    let response = try decode(firefoxEntry)
    let text = JSONWriter().string(ResponseDocument.encode(response))
    #expect(try decode(text) == response)
}

@Test func unknownTimingsAreNotDurations() throws {
    let response = try decode(
        #"{"startedDateTime": "2024-03-01T09:15:02Z", "time": -1, "request": {"method": "GET", "url": "/"}, "response": {"status": 200}}"#
    )
    #expect(response.durationMs == nil)
}
