/// Why a streamed HAR import stopped, other than a JSON error (`JSONParseError`), a HAR error
/// (`DocumentError`), a read error (`SystemError`) or the caller's own error.
package enum HARStreamError: Error, Sendable, Equatable {
    /// The input has more bytes than the limit; reading stopped at the first chunk past it.
    case tooLarge
}

/// Reads a HAR file in chunks and hands over `log.entries` one element at a time, so that a
/// large file is never whole in memory: peak memory is about twice the largest entry, whatever
/// the number of entries.
///
/// A structural scanner (strings, escapes, nesting) finds `{"log": {"entries": [` and cuts the
/// array into elements; each element is parsed by `JSONParser` and converted by
/// `HARImport.entry(_:index:)`. Everything outside the elements (the skeleton: `version`,
/// `creator`, `pages`, …) is kept and parsed at the end, so the file is checked as strictly as
/// a whole-document parse, and every syntax error names the same line and column in the file:
/// the text before the first element is checked before that element is read, and an element's
/// positions are offset by where it starts. A file whose entries cannot be found that way
/// (a key spelled with escapes, not HAR at all) is read whole, as before.
package enum HARStream {
    /// Reads the HAR document on `fd` (a file or a pipe, from its current offset) and calls
    /// `handle` with each entry's index and what it gives, in file order; returns the number of
    /// entries. Stops at the first error, which is thrown: `JSONParseError` (line and column in
    /// the file), `DocumentError`, `SystemError`, `HARStreamError.tooLarge`, or `handle`'s own.
    package static func read(
        _ fd: FileDescriptor, limit: Int, _ handle: (_ index: Int, _ entry: HARImport.Entry) throws -> Void
    ) throws -> Int {
        var scanner = HARScanner()
        var failure: (any Error)?
        var total = 0
        _ = try fd.readChunks { chunk in
            total += chunk.count
            guard total <= limit else {
                failure = HARStreamError.tooLarge
                return false
            }
            do {
                try scanner.feed(chunk, handle)
            } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        return try scanner.finish(handle)
    }
}

/// A byte's place in the file: 0-based offset, 1-based line and byte column.
private struct FilePosition {
    var offset = 0
    var line = 1
    var lineStart = 0

    var column: Int { offset - lineStart + 1 }

    mutating func advance(over byte: UInt8) {
        offset += 1
        if byte == 0x0A {
            line += 1
            lineStart = offset
        }
    }

    /// An error at this position.
    func error(_ reason: String) -> JSONParseError {
        JSONParseError(line: line, column: column, offset: offset, reason: reason)
    }

    /// `error`, found in a text that starts here, with its position in the file.
    func locate(_ error: JSONParseError) -> JSONParseError {
        var moved = error
        moved.offset = offset + error.offset
        moved.line = line + error.line - 1
        if error.line == 1 { moved.column = column + error.column - 1 }
        return moved
    }
}

/// The state machine behind `HARStream`, fed one chunk at a time.
private struct HARScanner {
    enum Mode {
        /// Outside `log.entries` (before it, after it, or in a file where it was not found).
        case outside
        /// Inside `log.entries` between elements: after `[`, after `,`, or after an element.
        case entriesStart, afterComma, afterElement
        /// Inside an element that is an object or array, a string, or a number or literal.
        case container, string, scalar
    }

    var mode = Mode.outside
    /// Where the next byte is.
    var position = FilePosition()
    /// The file without the entries' elements; `suffixStart` is the index of the `]` closing
    /// `log.entries`, at `suffixPosition` in the file.
    var skeleton: [UInt8] = []
    var suffixStart: Int?
    var suffixPosition = FilePosition()
    var entryCount = 0

    // The skeleton's structure, as far as finding `log.entries` needs it.
    var depth = 0
    var inString = false
    var escaped = false
    var seenRoot = false
    var rootIsObject = false
    var inLog = false
    var entriesFound = false
    /// The last string closed (nil when longer than any key looked for), and the current keys at
    /// depth 1 (the root's members) and 2 (the log's members).
    var stringBytes: [UInt8] = []
    var lastString: [UInt8]?
    var rootKey: [UInt8]?
    var logKey: [UInt8]?

    // The element being cut: its start, nesting and bytes (in pieces of at most `pieceBytes`,
    // joined once at its end, so that its growth never holds twice its size).
    var elementStart = FilePosition()
    /// The last element parsed, converted once the `,` or `]` after it is seen: a syntax error
    /// right after an entry is reported before what is wrong inside it, as a whole parse does.
    var pending: JSONValue?
    var elementDepth = 0
    var pieces: [[UInt8]] = []
    var piece: [UInt8] = []
    static let pieceBytes = 1 << 20

    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ handle: (Int, HARImport.Entry) throws -> Void) throws {
        var index = 0
        while index < chunk.count {
            switch mode {
            case .container, .string:
                let end = scanElement(chunk, from: index)
                append(UnsafeRawBufferPointer(rebasing: chunk[index..<end]))
                index = end
                if mode == .afterElement { pending = try parseElement() }
            case .scalar where HARScanner.isScalarByte(chunk[index]):
                append(UnsafeRawBufferPointer(rebasing: chunk[index..<index + 1]))
                position.advance(over: chunk[index])
                index += 1
            case .scalar:
                mode = .afterElement
                pending = try parseElement()
            case .outside:
                try scanSkeleton(chunk[index])
                position.advance(over: chunk[index])
                index += 1
            case .entriesStart, .afterComma, .afterElement:
                if try scanBetween(chunk[index], handle) {
                    position.advance(over: chunk[index])
                    index += 1
                }
            }
        }
    }

    /// Checks what the input ended in, parses the skeleton, and hands over the entries that
    /// were not cut out of it; returns the number of entries.
    mutating func finish(_ handle: (Int, HARImport.Entry) throws -> Void) throws -> Int {
        switch mode {
        case .container, .string, .scalar:
            // Truncated in an element: its parse says where (as a whole-file parse would).
            _ = try parseElement()
            throw position.error("unexpected end of input inside an array")
        case .entriesStart, .afterComma:
            throw position.error("unexpected end of input; expected a value")
        case .afterElement:
            throw position.error("unexpected end of input inside an array")
        case .outside:
            break
        }
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONParser().parse(skeleton)
        } catch {
            // Past the entries, the skeleton lacks their bytes: count from where `]` is in the file.
            guard let suffixStart, error.offset >= suffixStart else { throw error }
            var place = suffixPosition
            for byte in skeleton[suffixStart..<error.offset] { place.advance(over: byte) }
            throw place.error(error.reason)
        }
        skeleton = []
        for element in try HARImport.entries(of: value) {
            try handle(entryCount, try HARImport.entry(element, index: entryCount))
            entryCount += 1
        }
        return entryCount
    }
}

