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
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// The UTF-8 bytes of the JSON text of `value`.
    public func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out, level: 0)
        return out
    }

    // Written as UTF-8 bytes rather than by appending to a String: a hostile string can hold
    // millions of characters to escape, and each String append costs far more than a byte's.
    private func write(_ value: JSONValue, into out: inout [UInt8], level: Int) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .number(let literal): out += literal.utf8
        case .string(let text): JSONWriter.appendQuoted(text, to: &out)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]".utf8
                return
            }
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, level: level + 1)
                write(element, into: &out, level: level + 1)
            }
            newline(&out, level: level)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.members.isEmpty {
                out += "{}".utf8
                return
            }
            let members: [JSONObject.Member]
            switch keyOrder {
            case .given: members = object.members
            case .sorted: members = object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            }
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, level: level + 1)
                JSONWriter.appendQuoted(member.key, to: &out)
                out += (indent == nil ? ":" : ": ").utf8
                write(member.value, into: &out, level: level + 1)
            }
            newline(&out, level: level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// Appends `text` as a JSON string literal. Escapes C0 controls, DEL, C1 controls and the
    /// Unicode line/paragraph separators and BiDi controls, so the literal cannot drive a terminal.
    public static func appendQuoted(_ text: String, to out: inout String) {
        var bytes: [UInt8] = []
        appendQuoted(text, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// The byte form of `appendQuoted(_:to:)`, which the writer itself uses.
    static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += #"\""#.utf8
            case "\\": out += #"\\"#.utf8
            case "\n": out += #"\n"#.utf8
            case "\r": out += #"\r"#.utf8
            case "\t": out += #"\t"#.utf8
            case "\u{08}": out += #"\b"#.utf8
            case "\u{0C}": out += #"\f"#.utf8
            default:
                if TerminalSafety.isUnsafe(scalar) {
                    appendUnicodeEscape(scalar.value, to: &out)
                } else if scalar.isASCII {
                    out.append(UInt8(truncatingIfNeeded: scalar.value))
                } else {
                    out.append(contentsOf: scalar.utf8)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendUnicodeEscape(_ value: UInt32, to out: inout [UInt8]) {
        out += #"\u"#.utf8
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(hexDigits[Int((value >> UInt32(shift)) & 0xF)])
        }
    }
}
