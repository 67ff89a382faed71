/// JSON redaction, both on parsed values and in place on body bytes.
extension Redactor {
    /// The value with every secret-looking member's value replaced at any depth, and known
    /// secrets (literal or encoded) and JWTs replaced inside strings. Member order and number
    /// literals are kept.
    public func redact(_ value: JSONValue) -> JSONValue {
        redact(value, secrets: KnownSecretSearch(secrets: secretBytes))
    }

    private func redact(_ value: JSONValue, secrets: KnownSecretSearch) -> JSONValue {
        switch value {
        case .null, .bool, .number:
            return value
        case .string(let text):
            let bytes = Array(text.utf8)
            let replaced = secrets.hiding(in: bytes)
            return replaced == bytes ? value : .string(String(decoding: replaced, as: UTF8.self))
        case .array(let elements):
            return .array(elements.map { redact($0, secrets: secrets) })
        case .object(let object):
            return .object(
                JSONObject(
                    object.members.map { member in
                        if policy.isSensitiveField(member.key), Redactor.canHoldSecret(member.value) {
                            return JSONObject.Member(key: member.key, value: .string(Redactor.placeholder))
                        }
                        return JSONObject.Member(key: member.key, value: redact(member.value, secrets: secrets))
                    }))
        }
    }

    static func canHoldSecret(_ value: JSONValue) -> Bool {
        switch value {
        case .null, .bool: return false
        case .string(let text): return !text.isEmpty
        case .number, .array, .object: return true
        }
    }

    /// When `bytes` are one JSON document, the same bytes with the value of every secret member
    /// replaced by `"[redacted]"`; the same array when nothing is secret; nil when the bytes are
    /// not JSON. Works on the bytes rather than on a parsed value so that formatting, escapes
    /// and number spellings survive exactly, and without recursion so that nesting depth costs
    /// no stack (a body is untrusted input). A string value that holds a JSON document itself
    /// (GraphQL `"variables": "{\"password\": …}"`) is redacted inside and written back as a
    /// string, down to `maxEmbeddedDepth` documents deep.
    func redactJSONBytes(_ bytes: [UInt8]) -> [UInt8]? {
        redactJSONBytes(bytes, embeddedDepth: 0)
    }

    /// How many JSON documents deep, each a string inside the one around it, are redacted.
    static let maxEmbeddedDepth = 4

    private func redactJSONBytes(_ bytes: [UInt8], embeddedDepth: Int) -> [UInt8]? {
        guard let replacements = jsonReplacements(bytes, embeddedDepth: embeddedDepth) else { return nil }
        guard !replacements.isEmpty else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        for (span, replacement) in replacements {
            out += bytes[copied..<span.lowerBound]
            out += replacement
            copied = span.upperBound
        }
        out += bytes[copied...]
        return out
    }

    /// What `redactJSONBytes` splices into `bytes`: each secret value's span with the quoted
    /// placeholder, each embedded document's span with its redacted literal, in order and
    /// disjoint; nil when the bytes are not one JSON document.
    func jsonReplacements(_ bytes: [UInt8], embeddedDepth: Int = 0) -> [(Range<Int>, [UInt8])]? {
        var scanner = JSONByteScanner(bytes: bytes)
        guard let spans = scanner.secretValueSpans(isSecret: policy.isSensitiveField) else { return nil }
        // One array for every span (arrays are shared until written), not one built per span.
        let quoted = Redactor.quotedPlaceholder
        var replacements: [(Range<Int>, [UInt8])] = spans.secret.map { ($0, quoted) }
        guard embeddedDepth < Redactor.maxEmbeddedDepth, !spans.embedded.isEmpty else { return replacements }
        for span in spans.embedded {
            if let redacted = redactEmbeddedJSON(Array(bytes[span]), embeddedDepth: embeddedDepth) {
                replacements.append((span, redacted))
            }
        }
        replacements.sort { $0.0.lowerBound < $1.0.lowerBound }
        return replacements
    }

    /// `"[redacted]"` with its quotes, as a JSON value.
    static let quotedPlaceholder = Array("\"\(Redactor.placeholder)\"".utf8)

    /// A JSON string literal holding a JSON document, with the document redacted, as a string
    /// literal again; nil when nothing in it changed.
    private func redactEmbeddedJSON(_ literal: [UInt8], embeddedDepth: Int) -> [UInt8]? {
        guard let text = (try? JSONParser().parse(literal))?.stringValue else { return nil }
        let inner = Array(text.utf8)
        guard let redacted = redactJSONBytes(inner, embeddedDepth: embeddedDepth + 1), redacted != inner else {
            return nil
        }
        var out = ""
        JSONWriter.appendQuoted(String(decoding: redacted, as: UTF8.self), to: &out)
        return Array(out.utf8)
    }
}

/// Walks JSON bytes with an explicit stack, reporting the byte ranges of values whose member
/// name is secret. It checks structure (brackets, commas, colons, strings) but not the finer
/// grammar of numbers: being wrong on malformed input only means redacting as if it were JSON.
private struct JSONByteScanner {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private enum State { case value, afterValue, key }
    private enum Container { case object, array }

