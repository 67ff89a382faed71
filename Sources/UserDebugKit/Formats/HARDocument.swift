import FoundationEssentials

/// Writes recorded exchanges as a strict HAR 1.2 log (http://www.softwareishard.com/blog/har-12-spec/):
/// every member the spec requires is present with the type it requires, whatever the record lacks.
///
/// What a record does not know is written as the spec says "not known": sizes of headers `-1`,
/// timings `send` and `receive` `0` with the whole duration in `wait`. A record without a start
/// time gets the Unix epoch and one without a duration `0` (both members are required and may
/// not be -1). `httpVersion` is `HTTP/1.1`: records do not keep it.
///
/// Bodies: UTF-8 text as `text`; anything else as base64 with `"encoding": "base64"` in
/// `response.content` (a spec member) and `"_encoding": "base64"` in `request.postData` (the spec
/// has no encoding there, and custom members must start with `_`). Tags go to `_tags`. The
/// reader (`ResponseDocument.decodeAll`) reads all of that back, so export → import → export
/// gives the same bytes.
public enum HARDocument {
    /// `{"log": {"version": "1.2", "creator": …, "entries": […]}}`, entries in the order given.
    public static func encode(_ responses: [BackendResponse], creatorVersion: String) -> JSONValue {
        .object(
            JSONObject([
                "log": .object(
                    JSONObject([
                        "version": .string("1.2"),
                        "creator": .object(
                            JSONObject(["name": .string("userdebug"), "version": .string(creatorVersion)])),
                        "entries": .array(responses.map(entry)),
                    ]))
            ]))
    }

    /// The `log.entries` element `encode` writes for `response`; `_tags` is there only when the
    /// response has tags.
    public static func entry(_ response: BackendResponse) -> JSONValue {
        let time = response.durationMs.map { max($0, 0) } ?? 0
        var members: [JSONObject.Member] = [
            .init(
                key: "startedDateTime",
                value: .string(ISO8601.format(response.startedAt ?? Date(timeIntervalSince1970: 0)))),
            .init(key: "time", value: ResponseDocument.numberValue(time)),
            .init(key: "request", value: request(response.request)),
            .init(key: "response", value: self.response(response)),
            .init(key: "cache", value: .object(JSONObject())),
            .init(
                key: "timings",
                value: .object(
                    JSONObject([
                        "send": .number("0"), "wait": ResponseDocument.numberValue(time), "receive": .number("0"),
                    ]))),
        ]
        if !response.tags.isEmpty {
            members.append(.init(key: "_tags", value: .array(response.tags.map(JSONValue.string))))
        }
        return .object(JSONObject(members))
    }

    private static func request(_ request: BackendRequest) -> JSONValue {
        var members: [JSONObject.Member] = [
            .init(key: "method", value: .string(request.method)),
            .init(key: "url", value: .string(request.url)),
            .init(key: "httpVersion", value: .string("HTTP/1.1")),
            .init(key: "cookies", value: .array(cookies(request.headers, named: "cookie"))),
            .init(key: "headers", value: ResponseDocument.encodeHeaders(request.headers)),
            .init(key: "queryString", value: .array(queryString(request.url))),
            .init(key: "headersSize", value: .number("-1")),
            .init(key: "bodySize", value: .number(String(request.body.count))),
        ]
        if !request.body.isEmpty {
            var postData: [JSONObject.Member] = [
                .init(key: "mimeType", value: .string(request.headers.contentType ?? ""))
            ]
            if let text = String(validating: request.body, as: UTF8.self) {
                postData.append(.init(key: "text", value: .string(text)))
            } else {
                postData.append(.init(key: "text", value: .string(Data(request.body).base64EncodedString())))
                postData.append(.init(key: "_encoding", value: .string("base64")))
            }
            members.insert(.init(key: "postData", value: .object(JSONObject(postData))), at: 6)
        }
        return .object(JSONObject(members))
    }

    private static func response(_ response: BackendResponse) -> JSONValue {
        var content: [JSONObject.Member] = [
            .init(key: "size", value: .number(String(response.body.count))),
            .init(key: "mimeType", value: .string(response.headers.contentType ?? "")),
        ]
        // `text` is optional in HAR, but readers (haralyzer) fail without it; "" reads back as empty.
        if let text = String(validating: response.body, as: UTF8.self) {
            content.append(.init(key: "text", value: .string(text)))
        } else {
            content.append(.init(key: "text", value: .string(Data(response.body).base64EncodedString())))
            content.append(.init(key: "encoding", value: .string("base64")))
        }
        return .object(
            JSONObject([
                "status": .number(String(response.status)),
                "statusText": .string(HTTPStatus.reason(response.status)),
                "httpVersion": .string("HTTP/1.1"),
                "cookies": .array(cookies(response.headers, named: "set-cookie")),
                "headers": ResponseDocument.encodeHeaders(response.headers),
                "content": .object(JSONObject(content)),
                "redirectURL": .string(response.header("location") ?? ""),
                "headersSize": .number("-1"),
                "bodySize": .number(String(response.body.count)),
            ]))
    }

    /// `Cookie: a=1; b=2` gives two cookies; each `Set-Cookie` gives one (its attributes are not
    /// split out: the header itself stays in `headers` with all of them).
    static func cookies(_ headers: [HTTPHeader], named name: String) -> [JSONValue] {
        var result: [JSONValue] = []
        for header in headers where header.name.lowercased() == name {
            let all = header.value.split(separator: ";")
            let pairs = name == "cookie" ? all : Array(all.prefix(1))
            for pair in pairs {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                result.append(
                    .object(
                        JSONObject([
                            "name": .string(String(trimmed[..<equals])),
                            "value": .string(String(trimmed[trimmed.index(after: equals)...])),
                        ])))
            }
        }
        return result
    }

    /// The query items of `url`, percent-decoded as browsers write them.
    static func queryString(_ url: String) -> [JSONValue] {
        guard let question = url.firstIndex(of: "?") else { return [] }
        var query = url[url.index(after: question)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        guard !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let equals = pair.firstIndex(of: "=") ?? pair.endIndex
            let value = equals == pair.endIndex ? "" : PercentDecoding.decoded(pair[pair.index(after: equals)...])
            return .object(
                JSONObject([
                    "name": .string(PercentDecoding.decoded(pair[..<equals])),
                    "value": .string(value),
                ]))
        }
    }
}

/// Reason phrases for the status line and HAR's `statusText`.
public enum HTTPStatus {
    /// The RFC 9110 reason phrase of `status`, or `""` for a code without one.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 415: return "Unsupported Media Type"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
