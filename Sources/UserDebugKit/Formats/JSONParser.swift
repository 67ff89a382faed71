/// Why a JSON text was refused, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the offending byte.
    public var line: Int
    /// 1-based column (in bytes) of the offending byte.
    public var column: Int
    /// 0-based byte offset.
    public var offset: Int
    /// What is wrong there.
    public var reason: String

    /// "line L, column C: reason".
    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes that keeps numbers' literal text and members' order,
/// rejects duplicate keys, invalid UTF-8 and nesting deeper than `maxDepth`, and reports the line
/// and column of the first problem. A leading UTF-8 byte order mark is skipped.
public struct JSONParser: Sendable {
    /// Deepest array/object nesting accepted; deeper input is refused rather than recursed into.
    public var maxDepth: Int
    /// Whether `//` and `#` line comments are skipped like whitespace (for hand-written config
    /// files; never for data). A comment runs to the end of its line, so line numbers still count.
    public var allowsComments: Bool

    /// A parser with the given depth limit; strict RFC 8259 (no comments) unless asked.
    public init(maxDepth: Int = 256, allowsComments: Bool = false) {
        self.maxDepth = maxDepth
        self.allowsComments = allowsComments
    }

    /// Parses one JSON value that must fill `bytes` (surrounding whitespace allowed).
    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try parse(bytes, recordsLocations: false).value
    }

    /// Parses like `parse(_:)` and also returns where each object member's key and value start,
    /// so a caller that validates the value later (a config loader) can still name a line and
    /// column. Recording costs a dictionary entry per member, so plain `parse` does not do it.
    public func parseWithSourceMap(_ bytes: [UInt8]) throws(JSONParseError) -> (
        value: JSONValue, sourceMap: JSONSourceMap
    ) {
        let (value, locations) = try parse(bytes, recordsLocations: true)
        return (value, JSONSourceMap(bytes: bytes, locations: locations))
    }

    private func parse(
        _ bytes: [UInt8],
        recordsLocations: Bool
    ) throws(JSONParseError) -> (value: JSONValue, locations: [String: JSONSourceMap.Location]) {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            var cursor = Cursor(bytes: buffer, maxDepth: maxDepth, allowsComments: allowsComments)
            cursor.recordsLocations = recordsLocations
            if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
                cursor.index = 3
            }
            cursor.skipWhitespace()
            if cursor.atEnd { throw cursor.error("the input is empty; expected a JSON value") }
            let value = try cursor.parseValue(depth: 0)
            cursor.skipWhitespace()
            if !cursor.atEnd { throw cursor.error("unexpected \(cursor.describeCurrent()) after the JSON value") }
            return (value, cursor.locations)
        }
    }

    /// Parses the UTF-8 of `text`.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let allowsComments: Bool
    var index = 0
    var recordsLocations = false
    var path: [String] = []
    var locations: [String: JSONSourceMap.Location] = [:]

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsComments: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.allowsComments = allowsComments
    }

    var atEnd: Bool { index >= bytes.count }

    func error(_ reason: String, at position: Int? = nil) -> JSONParseError {
        let position = min(position ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < position {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return JSONParseError(line: line, column: position - lineStart + 1, offset: position, reason: reason)
    }

    func describeCurrent() -> String {
        guard !atEnd else { return "end of input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case UInt8(ascii: "#") where allowsComments: skipToEndOfLine()
            case UInt8(ascii: "/")
            where allowsComments && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                skipToEndOfLine()
            default: return
            }
        }
    }

    /// Leaves the newline itself in place so that `error(_:)` still counts it as a line.
    mutating func skipToEndOfLine() {
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard !atEnd else { throw error("unexpected end of input; expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describeCurrent()); expected a value")
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let start = index
        let utf8 = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in utf8 {
            guard index < bytes.count, bytes[index] == expected else {
                throw error("invalid literal; expected '\(word)'", at: start)
            }
            index += 1
        }
    }

    /// Whether `members` already has `key`; from 16 members on, `seen` holds their names.
    private static func isDuplicate(_ key: String, among members: [JSONObject.Member], seen: inout Set<String>?)
        -> Bool
    {
        if members.count < 16 { return members.contains { $0.key == key } }
        if seen == nil { seen = Set(members.map(\.key)) }
        return seen?.insert(key).inserted == false
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth) levels") }
        index += 1
        var members: [JSONObject.Member] = []
        // Duplicate names: searched in the members while the object is small, in a set beyond.
        // A set for every object made the hotkey path's first hashed collection here, whose
        // type costs a scan of every protocol conformance in the binary.
        var seen: Set<String>?
        skipWhitespace()
        if !atEnd && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject(members))
        }
        while true {
            skipWhitespace()
            guard !atEnd else { throw error("unexpected end of input inside an object") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()); expected a member name in double quotes")
            }
            let keyStart = index
            let key = try parseString()
            if Self.isDuplicate(key, among: members, seen: &seen) {
                throw error("duplicate key \"\(key)\"", at: keyStart)
            }
            skipWhitespace()
            guard !atEnd, bytes[index] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()); expected ':' after a member name")
            }
            index += 1
            skipWhitespace()
            if recordsLocations {
                path.append(key)
                locations[JSONSourceMap.key(path)] = JSONSourceMap.Location(keyOffset: keyStart, valueOffset: index)
            }
            let value = try parseValue(depth: depth)
            if recordsLocations { path.removeLast() }
            members.append(JSONObject.Member(key: key, value: value))
            skipWhitespace()
            guard !atEnd else { throw error("unexpected end of input inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject(members))
            }
            throw error("unexpected \(describeCurrent()); expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth) levels") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if !atEnd && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if recordsLocations {
                path.append("[\(elements.count)]")
                locations[JSONSourceMap.key(path)] = JSONSourceMap.Location(keyOffset: nil, valueOffset: index)
            }
            elements.append(try parseValue(depth: depth))
            if recordsLocations { path.removeLast() }
            skipWhitespace()
            guard !atEnd else { throw error("unexpected end of input inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            throw error("unexpected \(describeCurrent()); expected ',' or ']'")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number: expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("invalid number: leading zero") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: expected a digit after '.'")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: expected a digit in the exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Decodes a string literal into storage allocated once: the literal's length bounds the
    /// decoded length (every escape is longer than what it stands for), so no byte is copied more
    /// than once however many escapes a hostile body holds. Growing a string piece by piece per
    /// escape (`UnicodeScalarView.append(contentsOf:)` copies the whole view) made this quadratic.
    mutating func parseString() throws(JSONParseError) -> String {
        let open = index
        var failure: JSONParseError?
        let text = String(unsafeUninitializedCapacity: literalLength(open: open)) { buffer in
            do throws(JSONParseError) {
                return try decodeString(open: open, into: buffer)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return text
    }

    /// The bytes between the quote at `open` and the closing quote (or the end of the input),
    /// skipping escaped characters without checking them; `decodeString` does that.
    func literalLength(open: Int) -> Int {
        var end = open + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            end += byte == UInt8(ascii: "\\") ? 2 : 1
        }
        return min(end, bytes.count) - open - 1
    }

    /// Checks and decodes the literal at `open` into `out` (at least `literalLength` bytes),
    /// leaving `index` after the closing quote; returns the number of bytes written. Runs without
    /// escapes are validated byte by byte and copied whole.
    mutating func decodeString(open: Int, into out: UnsafeMutableBufferPointer<UInt8>) throws(JSONParseError) -> Int {
        index = open + 1
        var written = 0
        var runStart = index
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: open) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                let run = index - runStart
                if run > 0 {
                    UnsafeMutableRawPointer(out.baseAddress! + written).copyMemory(
                        from: bytes.baseAddress! + runStart, byteCount: run)
                    written += run
                }
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return written
                }
                written += Cursor.encode(try parseEscape(), into: out, at: written)
                runStart = index
                continue
            }
            if byte < 0x20 {
                throw error("control character 0x\(String(byte, radix: 16)) inside a string; it must be escaped")
            }
            if byte < 0x80 {
                index += 1
                continue
            }
            try skipUTF8Sequence()
        }
    }

    /// Writes the UTF-8 of `scalar` at `offset`; returns its length.
    static func encode(_ scalar: Unicode.Scalar, into out: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        if scalar.isASCII {
            out[offset] = UInt8(truncatingIfNeeded: scalar.value)
            return 1
        }
        var length = 0
        for unit in scalar.utf8 {
            out[offset + length] = unit
            length += 1
        }
        return length
    }

    /// Validates one multi-byte UTF-8 sequence at `index` (no overlongs, no surrogates, ≤ U+10FFFF).
    mutating func skipUTF8Sequence() throws(JSONParseError) {
        let lead = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: throw error("invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))")
        }
        guard index + length <= bytes.count else { throw error("truncated UTF-8 sequence") }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            let (lo, hi) = offset == 1 ? (lower, upper) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= lo && byte <= hi else {
                throw error("invalid UTF-8 sequence starting with byte 0x\(String(lead, radix: 16, uppercase: true))")
            }
        }
        index += length
    }

    mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
        index += 1
        guard index < bytes.count else { throw error("unterminated escape sequence") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired high surrogate \\u\(String(first, radix: 16))") }
                index += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw error("high surrogate not followed by a low surrogate")
                }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Unicode.Scalar(value)!
            }
            if (0xDC00...0xDFFF).contains(first) {
                throw error("unpaired low surrogate \\u\(String(first, radix: 16))")
            }
            return Unicode.Scalar(first)!
        default:
            index -= 1
            throw error("invalid escape '\\\(describeCurrent())'")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
