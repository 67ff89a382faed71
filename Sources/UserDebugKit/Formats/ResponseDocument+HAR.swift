/// HAR 1.2 entries (http://www.softwareishard.com/blog/har-12-spec/) as written by Chrome,
/// Firefox, Charles, Proxyman and mitmproxy, which all bend the spec a little: optional members
/// missing, `null` where a string belongs (`redirectURL`), `-1` for unknown sizes and timings,
/// `time` as a fractional number. Only what we keep is validated; the rest is ignored. A body whose
/// entry says `Content-Encoding` may be the decoded text (as HAR 1.2 says, and browsers write) or
/// the bytes as received (as some tools write); see `ContentEncoding.headers(forBodyThatMayBeDecoded:headers:)`.
extension ResponseDocument {
    static func isHAREntry(_ node: DocumentNode) -> Bool {
        node.has("startedDateTime") || node.member("request")?.has("httpVersion") == true
            || node.member("response")?.has("content") == true
    }

    static func decodeHAREntry(_ node: DocumentNode) throws(DocumentError) -> BackendResponse {
        let (requestNode, responseNode) = try exchangeNodes(node)
        var request = BackendRequest(
            method: try method(requestNode.requiredMember("method")),
            url: try url(requestNode.requiredMember("url")),
            headers: try headers(requestNode.member("headers")),
            body: try postData(requestNode.member("postData"))
        )
        request.headers = ContentEncoding.headers(forBodyThatMayBeDecoded: request.body, headers: request.headers)
        // `_tags` is what `HARDocument` writes (custom members start with `_`); `tags` is older input.
        var tags: [String] = []
        for tag in try (node.member("_tags") ?? node.member("tags"))?.array() ?? [] { tags.append(try tag.string()) }
        var response = BackendResponse(
            request: request,
            status: try status(responseNode.requiredMember("status")),
            headers: try headers(responseNode.member("headers")),
            body: try content(responseNode.member("content")),
            startedAt: try SessionDocument.date(node.member("startedDateTime")),
            durationMs: try duration(node.member("time")),
            tags: tags
        )
        response.headers = ContentEncoding.headers(forBodyThatMayBeDecoded: response.body, headers: response.headers)
        return response
    }

    /// `postData.text`, base64-decoded when `encoding` says so; without `text`, the `params`
    /// list that some exporters give for forms, re-encoded as `application/x-www-form-urlencoded`.
    static func postData(_ node: DocumentNode?) throws(DocumentError) -> [UInt8] {
        guard let node else { return [] }
        _ = try node.object()
        if node.member("text") != nil { return try encodedText(node) }
        guard let params = node.member("params") else { return [] }
        var pairs: [String] = []
        for param in try params.array() {
            _ = try param.object()
            let name = try param.requiredMember("name").string()
            let value = try param.optionalString("value") ?? ""
            pairs.append(formEncoded(name) + "=" + formEncoded(value))
        }
        return Array(pairs.joined(separator: "&").utf8)
    }

    /// `response.content.text`, base64-decoded when `encoding` says so.
    static func content(_ node: DocumentNode?) throws(DocumentError) -> [UInt8] {
        guard let node else { return [] }
        _ = try node.object()
        return try encodedText(node)
    }

    /// `encoding` is HAR's member in `content`; `_encoding` is ours in `postData`, where the spec
    /// has none.
    private static func encodedText(_ node: DocumentNode) throws(DocumentError) -> [UInt8] {
        guard let textNode = node.member("text") else { return [] }
        var encodingName = try node.optionalString("encoding")
        if encodingName == nil { encodingName = try node.optionalString("_encoding") }
        switch encodingName {
        case nil, "":
            return Array(try textNode.string().utf8)
        case let encoding? where encoding.lowercased() == "base64":
            return try base64(textNode)
        case let encoding?:
            throw DocumentError(
                path: DocumentPath.appending("encoding", to: node.path),
                message: "unsupported encoding \(quoted(encoding)); expected \"base64\""
            )
        }
    }

    private static func formEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
