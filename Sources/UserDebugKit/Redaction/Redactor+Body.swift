/// Which format a body is in, and the redaction of each: the step of `redactBody` that knows
/// formats (the known-secret search runs after it on whatever comes out).
extension Redactor {
    /// How many bodies deep (a multipart part inside a multipart body) formats are looked into.
    static let maxBodyDepth = 4

    /// The body with the secrets its format names replaced, everything else byte for byte:
    /// - JSON, also after a UTF-8 BOM (kept);
    /// - a form (`application/x-www-form-urlencoded`, or a bare `a=1&b=2` line);
    /// - multipart (by its `boundary`, or by a first line `--boundary` followed by part headers):
    ///   a part named like a secret is replaced, any other part is redacted by its own type;
    /// - XML and HTML (by type, or by a first `<`): elements and attributes named like secrets,
    ///   `value`/`content` of an element whose `name` is a secret, plist `<key>`/value pairs;
    /// - JSONP (`cb({…});`): the document inside the call;
    /// - CSV and TSV (by type): the cells of every column whose header names a secret;
    /// - any other UTF-8 text line by line: a JSON document on a line (NDJSON, JSON text
    ///   sequences, `data: {…}` of server-sent events, log lines), and `name=value`,
    ///   `name: value` pairs whose name is secret.
    ///
    /// Bytes that are not UTF-8 and none of the above are returned as they are.
    func redactBodyFormat(_ body: [UInt8], contentType: String?) -> [UInt8] {
        redactBodyFormat(body, contentType: contentType, depth: 0)
    }

    func redactBodyFormat(_ body: [UInt8], contentType: String?, depth: Int) -> [UInt8] {
        if body.starts(with: Redactor.byteOrderMark) {
            let rest = Array(body.dropFirst(Redactor.byteOrderMark.count))
            return Redactor.byteOrderMark + redactBodyFormat(rest, contentType: contentType, depth: depth)
        }
        if let json = redactJSONBytes(body) { return json }
        if Redactor.isForm(body, contentType: contentType) {
            return Array(redactQuery(String(decoding: body, as: UTF8.self)).utf8)
        }
        if depth < Redactor.maxBodyDepth, let boundary = Redactor.multipartBoundary(body, contentType: contentType),
            let parts = redactMultipart(body, boundary: boundary, depth: depth)
        {
            return parts
        }
        guard String(validating: body, as: UTF8.self) != nil else { return body }
        if let delimiter = Redactor.delimiter(contentType: contentType),
            let table = redactDelimited(body, delimiter: delimiter)
        {
            return table
        }
        if Redactor.isMarkup(body, contentType: contentType) { return redactMarkup(body) }
        if let jsonp = redactJSONP(body) { return jsonp }
        return redactTextLines(body)
    }

    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `callback( JSON );` with any prefix before the call (`/**/`, `typeof cb === … &&`): the
    /// JSON from the first `(` followed by `{` or `[` to the last `)`.
    func redactJSONP(_ body: [UInt8]) -> [UInt8]? {
        guard
            let open = body.indices.first(where: { index in
                body[index] == UInt8(ascii: "(")
                    && body[(index + 1)...].first(where: { !Redactor.isSpace($0) }).map {
                        $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[")
                    } == true
            }), let close = body.lastIndex(of: UInt8(ascii: ")")), close > open
        else { return nil }
        let inner = Array(body[(open + 1)..<close])
        guard let redacted = redactJSONBytes(inner) else { return nil }
        return Array(body[...open]) + redacted + Array(body[close...])
    }

    /// Each line on its own: a JSON document within it is redacted as JSON, the rest of it by
    /// its `name=value` / `name: value` pairs. Line ends (LF or CRLF) are kept.
    func redactTextLines(_ body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var start = 0
        while start < body.count {
            let newline = body[start...].firstIndex(of: 0x0A)
            var end = newline ?? body.count
            if end > start, body[end - 1] == 0x0D { end -= 1 }
            out += redactLine(body[start..<end])
            let next = newline.map { $0 + 1 } ?? body.count
            out += body[end..<next]
            start = next
        }
        return out
    }

    private func redactLine(_ line: ArraySlice<UInt8>) -> [UInt8] {
        if let open = line.firstIndex(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }),
            let close = line.lastIndex(where: { $0 == UInt8(ascii: "}") || $0 == UInt8(ascii: "]") }), close > open,
            let json = redactJSONBytes(Array(line[open...close]))
        {
            return redactPairs(line[..<open]) + json + redactPairs(line[(close + 1)...])
        }
        return redactPairs(line)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
