/// `multipart/*` bodies (RFC 7578 forms, `multipart/mixed`): each part judged by its name and
/// redacted by its own content type; delimiters, part headers and line ends kept byte for byte.
extension Redactor {
    /// The boundary: the `boundary` parameter of a multipart content type, or, without a content
    /// type, the first line when it is `--boundary` and the next line is a part header.
    static func multipartBoundary(_ body: [UInt8], contentType: String?) -> [UInt8]? {
        if let contentType {
            guard contentType.lowercased().hasPrefix("multipart/"),
                let value = parameter("boundary", in: Substring(contentType)), !value.isEmpty
            else { return nil }
            return Array(value.utf8)
        }
        guard body.starts(with: "--".utf8), let lineEnd = body.firstIndex(of: 0x0A) else { return nil }
        let first = body[2..<lineEnd].last == 0x0D ? body[2..<(lineEnd - 1)] : body[2..<lineEnd]
        guard (1...70).contains(first.count), first.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let next = body[(lineEnd + 1)...].prefix(8).map { $0 | 0x20 }
        return next.elementsEqual("content-".utf8) ? Array(first) : nil
    }

    /// The multipart body with secret parts replaced and the others redacted as bodies of their
    /// own type; nil when the body does not start with the first delimiter.
    func redactMultipart(_ body: [UInt8], boundary: [UInt8], depth: Int) -> [UInt8]? {
        let delimiter = Array("--".utf8) + boundary
        guard let first = ByteSearch.firstRange(of: delimiter, in: body, from: 0) else { return nil }
        var out = Array(body[..<first.upperBound])
        var position = first.upperBound
        // Each part: the rest of the delimiter line, headers, a blank line, content, a line end.
        while position < body.count, !body[position...].starts(with: "--".utf8) {
            let next = ByteSearch.firstRange(of: [0x0A] + delimiter, in: body, from: position)
            var partEnd = next?.lowerBound ?? body.count
            if next != nil, partEnd > position, body[partEnd - 1] == 0x0D { partEnd -= 1 }
            out += redactPart(body[position..<partEnd], depth: depth)
            guard let next else { return out }
            out += body[partEnd..<next.upperBound]
            position = next.upperBound
        }
        out += body[position...]
        return out
    }

    /// One part from after its delimiter to before the line end of the next one.
    private func redactPart(_ part: ArraySlice<UInt8>, depth: Int) -> [UInt8] {
        guard let headersEnd = Redactor.blankLine(in: part) else { return Array(part) }
        let headerText = String(decoding: part[part.startIndex..<headersEnd.lowerBound], as: UTF8.self)
        var name: String?
        var type: String?
        for line in headerText.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let header = line[..<colon].trimmingSpaces.lowercased()
            let value = line[line.index(after: colon)...]
            if header == "content-disposition" { name = Redactor.parameter("name", in: value) }
            if header == "content-type" { type = String(value.trimmingSpaces) }
        }
        let content = Array(part[headersEnd.upperBound...])
        var out = Array(part[..<headersEnd.upperBound])
        if let name, !content.isEmpty, policy.isSensitiveQueryParameter(name) {
            out += Redactor.placeholder.utf8
        } else {
            out += redactBodyFormat(content, contentType: type, depth: depth + 1)
        }
        return out
    }

    /// The empty line that ends a part's headers (CRLF CRLF, or LF LF).
    private static func blankLine(in part: ArraySlice<UInt8>) -> Range<Int>? {
        var index = part.startIndex
        while let newline = part[index...].firstIndex(of: 0x0A) {
            let after = newline + 1
            if after < part.endIndex, part[after] == 0x0A { return newline..<(after + 1) }
            if after + 1 < part.endIndex, part[after] == 0x0D, part[after + 1] == 0x0A {
                return newline..<(after + 2)
            }
            index = after
        }
        return nil
    }

    /// A `; key=value` or `; key="value"` parameter of a header value, the key compared
    /// case-insensitively (`name` is not `filename`).
    static func parameter(_ key: String, in value: Substring) -> String? {
        for item in value.split(separator: ";").dropFirst() {
            guard let equals = item.firstIndex(of: "=") else { continue }
            guard item[..<equals].trimmingSpaces.lowercased() == key else { continue }
            var text = item[item.index(after: equals)...].trimmingSpaces
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
            return String(text)
        }
        return nil
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let start = firstIndex { !isBlank($0) } ?? endIndex
        let end = lastIndex { !isBlank($0) }.map(index(after:)) ?? start
        return self[start..<Swift.max(start, end)]
    }
}