extension HARScanner {
    /// Elements sit at depth 3 (`{"log": {"entries": [`), so their own parse allows 3 levels
    /// less than a whole-file parse would.
    static let elementMaxDepth = JSONParser().maxDepth - 3
    /// The end of `JSONParser`'s message for bytes left after a whole value.
    static let afterTheValue = " after the JSON value"

    /// Bytes that continue a number or literal (`-1.5e+3`, `true`); anything else ends it.
    static func isScalarByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// A byte as `JSONParser` names it in its messages.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    /// One byte outside the entries' elements: kept in the skeleton and followed until
    /// `log.entries` opens, whose text so far is then checked.
    mutating func scanSkeleton(_ byte: UInt8) throws(JSONParseError) {
        skeleton.append(byte)
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                lastString = stringBytes.count <= 8 ? stringBytes : nil
                return
            }
            if stringBytes.count <= 8 { stringBytes.append(byte) }
            return
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
            stringBytes = []
        case UInt8(ascii: ":"):
            if depth == 1 { rootKey = lastString } else if depth == 2 { logKey = lastString }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if depth == 0 {
                rootIsObject = !seenRoot && byte == UInt8(ascii: "{")
                seenRoot = true
            } else if depth == 1 {
                inLog = rootIsObject && byte == UInt8(ascii: "{") && rootKey == Array("log".utf8)
                logKey = nil
            } else if depth == 2, inLog, !entriesFound, byte == UInt8(ascii: "["), logKey == Array("entries".utf8) {
                entriesFound = true
                try checkPrefix()
                mode = .entriesStart
            }
            depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
        default:
            break
        }
    }

    /// The text up to `log.entries`' `[` must parse as far as it goes: a whole-file parse would
    /// have stopped at an error there before reading any entry.
    func checkPrefix() throws(JSONParseError) {
        do throws(JSONParseError) {
            _ = try JSONParser().parse(skeleton)
        } catch {
            if error.offset < skeleton.count { throw error }
        }
    }

    /// One byte between elements; returns false when it starts an element (which then scans it).
    mutating func scanBetween(_ byte: UInt8, _ handle: (Int, HARImport.Entry) throws -> Void) throws -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D:
            return true
        case UInt8(ascii: "]") where mode != .afterComma:
            try handlePending(handle)
            suffixStart = skeleton.count
            suffixPosition = position
            skeleton.append(byte)
            depth -= 1
            mode = .outside
            return true
        case UInt8(ascii: ",") where mode == .afterElement:
            try handlePending(handle)
            mode = .afterComma
            return true
        default:
            if mode == .afterElement { throw position.error("unexpected \(Self.describe(byte)); expected ',' or ']'") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["): mode = .container
            case UInt8(ascii: "\""): mode = .string
            case _ where Self.isScalarByte(byte): mode = .scalar
            default: throw position.error("unexpected \(Self.describe(byte)); expected a value")
            }
            elementStart = position
            elementDepth = 0
            return false
        }
    }

    /// Follows the element from `start`; returns the end of its bytes in `chunk`, and sets the
    /// mode to `.afterElement` when the element ended there.
    mutating func scanElement(_ chunk: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        while index < chunk.count {
            let byte = chunk[index]
            position.advance(over: byte)
            index += 1
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if elementDepth == 0 { break }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): elementDepth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): elementDepth -= 1
            default: break
            }
            if elementDepth == 0 { break }
        }
        if elementDepth == 0 && !inString && index > start { mode = .afterElement }
        return index
    }

    /// Keeps an element's bytes in pieces of `pieceBytes`, each allocated once.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes[...]
        while !rest.isEmpty {
            if piece.isEmpty && !pieces.isEmpty { piece.reserveCapacity(Self.pieceBytes) }
            let take = min(Self.pieceBytes - piece.count, rest.count)
            piece.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            if piece.count == Self.pieceBytes {
                pieces.append(piece)
                piece = []
            }
        }
    }

    /// Converts the element parsed last and hands over what it gives.
    mutating func handlePending(_ handle: (Int, HARImport.Entry) throws -> Void) throws {
        guard let entry = try Self.convert(&pending, index: entryCount) else { return }
        entryCount += 1
        try handle(entryCount - 1, entry)
    }

    /// Takes `pending` and converts it; the parsed value (holding the bodies' text) is freed on
    /// return, before the caller records the entry's own copy of them.
    static func convert(_ pending: inout JSONValue?, index: Int) throws(DocumentError) -> HARImport.Entry? {
        guard let value = pending else { return nil }
        pending = nil
        return try HARImport.entry(value, index: index)
    }

    /// Joins the pieces (freeing each once copied) and parses them; the joined bytes are freed
    /// on return, before the conversion copies the bodies out of the value.
    mutating func parseElement() throws(JSONParseError) -> JSONValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pieces.count * Self.pieceBytes + piece.count)
        for index in pieces.indices {
            bytes.append(contentsOf: pieces[index])
            pieces[index] = []
        }
        bytes.append(contentsOf: piece)
        pieces = []
        piece = []
        do throws(JSONParseError) {
            return try JSONParser(maxDepth: Self.elementMaxDepth).parse(bytes)
        } catch {
            // A scalar element runs on (`2pageref`): past its value the whole parse, in the
            // array, expects a comma or the end (found by `Scripts/fuzz.sh --long`).
            var error = error
            if error.reason.hasSuffix(Self.afterTheValue) {
                error.reason = String(error.reason.dropLast(Self.afterTheValue.count)) + "; expected ',' or ']'"
            }
            throw elementStart.locate(error)
        }
    }
}
