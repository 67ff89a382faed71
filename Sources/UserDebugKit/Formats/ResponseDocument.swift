import FoundationEssentials

/// The JSON shape of a captured exchange: read from our own shape or from a HAR 1.2 entry,
/// written in our own shape.
///
/// Our shape, which `encode` writes and `decode` reads back unchanged:
/// ```json
/// {"id": 7, "session": "staging", "startedAt": "2024-03-01T09:15:02.123Z", "durationMs": 12,
///  "tags": ["login"],
///  "request": {"method": "POST", "url": "https://…", "headers": [{"name": "Accept", "value": "*/*"}],
///              "body": "{\"user\":\"zoe\"}"},
///  "response": {"status": 200, "headers": […], "body": {"base64": "iVBORw0KGgo="}}}
/// ```
/// A body is written as a string when it is valid UTF-8 (what jq and newman can use directly),
/// as `{"base64": "…"}` otherwise, and as `""` when empty (always present, so `.response.body`
/// never needs a null check). On input, headers may also be an object (`{"Accept": "*/*"}`),
/// bodies may be absent or null, and `id`, `session`, `tags`, `startedAt`, `durationMs` are optional.
/// A header value holding line feeds (as some HAR exporters join repeated `Set-Cookie` lines)
/// is split into one header per line; any other control character in a header (CR, ^C, ESC,
/// DEL; tab is allowed in values) refuses the document, naming the header.
public enum ResponseDocument {
    /// Reads one exchange: our shape, or a HAR entry when it has `startedDateTime`,
    /// `request.httpVersion` or `response.content`.
    public static func decode(_ value: JSONValue) throws(DocumentError) -> BackendResponse {
        try decode(DocumentNode(value))
    }

    /// Reads every exchange of a document: a whole HAR file (`{"log": {"entries": […]}}`), an
    /// array of exchanges, or a single one. Errors name the entry (`$.log.entries[3].request`).
    public static func decodeAll(_ value: JSONValue) throws(DocumentError) -> [BackendResponse] {
        let root = DocumentNode(value)
        let entries: [DocumentNode]
        if let log = root.member("log") {
            entries = try log.requiredMember("entries").array()
        } else if value.arrayValue != nil {
            entries = try root.array()
        } else {
            return [try decode(root)]
        }
        var responses: [BackendResponse] = []
        for entry in entries { responses.append(try decode(entry)) }
        return responses
    }

    /// The `request` and `response` members, both required to be objects (in either format).
    static func exchangeNodes(_ node: DocumentNode) throws(DocumentError) -> (
        request: DocumentNode, response: DocumentNode
    ) {
        let requestNode = try node.requiredMember("request")
        _ = try requestNode.object()
        let responseNode = try node.requiredMember("response")
        _ = try responseNode.object()
        return (requestNode, responseNode)
    }

    static func decode(_ node: DocumentNode) throws(DocumentError) -> BackendResponse {
        _ = try node.object()
        if isHAREntry(node) { return try decodeHAREntry(node) }
        let (requestNode, responseNode) = try exchangeNodes(node)
        let request = BackendRequest(
            method: try method(requestNode.requiredMember("method")),
            url: try url(requestNode.requiredMember("url")),
            headers: try headers(requestNode.member("headers")),
            body: try body(requestNode.member("body"))
        )
        var tags: [String] = []
        for tag in try node.member("tags")?.array() ?? [] { tags.append(try tag.string()) }
        return BackendResponse(
            id: try node.member("id").map { node throws(DocumentError) in Int64(try node.integer()) },
            sessionName: try node.optionalString("session"),
            request: request,
            status: try status(responseNode.requiredMember("status")),
            headers: try headers(responseNode.member("headers")),
            body: try body(responseNode.member("body")),
            startedAt: try SessionDocument.date(node.member("startedAt")),
            durationMs: try duration(node.member("durationMs")),
            tags: tags
        )
    }

    /// Our shape, members in a fixed order; see the type's documentation.
    public static func encode(_ response: BackendResponse) -> JSONValue {
        .object(
            JSONObject([
                "id": response.id.map { .number(String($0)) } ?? .null,
                "session": response.sessionName.map(JSONValue.string) ?? .null,
                "startedAt": response.startedAt.map { .string(ISO8601.format($0)) } ?? .null,
                "durationMs": response.durationMs.map(numberValue) ?? .null,
                "tags": .array(response.tags.map(JSONValue.string)),
                "request": .object(
                    JSONObject([
                        "method": .string(response.request.method),
                        "url": .string(response.request.url),
                        "headers": encodeHeaders(response.request.headers),
                        "body": encodeBody(response.request.body),
                    ])),
                "response": .object(
                    JSONObject([
                        "status": .number(String(response.status)),
                        "headers": encodeHeaders(response.headers),
                        "body": encodeBody(response.body),
                    ])),
            ]))
    }

