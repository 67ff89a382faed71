/// Text with its escapes decoded, each decoded byte remembering the source bytes it came from
/// (`%2F` → `/` from 3 bytes), so that a secret found in the decoded text can be replaced in
/// the source. Decodes percent escapes (`%2f`, `%2F`), JSON string escapes (`\/`, `\"`, `\n`,
/// `\u0054`, surrogate pairs) and XML/HTML character references (`&#84;`, `&#x54;`, `&amp;`…)
/// in one pass; what is not a well-formed escape stays as it is. Plain loops over arrays, so a
/// chunk costs linear time.
struct EscapedText {
    /// Which escapes a pass decodes.
    struct Kinds: OptionSet {
        let rawValue: UInt8
        static let percent = Kinds(rawValue: 1)
        static let json = Kinds(rawValue: 2)
        static let xml = Kinds(rawValue: 4)
        static let all: Kinds = [.percent, .json, .xml]
    }

    /// The decoded bytes.
    private(set) var bytes: [UInt8] = []
    /// For each decoded byte, the start and end of its source bytes.
    private(set) var starts: [Int] = []
    private(set) var ends: [Int] = []

    /// The bytes that start an escape of some kind.
    static func isIntroducer(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "%") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "&")
    }

    /// `source` decoded once; positions are those of `source` (a slice keeps its indices).
    init(decoding source: ArraySlice<UInt8>, kinds: Kinds) {
        self.init(bytes: source, starts: nil, ends: nil, kinds: kinds)
    }

    /// `text` decoded once more; positions stay those of the original source.
    init(decoding text: EscapedText, kinds: Kinds) {
        self.init(bytes: text.bytes[...], starts: text.starts, ends: text.ends, kinds: kinds)
    }

    private init(bytes input: ArraySlice<UInt8>, starts inStarts: [Int]?, ends inEnds: [Int]?, kinds: Kinds) {
        bytes.reserveCapacity(input.count)
        starts.reserveCapacity(input.count)
        ends.reserveCapacity(input.count)
        let base = input.startIndex
        // Positions of the input's bytes in the original source.
        func start(_ index: Int) -> Int { inStarts?[index - base] ?? index }
        func end(_ index: Int) -> Int { inEnds?[index - base] ?? index + 1 }
        var index = input.startIndex
        while index < input.endIndex {
            let byte = input[index]
            var decoded: (scalar: Unicode.Scalar, length: Int)?
            if byte == UInt8(ascii: "%"), kinds.contains(.percent), let value = Self.percent(input, at: index) {
                append([value], from: start(index), to: end(index + 2))
                index += 3
                continue
            } else if byte == UInt8(ascii: "\\"), kinds.contains(.json) {
                decoded = Self.jsonEscape(input, at: index)
            } else if byte == UInt8(ascii: "&"), kinds.contains(.xml) {
                decoded = Self.reference(input, at: index)
            }
            if let (scalar, length) = decoded {
                append(Array(String(Character(scalar)).utf8), from: start(index), to: end(index + length - 1))
                index += length
            } else {
                bytes.append(byte)
                starts.append(start(index))
                ends.append(end(index))
                index += 1
            }
        }
    }

    private mutating func append(_ decoded: [UInt8], from start: Int, to end: Int) {
        for byte in decoded {
            bytes.append(byte)
            starts.append(start)
            ends.append(end)
        }
    }

    private static func hex(_ input: ArraySlice<UInt8>, _ index: Int) -> UInt32? {
        index < input.endIndex ? hexDigitValue(input[index]).map(UInt32.init) : nil
    }

    private static func percent(_ input: ArraySlice<UInt8>, at index: Int) -> UInt8? {
        guard let high = hex(input, index + 1), let low = hex(input, index + 2) else { return nil }
        return UInt8(high << 4 | low)
    }

    /// The escape at `index` (a backslash) and its length.
    private static func jsonEscape(_ input: ArraySlice<UInt8>, at index: Int) -> (Unicode.Scalar, Int)? {
        guard index + 1 < input.endIndex else { return nil }
        switch input[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return (Unicode.Scalar(input[index + 1]), 2)
        case UInt8(ascii: "b"): return ("\u{08}", 2)
        case UInt8(ascii: "f"): return ("\u{0C}", 2)
        case UInt8(ascii: "n"): return ("\n", 2)
        case UInt8(ascii: "r"): return ("\r", 2)
        case UInt8(ascii: "t"): return ("\t", 2)
        case UInt8(ascii: "u"): break
        default: return nil
        }
        guard let unit = code(input, at: index + 2) else { return nil }
        if (0xD800..<0xDC00).contains(unit), index + 7 < input.endIndex, input[index + 6] == UInt8(ascii: "\\"),
            input[index + 7] == UInt8(ascii: "u"), let low = code(input, at: index + 8), (0xDC00..<0xE000).contains(low)
        {
            return (Unicode.Scalar(0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00)) ?? "\u{FFFD}", 12)
        }
        return (Unicode.Scalar(unit) ?? "\u{FFFD}", 6)
    }

    private static func code(_ input: ArraySlice<UInt8>, at index: Int) -> UInt32? {
        guard let a = hex(input, index), let b = hex(input, index + 1), let c = hex(input, index + 2),
            let d = hex(input, index + 3)
        else { return nil }
        return a << 12 | b << 8 | c << 4 | d
    }

    /// The reference at `index` (an ampersand) and its length; at most `&#x10FFFF;`.
    private static func reference(_ input: ArraySlice<UInt8>, at index: Int) -> (Unicode.Scalar, Int)? {
        let limit = min(input.endIndex, index + 11)
        guard let semicolon = input[index..<limit].firstIndex(of: UInt8(ascii: ";")), semicolon > index + 1 else {
            return nil
        }
        let name = String(decoding: input[(index + 1)..<semicolon], as: UTF8.self)
        let scalar: Unicode.Scalar?
        switch name {
        case "amp": scalar = "&"
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        case let text where text.hasPrefix("#x") || text.hasPrefix("#X"):
            scalar = UInt32(text.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
        case let text where text.hasPrefix("#"):
            scalar = UInt32(text.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
        default: scalar = nil
        }
        return scalar.map { ($0, semicolon + 1 - index) }
    }
}
