/// Text made safe to print on a terminal.
///
/// Captured data is attacker-controlled: a backend response or a user's display name can hold
/// `ESC ] 52 ; c ; … BEL` (OSC 52, which makes many terminals write the clipboard), cursor
/// movements that overwrite earlier output, a C1 CSI (`U+009B`) that some terminals obey like
/// `ESC [`, or BiDi overrides that make text read differently from what it is (Trojan Source).
/// Every such character is shown as a visible escape instead; newline and tab stay as they are.
///
/// The escapes are for reading, not for reversing: a literal backslash is left alone, so the
/// text `\x1b` and an escaped ESC look alike — neither can drive the terminal.
public enum TerminalText {
    /// `text` with unsafe characters shown as escapes: ASCII controls and DEL as `\x1b`, `\x7f`;
    /// C1 controls, line/paragraph separators and BiDi controls as `\u{9b}`, `\u{202e}`.
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars { append(scalar, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes that should be UTF-8 shown as text: valid sequences as in `escape(_:)`, each byte of
    /// an invalid sequence as `\xNN` (so `0x9B` on its own, which a Latin-1 terminal reads as
    /// CSI, is `\x9b`, while the character U+009B is `\u{9b}`).
    public static func escape(bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var offset = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte < 0x80 {  // ASCII needs no decoding: the common case goes fast
                append(Unicode.Scalar(byte), to: &out)
                offset += 1
                continue
            }
            var parser = Unicode.UTF8.ForwardParser()
            var iterator = bytes[offset...].makeIterator()
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                append(Unicode.UTF8.decode(encoded), to: &out)
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<offset + length] { appendHex(byte, to: &out) }
                offset += length
            case .emptyInput:
                offset = bytes.count
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` would be changed by `escape(_:)`.
    public static func needsEscaping(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: needsEscape)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && scalar != "\t" && TerminalSafety.isUnsafe(scalar)
    }

    // Output is built as UTF-8 bytes: `String.UnicodeScalarView.append(contentsOf:)` copies the
    // whole view on each call, which made escaping a control-heavy text quadratic.
    private static func append(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        guard needsEscape(scalar) else {
            if scalar.isASCII {
                out.append(UInt8(truncatingIfNeeded: scalar.value))
            } else {
                out.append(contentsOf: scalar.utf8)
            }
            return
        }
        if scalar.value < 0x80 {
            appendHex(UInt8(scalar.value), to: &out)
        } else {
            out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".utf8)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendHex(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        out.append(UInt8(ascii: "x"))
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0xF)])
    }
}
