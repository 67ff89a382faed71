/// XML and HTML bodies: a tolerant scan of tags (no DTDs, no entity expansion, no recursion,
/// so a hostile document costs linear time and no stack) that reports what to replace.
extension Redactor {
    /// Whether a body is read as markup: its type says XML or HTML, or its first non-blank byte
    /// is `<`.
    static func isMarkup(_ body: [UInt8], contentType: String?) -> Bool {
        if let type = contentType?.lowercased(), type.contains("xml") || type.contains("html") { return true }
        return body.first(where: { !isSpace($0) }) == UInt8(ascii: "<")
    }

    /// The markup with the content of secret-named elements (`<password>…</password>`, prefixes
    /// ignored: `<wsse:Password>`), the values of secret-named attributes (`token="…"`), the
    /// `value`/`content` of an element whose `name` attribute is secret (`<input
    /// name="csrf_token" value="…">`, `<meta name="csrf-token" content="…">`), and in a plist the
    /// value after a secret `<key>`, replaced by the placeholder.
    func redactMarkup(_ bytes: [UInt8]) -> [UInt8] {
        var scanner = MarkupScanner(bytes: bytes, isSecret: policy.isSensitiveField)
        let spans = scanner.secretSpans()
        guard !spans.isEmpty else { return bytes }
        return KnownSecretSearch.replacing(spans, in: bytes, with: Array(Redactor.placeholder.utf8))
    }
}

/// The tag scan behind `Redactor.redactMarkup`.
private struct MarkupScanner {
    let bytes: [UInt8]
    let isSecret: (String) -> Bool
    private var index = 0
    private var spans: [Range<Int>] = []
    /// Open elements: lower-cased name, whether it is secret, where its content starts.
    private var open: [(name: String, secret: Bool, contentStart: Int)] = []
    /// How many open elements are secret; inside one, nothing else needs reporting.
    private var secretDepth = 0
    /// In a plist, a `<key>` names the element after it.
    private let isPlist: Bool
    private var keyContentStart: Int?
    private var nextIsSecret = false

    /// How far down the open elements a closing tag looks for its start tag; beyond, the close
    /// is ignored (a secret element left open is redacted to the end: safe, and linear).
    private static let closeSearchLimit = 256

    init(bytes: [UInt8], isSecret: @escaping (String) -> Bool) {
        self.bytes = bytes
        self.isSecret = isSecret
        isPlist = ByteSearch.firstRange(of: Array("<plist".utf8), in: bytes, from: 0) != nil
    }

    mutating func secretSpans() -> [Range<Int>] {
        while let lessThan = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            index = lessThan
            if skip(from: "<!--", to: "-->") || skip(from: "<![CDATA[", to: "]]>") || skip(from: "<?", to: "?>")
                || skip(from: "<!", to: ">")
            {
                continue
            }
            if has("</") {
                closeTag(at: lessThan)
            } else if index + 1 < bytes.count, Self.isNameStart(bytes[index + 1]) {
                startTag()
            } else {
                index += 1
            }
        }
        if let from = open.first(where: \.secret)?.contentStart, from < bytes.count {
            spans.append(from..<bytes.count)
        }
        return spans
    }

    private func has(_ prefix: String) -> Bool {
        bytes[index...].starts(with: prefix.utf8)
    }

    private mutating func skip(from opening: String, to closing: String) -> Bool {
        guard has(opening) else { return false }
        let end = ByteSearch.firstRange(of: Array(closing.utf8), in: bytes, from: index + opening.utf8.count)
        index = end?.upperBound ?? bytes.count
        return true
    }

    private mutating func closeTag(at start: Int) {
        index += 2
        let name = readName()
        index = bytes[index...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? bytes.count
        if isPlist, name == "key", let contentStart = keyContentStart {
            let text = bytes[contentStart..<start].drop(while: Redactor.isSpace)
            nextIsSecret = isSecret(
                String(decoding: text.reversed().drop(while: Redactor.isSpace).reversed(), as: UTF8.self))
            keyContentStart = nil
        }
        let lowest = max(0, open.count - Self.closeSearchLimit)
        guard let match = open[lowest...].lastIndex(where: { $0.name == name }) else { return }
        let wasInsideSecret = secretDepth > 0
        for element in open[match...] where element.secret { secretDepth -= 1 }
        if wasInsideSecret, secretDepth == 0, let from = open[match...].first(where: \.secret)?.contentStart,
            from < start
        {
            spans.append(from..<start)
        }
        open.removeSubrange(match...)
    }

    private mutating func startTag() {
        index += 1
        let name = readName()
        var attributes: [(name: String, value: Range<Int>)] = []
        var selfClosing = false
        while index < bytes.count {
            skipSpaces()
            guard index < bytes.count else { break }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            if has("/>") {
                selfClosing = true
                index += 2
                break
            }
            let attribute = readName()
            if attribute.isEmpty { index += 1 }
            skipSpaces()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { continue }
            index += 1
            skipSpaces()
            attributes.append((attribute, readAttributeValue()))
        }
        report(attributes)
        let secretByName = isPlist && name == "key" ? false : isSecret(Self.localName(name))
        let secret = secretByName || nextIsSecret
        nextIsSecret = false
        if isPlist, name == "key" { keyContentStart = index }
        guard !selfClosing else { return }
        open.append((name, secret, index))
        if secret { secretDepth += 1 }
    }

    private mutating func report(_ attributes: [(name: String, value: Range<Int>)]) {
        guard secretDepth == 0 else { return }
        let namedSecret = attributes.contains { attribute in
            attribute.name == "name"
                && isSecret(String(decoding: bytes[attribute.value], as: UTF8.self))
        }
        for attribute in attributes where !attribute.value.isEmpty {
            let carriesNamedValue = namedSecret && (attribute.name == "value" || attribute.name == "content")
            if carriesNamedValue || isSecret(Self.localName(attribute.name)) { spans.append(attribute.value) }
        }
    }

    /// A tag or attribute name, lower-cased (HTML is case-insensitive; XML names that differ
    /// only in case are rare enough to be treated alike).
    private mutating func readName() -> String {
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
    }

    /// The value's range without its quotes.
    private mutating func readAttributeValue() -> Range<Int> {
        guard index < bytes.count else { return index..<index }
        let quote = bytes[index]
        if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
            let start = index + 1
            let end = bytes[start...].firstIndex(of: quote) ?? bytes.count
            index = min(end + 1, bytes.count)
            return start..<end
        }
        let start = index
        while index < bytes.count, !Redactor.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
        return start..<index
    }

    private mutating func skipSpaces() {
        while index < bytes.count, Redactor.isSpace(bytes[index]) { index += 1 }
    }

    private static func localName(_ name: String) -> String {
        name.lastIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ":") || byte >= 0x80
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }
}
