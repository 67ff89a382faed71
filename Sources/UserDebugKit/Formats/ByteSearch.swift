/// Literal search and replace on bytes, for bodies that need not be valid UTF-8 (the redactor
/// hiding known secrets, the Postman export turning the token into a variable).
enum ByteSearch {
    /// The first occurrence of `needle` in `haystack` at or after `start`; nil for an empty needle.
    static func firstRange(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Range<Int>? {
        guard let first = needle.first, haystack.count - start >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) {
                return index..<index + needle.count
            }
            index += 1
        }
        return nil
    }

    /// `bytes` with every non-overlapping occurrence of `needle`, left to right, replaced; the
    /// same array when there is none (callers compare to learn whether anything changed).
    static func replacing(_ needle: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard !needle.isEmpty else { return bytes }
        var out: [UInt8] = []
        var copied = 0
        while let found = firstRange(of: needle, in: bytes, from: copied) {
            if copied == 0 { out.reserveCapacity(bytes.count) }
            out += bytes[copied..<found.lowerBound]
            out += replacement
            copied = found.upperBound
        }
        return copied == 0 ? bytes : out + bytes[copied...]
    }

    /// The text form of `replacing(_:with:in:)`, comparing UTF-8 bytes; the same string when
    /// there is nothing to replace.
    static func replacing(_ needle: String, with replacement: String, in text: String) -> String {
        let bytes = Array(text.utf8)
        let replaced = replacing(Array(needle.utf8), with: Array(replacement.utf8), in: bytes)
        return replaced == bytes ? text : String(decoding: replaced, as: UTF8.self)
    }
}
