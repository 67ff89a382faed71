/// Writes `JSONValue`s as RFC 8259 text. Output is always valid JSON and always UTF-8; strings
/// escape every control character so the text is safe on a terminal too.
public struct JSONWriter: Sendable {
    /// How object members are ordered in the output.
    public enum KeyOrder: Sendable {
        /// As stored in the value.
        case given
        /// Sorted by key (byte order of the UTF-8), for stable output whatever the input order.
        case sorted
    }

    /// Whether object members come out as stored or sorted by key, at every depth.
    public var keyOrder: KeyOrder
    /// Indentation per level; nil writes everything on one line.
    public var indent: Int?

    /// A writer; compact with keys as given by default.
    public init(keyOrder: KeyOrder = .given, indent: Int? = nil) {
        self.keyOrder = keyOrder
        self.indent = indent
    }

    /// The JSON text of `value`.
    public func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, level: 0)
        return out
    }

    /// The UTF-8 bytes of the JSON text of `value`.
    public func bytes(_ value: JSONValue) -> [UInt8] {
        Array(string(value).utf8)
    }

    private func write(_ value: JSONValue, into out: inout String, level: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let literal): out += literal
        case .string(let text): JSONWriter.appendQuoted(text, to: &out)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                newline(&out, level: level + 1)
                write(element, into: &out, level: level + 1)
            }
            newline(&out, level: level)
            out += "]"
        case .object(let object):
            if object.members.isEmpty {
                out += "{}"
                return
            }
            let members: [JSONObject.Member]
            switch keyOrder {
            case .given: members = object.members
            case .sorted: members = object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            }
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                newline(&out, level: level + 1)
                JSONWriter.appendQuoted(member.key, to: &out)
                out += indent == nil ? ":" : ": "
                write(member.value, into: &out, level: level + 1)
            }
            newline(&out, level: level)
            out += "}"
        }
    }

    private func newline(_ out: inout String, level: Int) {
        guard let indent else { return }
        out += "\n"
        out += String(repeating: " ", count: indent * level)
    }

    /// Appends `text` as a JSON string literal. Escapes C0 controls, DEL, C1 controls and the
    /// Unicode line/paragraph separators and BiDi controls, so the literal cannot drive a terminal.
    public static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if TerminalSafety.isUnsafe(scalar) {
                    appendUnicodeEscape(scalar.value, to: &out)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    private static func appendUnicodeEscape(_ value: UInt32, to out: inout String) {
        let digits = Array("0123456789abcdef")
        out += "\\u"
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(digits[Int((value >> UInt32(shift)) & 0xF)])
        }
    }
}
