/// A large body redacted while it is written, with one copy of it in memory rather than three
/// (the body, the body with its secret members replaced, that again with the known secrets
/// replaced): what `print-response --body` uses for a body it prints to standard output.
extension Redactor {
    /// What `writeRedactedBody` wrote.
    public struct WrittenBody: Sendable, Equatable {
        /// How many bytes.
        public var count: Int
        /// The last byte written (nil when none was).
        public var last: UInt8?
        /// Whether what was written is UTF-8 (a text payload, which gets a final newline).
        public var isText: Bool
        /// Whether the body was redacted in its own buffer (a JSON body without a
        /// `Content-Encoding`) rather than through `redactBody(_:headers:)` whole.
        public var inPlace: Bool
    }

    /// Writes `body`, recorded with `headers`, as `redactBody(_:headers:)` returns it — byte for
    /// byte — to `write` in pieces of at most `chunkSize` bytes.
    ///
    /// A JSON body without a `Content-Encoding` (also after a UTF-8 BOM, which stays) has its
    /// secret members replaced inside `body` itself (which is left holding that text), the
    /// search for known secrets and JWTs runs over it, and their placeholders go in as it is
    /// written: memory holds the body once, plus a few bytes per secret member. Other text
    /// without a `Content-Encoding` (forms, multipart, markup, text lines) is redacted by its
    /// format into a new array that replaces `body` (twice the body at most, for a moment), the
    /// rest as for JSON. Compressed and binary bodies go through `redactBody(_:headers:)` whole.
    public func writeRedactedBody(
        _ body: inout [UInt8], headers: [HTTPHeader], chunkSize: Int = 1 << 20,
        to write: (ArraySlice<UInt8>) throws -> Void
    ) throws -> WrittenBody {
        guard !body.isEmpty, ContentEncoding.codings(of: headers).isEmpty, BodyContent.isText(body) else {
            let shown = redactBody(body, headers: headers).body
            let written = try Redactor.write(shown, replacing: [], chunkSize: chunkSize, to: write)
            let isText = shown.withUnsafeBytes { isValidUTF8($0) }
            return WrittenBody(count: written.count, last: written.last, isText: isText, inPlace: false)
        }
        let start = body.starts(with: Redactor.byteOrderMark) ? Redactor.byteOrderMark.count : 0
        let inPlace: Bool
        if let replacements = jsonReplacements(start == 0 ? body : Array(body[start...])) {
            let shift = { (span: Range<Int>) in (span.lowerBound + start)..<(span.upperBound + start) }
            Redactor.splice(start == 0 ? replacements : replacements.map { (shift($0.0), $0.1) }, into: &body)
            inPlace = true
        } else {
            body = redactBodyFormat(body, contentType: headers.contentType)
            inPlace = false
        }
        // Text in, placeholders (ASCII) in at character boundaries: text out, for JSON; the
        // other formats are checked.
        let isText = inPlace || body.withUnsafeBytes { isValidUTF8($0) }
        let hidden = KnownSecretSearch(secrets: secretBytes).hiddenRanges(in: body)
        let written = try Redactor.write(body, replacing: hidden, chunkSize: chunkSize, to: write)
        return WrittenBody(count: written.count, last: written.last, isText: isText, inPlace: inPlace)
    }

    /// `bytes` with each of the sorted, disjoint `replacements` spliced in, in place: the kept
    /// runs between them move (those moving left first, from the front, then those moving right,
    /// from the back, so that none is overwritten before it moved), then the replacements are
    /// copied to their places. The array grows only when the replacements are longer.
    static func splice(_ replacements: [(Range<Int>, [UInt8])], into bytes: inout [UInt8]) {
        guard !replacements.isEmpty else { return }
        let oldCount = bytes.count
        let total = replacements.reduce(0) { $0 + $1.1.count - $1.0.count }
        if total > 0 { bytes.append(contentsOf: repeatElement(0, count: total)) }
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            func move(_ run: Range<Int>, by shift: Int) {
                guard shift != 0, !run.isEmpty else { return }
                (base + run.lowerBound + shift).copyMemory(from: base + run.lowerBound, byteCount: run.count)
            }
            var shift = 0
            var copied = 0
            for (span, replacement) in replacements {
                if shift < 0 { move(copied..<span.lowerBound, by: shift) }
                shift += replacement.count - span.count
                copied = span.upperBound
            }
            if shift < 0 { move(copied..<oldCount, by: shift) }
            var end = oldCount
            for (span, replacement) in replacements.reversed() {
                if shift > 0 { move(span.upperBound..<end, by: shift) }
                shift -= replacement.count - span.count
                end = span.lowerBound
            }
            for (span, replacement) in replacements {
                replacement.withUnsafeBytes { source in
                    guard let from = source.baseAddress else { return }
                    (base + span.lowerBound + shift).copyMemory(from: from, byteCount: source.count)
                }
                shift += replacement.count - span.count
            }
        }
        if total < 0 { bytes.removeLast(-total) }
    }

    /// Hands `bytes` to `write` with each of the sorted, disjoint `ranges` replaced by the
    /// placeholder, in pieces of at most `chunkSize` bytes; how many bytes went out and the last.
    static func write(
        _ bytes: [UInt8], replacing ranges: [Range<Int>], chunkSize: Int, to write: (ArraySlice<UInt8>) throws -> Void
    ) throws -> (count: Int, last: UInt8?) {
        let placeholder = Array(Redactor.placeholder.utf8)
        let size = max(1, chunkSize)
        var staged: [UInt8] = []
        staged.reserveCapacity(min(size, bytes.count + placeholder.count))
        var count = 0
        var last: UInt8?
        func put(_ piece: ArraySlice<UInt8>) throws {
            var rest = piece
            while !rest.isEmpty {
                let taken = rest.prefix(size - staged.count)
                staged += taken
                rest = rest.dropFirst(taken.count)
                if staged.count == size { try flush() }
            }
        }
        func flush() throws {
            guard !staged.isEmpty else { return }
            try write(staged[...])
            count += staged.count
            last = staged.last
            staged.removeAll(keepingCapacity: true)
        }
        var copied = 0
        for range in ranges {
            try put(bytes[copied..<range.lowerBound])
            try put(placeholder[...])
            copied = range.upperBound
        }
        try put(bytes[copied...])
        try flush()
        return (count, last)
    }
}