    /// The spans of secret values, and of string values that look like a JSON document inside;
    /// nil when the bytes are not one JSON document.
    mutating func secretValueSpans(isSecret: (String) -> Bool) -> (secret: [Range<Int>], embedded: [Range<Int>])? {
        var spans: [Range<Int>] = []
        var embedded: [Range<Int>] = []
        var stack: [Container] = []
        var state = State.value
        var verdicts = KeyVerdicts()
        skipWhitespace()
        guard let first = peek, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        while true {
            switch state {
            case .value:
                guard let byte = peek else { return nil }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    state = open(byte, stack: &stack)
                } else {
                    let start = index
                    guard skipScalarOrString() else { return nil }
                    if looksLikeEmbeddedJSON(start..<index) { embedded.append(start..<index) }
                    state = .afterValue
                }
            case .afterValue:
                skipWhitespace()
                guard let top = stack.last else { return atEnd ? (spans, embedded) : nil }
                guard let byte = peek else { return nil }
                index += 1
                if byte == UInt8(ascii: ",") {
                    skipWhitespace()
                    state = top == .object ? .key : .value
                } else if (byte == UInt8(ascii: "}") && top == .object) || (byte == UInt8(ascii: "]") && top == .array)
                {
                    stack.removeLast()
                } else {
                    return nil
                }
            case .key:
                let keyStart = index
                guard peek == UInt8(ascii: "\""), skipString() else { return nil }
                let secret = verdicts.isSecret(bytes[keyStart..<index]) { decodeKey(keyStart..<index).map(isSecret) }
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { return nil }
                index += 1
                skipWhitespace()
                state = .value
                if secret, let byte = peek, canHoldSecret(byte) {
                    let start = index
                    guard skipWholeValue() else { return nil }
                    spans.append(start..<index)
                    state = .afterValue
                }
            }
        }
    }

    /// Steps into the object or array that `byte` opens; the state after it (an empty one is
    /// closed at once).
    private mutating func open(_ byte: UInt8, stack: inout [Container]) -> State {
        let isObject = byte == UInt8(ascii: "{")
        stack.append(isObject ? .object : .array)
        index += 1
        skipWhitespace()
        guard peek != UInt8(ascii: isObject ? "}" : "]") else {
            stack.removeLast()
            index += 1
            return .afterValue
        }
        return isObject ? .key : .value
    }

    private var atEnd: Bool { index >= bytes.count }

    /// A string literal whose text starts with `{` or `[` and ends with `}` or `]`.
    private func looksLikeEmbeddedJSON(_ range: Range<Int>) -> Bool {
        guard range.count >= 4, bytes[range.lowerBound] == UInt8(ascii: "\"") else { return false }
        let first = bytes[range.lowerBound + 1]
        let last = bytes[range.upperBound - 2]
        return (first == UInt8(ascii: "{") || first == UInt8(ascii: "["))
            && (last == UInt8(ascii: "}") || last == UInt8(ascii: "]"))
    }
    private var peek: UInt8? { atEnd ? nil : bytes[index] }

    private func canHoldSecret(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "n"), UInt8(ascii: "t"), UInt8(ascii: "f"): return false
        case UInt8(ascii: "\""): return index + 1 < bytes.count && bytes[index + 1] != UInt8(ascii: "\"")
        default: return true
        }
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    /// A key without escapes is its bytes; one with escapes goes through the strict parser so
    /// that `"pass\u0077ord"` is still recognised as `password`.
    private func decodeKey(_ range: Range<Int>) -> String? {
        let inner = bytes[(range.lowerBound + 1)..<(range.upperBound - 1)]
        if !inner.contains(UInt8(ascii: "\\")) { return String(decoding: inner, as: UTF8.self) }
        return (try? JSONParser().parse(Array(bytes[range])))?.stringValue
    }

    private mutating func skipString() -> Bool {
        index += 1
        while let byte = peek {
            index += byte == UInt8(ascii: "\\") ? 2 : 1
            if byte == UInt8(ascii: "\"") { return true }
            if byte < 0x20 { return false }
        }
        return false
    }

    private mutating func skipScalarOrString() -> Bool {
        if peek == UInt8(ascii: "\"") { return skipString() }
        let start = index
        while let byte = peek, isScalarByte(byte) { index += 1 }
        return index > start
    }

    private func isScalarByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// Skips one value of any kind, counting brackets rather than recursing.
    private mutating func skipWholeValue() -> Bool {
        guard let byte = peek else { return false }
        guard byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") else { return skipScalarOrString() }
        var depth = 0
        while let current = peek {
            switch current {
            case UInt8(ascii: "\""):
                guard skipString() else { return false }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 {
                    index += 1
                    return true
                }
            default:
                break
            }
            index += 1
        }
        return false
    }
}

/// The secret-or-not verdict of each distinct member name (as its raw bytes, escapes and quotes
/// included), so that an array of a million records judges its handful of names once each
/// rather than once a record (`RedactionPolicy.isSensitiveField` splits and joins words).
/// Holds at most `capacity` names: past that a name is judged each time, so a hostile body of
/// ever new names costs time, not memory.
struct KeyVerdicts {
    private var known: [[UInt8]: Bool] = [:]
    private static let capacity = 4096

    /// The verdict on `raw`, from `judge` the first time (nil, a key that cannot be decoded,
    /// counts as not secret).
    mutating func isSecret(_ raw: ArraySlice<UInt8>, _ judge: () -> Bool?) -> Bool {
        let key = Array(raw)
        if let verdict = known[key] { return verdict }
        let verdict = judge() ?? false
        if known.count < KeyVerdicts.capacity { known[key] = verdict }
        return verdict
    }
}