    static func encodeHeaders(_ headers: [HTTPHeader]) -> JSONValue {
        .array(headers.map { .object(JSONObject(["name": .string($0.name), "value": .string($0.value)])) })
    }

    /// Text when the bytes are UTF-8, `{"base64": …}` otherwise, `""` when empty.
    public static func encodeBody(_ bytes: [UInt8]) -> JSONValue {
        if let text = String(validating: bytes, as: UTF8.self) { return .string(text) }
        return .object(JSONObject(["base64": .string(Data(bytes).base64EncodedString())]))
    }

    /// An integral duration as an integer literal (`12`, not `12.0`), others in the shortest
    /// form that reads back as the same Double.
    static func numberValue(_ number: Double) -> JSONValue {
        guard number.isFinite else { return .null }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return .number(String(Int64(number))) }
        return .number(String(number))
    }

    // MARK: Fields shared with the HAR reader

    /// RFC 9110 `token` characters only: a method with a space or a control character would
    /// corrupt every curl command and HAR file written from it.
    static func method(_ node: DocumentNode) throws(DocumentError) -> String {
        let method = try node.string()
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)
        let valid =
            !method.isEmpty
            && method.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || tokenPunctuation.contains(byte)
            }
        guard valid else { throw node.error("not an HTTP method: \(quoted(method))") }
        return method
    }

    static func url(_ node: DocumentNode) throws(DocumentError) -> String {
        let url = try node.string()
        guard !url.isEmpty else { throw node.error("the URL is empty") }
        guard !url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw node.error("the URL contains a control character")
        }
        return url
    }

    static func status(_ node: DocumentNode) throws(DocumentError) -> Int {
        let status = try node.integer()
        guard (100...599).contains(status) else {
            throw node.error("expected an HTTP status from 100 to 599, got \(status)")
        }
        return status
    }

    static func duration(_ node: DocumentNode?) throws(DocumentError) -> Double? {
        guard let node else { return nil }
        let duration = try node.lenientDouble()
        // HAR uses -1 for "not known".
        return duration < 0 ? nil : duration
    }

    /// Headers as an array of `{"name", "value"}` (order and repeats kept) or as an object.
    static func headers(_ node: DocumentNode?) throws(DocumentError) -> [HTTPHeader] {
        guard let node else { return [] }
        var headers: [HTTPHeader] = []
        if let object = node.value.objectValue {
            for member in object.members {
                let valueNode = DocumentNode(member.value, path: DocumentPath.appending(member.key, to: node.path))
                try appendHeader(
                    name: member.key, at: valueNode, value: try valueNode.string(), at: valueNode, to: &headers)
            }
            return headers
        }
        guard node.value.arrayValue != nil else {
            throw node.wrongKind(expected: "an array of {\"name\", \"value\"} or an object")
        }
        for element in try node.array() {
            _ = try element.object()
            let nameNode = try element.requiredMember("name")
            let valueNode = try element.requiredMember("value")
            try appendHeader(
                name: try nameNode.string(), at: nameNode, value: try valueNode.string(), at: valueNode, to: &headers)
        }
        return headers
    }

    /// One header, or one per line of a value that holds line feeds (how HAR exporters join
    /// repeated `Set-Cookie` lines). Any other control character — a CR included, so a CR LF
    /// is refused rather than joined — is refused with the header's name (`HeaderField`).
    private static func appendHeader(
        name: String, at nameNode: DocumentNode, value: String, at valueNode: DocumentNode,
        to headers: inout [HTTPHeader]
    ) throws(DocumentError) {
        guard !name.isEmpty, !name.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw nameNode.error("not an HTTP header name: \(quoted(name))")
        }
        for line in value.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = String(String.UnicodeScalarView(line))
            if let problem = HeaderField.problem(name: name, value: text) { throw valueNode.error(problem) }
            headers.append(HTTPHeader(name: name, value: text))
        }
    }

    /// A body as UTF-8 text or `{"base64": "…"}`; absent or null is empty.
    static func body(_ node: DocumentNode?) throws(DocumentError) -> [UInt8] {
        guard let node else { return [] }
        if let text = node.value.stringValue { return Array(text.utf8) }
        guard node.value.objectValue != nil else { throw node.wrongKind(expected: "a string or {\"base64\": …}") }
        return try base64(node.requiredMember("base64"))
    }

    /// Standard base64; whitespace (as in MIME-wrapped lines) is ignored, anything else invalid
    /// is an error rather than silently dropped bytes.
    static func base64(_ node: DocumentNode) throws(DocumentError) -> [UInt8] {
        guard let bytes = Base64Decoding.decode(try node.string()) else { throw node.error("invalid base64") }
        return bytes
    }

    static func quoted(_ text: String) -> String {
        var out = ""
        JSONWriter.appendQuoted(text, to: &out)
        return out
    }
}
