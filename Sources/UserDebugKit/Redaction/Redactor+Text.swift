/// `name=value` and `name: value` pairs in free text (`text/plain`, logs, env files, malformed
/// JSON): the value of a pair whose name is secret by the field rule is replaced.
extension Redactor {
    /// Where a pair's value ends: after `:` (a header-like line) or after a name that starts the
    /// line (`password = two words`, `export API_TOKEN=…`), at the end of the line; otherwise at
    /// the first blank or delimiter (`user=zoe password=x ok`). A quoted value ends at its
    /// closing quote.
    func redactPairs(_ line: ArraySlice<UInt8>) -> [UInt8] {
        var spans: [Range<Int>] = []
        // The first non-blank, found once: many pairs on one long line cost linear time.
        let lead = line.firstIndex { !Redactor.isBlank($0) } ?? line.endIndex
        var index = line.startIndex
        while index < line.endIndex {
            let separator = line[index]
            guard separator == UInt8(ascii: "=") || separator == UInt8(ascii: ":"),
                let name = Redactor.pairName(in: line, before: index), policy.isSensitiveField(name.text)
            else {
                index += 1
                continue
            }
            let toLineEnd = separator == UInt8(ascii: ":") || Redactor.startsLine(line, lead: lead, at: name.start)
            guard let value = Redactor.pairValue(in: line, after: index, toLineEnd: toLineEnd) else {
                index += 1
                continue
            }
            spans.append(value)
            index = max(value.upperBound, index + 1)
        }
        guard !spans.isEmpty else { return Array(line) }
        var out: [UInt8] = []
        var copied = line.startIndex
        for span in spans {
            out += line[copied..<span.lowerBound]
            out += Redactor.placeholder.utf8
            copied = span.upperBound
        }
        out += line[copied...]
        return out
    }

    /// The name just before the separator at `separator` (blanks and one pair of quotes around it
    /// allowed), and where it starts, quote included.
    private static func pairName(in line: ArraySlice<UInt8>, before separator: Int) -> (text: String, start: Int)? {
        var end = separator
        while end > line.startIndex, isBlank(line[end - 1]) { end -= 1 }
        var quote: UInt8?
        if end > line.startIndex, line[end - 1] == UInt8(ascii: "\"") || line[end - 1] == UInt8(ascii: "'") {
            quote = line[end - 1]
            end -= 1
        }
        var start = end
        while start > line.startIndex, isNameByte(line[start - 1]) { start -= 1 }
        guard start < end else { return nil }
        let text = String(decoding: line[start..<end], as: UTF8.self)
        guard let quote else { return (text, start) }
        guard start > line.startIndex, line[start - 1] == quote else { return nil }
        return (text, start - 1)
    }

    /// The value's range after the separator, without its quotes; nil when it is empty.
    private static func pairValue(in line: ArraySlice<UInt8>, after separator: Int, toLineEnd: Bool) -> Range<Int>? {
        var start = separator + 1
        while start < line.endIndex, isBlank(line[start]) { start += 1 }
        guard start < line.endIndex else { return nil }
        var end = start
        let first = line[start]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            start += 1
            end = start
            while end < line.endIndex, line[end] != first {
                end += line[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            end = min(end, line.endIndex)
        } else if toLineEnd {
            end = line.endIndex
            while end > start, isBlank(line[end - 1]) { end -= 1 }
        } else {
            while end < line.endIndex, !isBlank(line[end]), !valueDelimiters.contains(line[end]) { end += 1 }
        }
        return end > start ? start..<end : nil
    }

    /// Whether only blanks, or `export`, stand before `position` on the line whose first
    /// non-blank is at `lead`.
    private static func startsLine(_ line: ArraySlice<UInt8>, lead: Int, at position: Int) -> Bool {
        if position == lead { return true }
        let export = lead + 6
        guard export < position, line[lead..<export].elementsEqual("export".utf8) else { return false }
        return line[export..<position].allSatisfy(isBlank)
    }

    private static let valueDelimiters: Set<UInt8> = Set("&;,\"'<>)".utf8)

    static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
