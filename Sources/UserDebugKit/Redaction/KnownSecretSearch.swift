/// Finds known secrets in text however it carries them, and JWT-shaped values whatever their
/// name, and replaces both with the placeholder.
///
/// A secret is looked for literally, as hexadecimal text (either case), as the 6 base64 texts that stand for it inside any longer
/// base64 or base64url text (3 byte offsets × 2 alphabets; only the characters whose 6 bits all
/// come from the secret, so padding, neighbours and offset do not matter), and all of those
/// again in the text with its escapes decoded (`EscapedText`: percent, JSON, XML references),
/// once and twice (`%252F`, a JSON-escaped token inside a percent-encoded query). A secret that
/// itself holds `%`, `\` or `&` is also looked for with each kind of escape decoded alone, so
/// that its own `%41` is not read as `A`.
///
/// Matching is Knuth–Morris–Pratt over every needle at once, linear in the text for any input;
/// decoding works on chunks of the text (overlapping by the longest a match can be), so memory
/// does not grow with the size of a body.
struct KnownSecretSearch {
    private let needles: [[UInt8]]
    private let failures: [[Int]]
    private var startsNeedle = [Bool](repeating: false, count: 256)
    private let needlesHoldIntroducers: Bool
    /// Source bytes one decoded byte may take at most, two decodings deep (`\uD83D\uDE00` is
    /// 12 bytes for 4, and again).
    private static let maxExpansion = 144
    private static let chunkSize = 1 << 16

    /// A search for `secrets` (each already long enough to be searched for).
    init(secrets: [[UInt8]]) {
        var needles: [[UInt8]] = []
        for secret in secrets where !secret.isEmpty {
            needles.append(secret)
            needles += KnownSecretSearch.base64Cores(of: secret).filter { $0.count >= Redacted.minimumSecretLength }
            needles += [
                KnownSecretSearch.hex(secret, digits: "0123456789abcdef"),
                KnownSecretSearch.hex(secret, digits: "0123456789ABCDEF"),
            ]
        }
        self.needles = needles
        failures = needles.map(KnownSecretSearch.failureTable)
        for needle in needles { startsNeedle[Int(needle[0])] = true }
        needlesHoldIntroducers = needles.contains { $0.contains(where: EscapedText.isIntroducer) }
    }

    /// `bytes` with every secret and JWT replaced by the placeholder; the same array when there
    /// is nothing to hide.
    func hiding(in bytes: [UInt8]) -> [UInt8] {
        let ranges = hiddenRanges(in: bytes)
        guard !ranges.isEmpty else { return bytes }
        return KnownSecretSearch.replacing(ranges, in: bytes, with: Array(Redacted.placeholder.utf8))
    }

    /// What `hiding(in:)` replaces with the placeholder: every secret and JWT, merged and in order.
    func hiddenRanges(in bytes: [UInt8]) -> [Range<Int>] {
        KnownSecretSearch.merged(ranges(in: bytes) + JWTShape.ranges(in: bytes))
    }

    /// The source ranges of every secret found, literal or encoded, merged and in order.
    func ranges(in bytes: [UInt8]) -> [Range<Int>] {
        guard !needles.isEmpty, !bytes.isEmpty else { return [] }
        var found = matches(in: bytes[...]).map { $0.lowerBound..<$0.upperBound }
        guard bytes.contains(where: EscapedText.isIntroducer) else { return found }
        let longest = needles.map(\.count).max() ?? 0
        let overlap = longest * KnownSecretSearch.maxExpansion
        var chunkStart = 0
        while chunkStart < bytes.count {
            let chunk = bytes[chunkStart..<min(bytes.count, chunkStart + KnownSecretSearch.chunkSize + overlap)]
            if chunk.contains(where: EscapedText.isIntroducer) { found += decodedMatches(in: chunk) }
            chunkStart += KnownSecretSearch.chunkSize
        }
        return KnownSecretSearch.merged(found)
    }

    /// Matches in one chunk's decodings, as source ranges.
    private func decodedMatches(in chunk: ArraySlice<UInt8>) -> [Range<Int>] {
        var found: [Range<Int>] = []
        func search(_ text: EscapedText) {
            found += matches(in: text.bytes[...]).map { text.starts[$0.lowerBound]..<text.ends[$0.upperBound - 1] }
        }
        let once = EscapedText(decoding: chunk, kinds: .all)
        search(once)
        if once.bytes.contains(where: EscapedText.isIntroducer) { search(EscapedText(decoding: once, kinds: .all)) }
        if needlesHoldIntroducers {
            for kinds in [EscapedText.Kinds.percent, .json, .xml] { search(EscapedText(decoding: chunk, kinds: kinds)) }
        }
        return found
    }

    /// Where the needles occur in `bytes` (ranges of its indices). A needle starts over after a
    /// match, so its matches do not overlap. Bytes that start no needle while no match is under
    /// way cost one table look-up.
    private func matches(in bytes: ArraySlice<UInt8>) -> [Range<Int>] {
        var states = [Int](repeating: 0, count: needles.count)
        var underWay = 0
        var found: [Range<Int>] = []
        for position in bytes.indices {
            let byte = bytes[position]
            if underWay == 0 && !startsNeedle[Int(byte)] { continue }
            underWay = 0
            for index in needles.indices {
                var state = states[index]
                while state > 0 && needles[index][state] != byte { state = failures[index][state - 1] }
                if needles[index][state] == byte { state += 1 }
                if state == needles[index].count {
                    found.append((position + 1 - state)..<(position + 1))
                    state = 0
                }
                if state > 0 { underWay += 1 }
                states[index] = state
            }
        }
        return found
    }

    /// `secret` as hexadecimal text (a token hex-encoded by a backend or a log), in one case.
    static func hex(_ secret: [UInt8], digits: StaticString) -> [UInt8] {
        let table = digits.withUTF8Buffer { Array($0) }
        return secret.flatMap { [table[Int($0 >> 4)], table[Int($0 & 0x0F)]] }
    }

    private static func failureTable(_ needle: [UInt8]) -> [Int] {
        var table = [Int](repeating: 0, count: needle.count)
        var length = 0
        var index = 1
        while index < needle.count {
            if needle[index] == needle[length] {
                length += 1
                table[index] = length
                index += 1
            } else if length > 0 {
                length = table[length - 1]
            } else {
                index += 1
            }
        }
        return table
    }

    /// The base64 characters that encode only bits of `secret`, for each of the 3 offsets at
    /// which it can start inside a longer encoded text, in both alphabets.
    static func base64Cores(of secret: [UInt8]) -> [[UInt8]] {
        var cores: [[UInt8]] = []
        for offset in 0..<3 {
            let encoded = Base64Text.encode([UInt8](repeating: 0, count: offset) + secret, urlSafe: false)
            let first = (offset * 8 + 5) / 6
            let end = (offset + secret.count) * 8 / 6
            guard end > first else { continue }
            let core = Array(encoded[first..<end])
            cores.append(core)
            let urlSafe = core.map { byte -> UInt8 in
                byte == UInt8(ascii: "+") ? UInt8(ascii: "-") : byte == UInt8(ascii: "/") ? UInt8(ascii: "_") : byte
            }
            if urlSafe != core { cores.append(urlSafe) }
        }
        return cores
    }

    /// Sorted ranges with overlapping or touching ones joined.
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// `bytes` with each of the sorted, disjoint `ranges` replaced by `replacement`.
    static func replacing(_ ranges: [Range<Int>], in bytes: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        for range in ranges {
            out += bytes[copied..<range.lowerBound]
            out += replacement
            copied = range.upperBound
        }
        out += bytes[copied...]
        return out
    }
}

/// Base64 in both alphabets, for the searches and the JWT check (no Foundation on this path).
enum Base64Text {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` encoded, without padding.
    static func encode(_ bytes: [UInt8], urlSafe: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for position in 0...chunk.count {
                var char = standard[Int(value >> (18 - 6 * position) & 0x3F)]
                if urlSafe && char == UInt8(ascii: "+") { char = UInt8(ascii: "-") }
                if urlSafe && char == UInt8(ascii: "/") { char = UInt8(ascii: "_") }
                out.append(char)
            }
            index += 3
        }
        return out
    }

    /// The 6-bit value of a character of either alphabet.
    static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
        default: return nil
        }
    }

    /// Unpadded text decoded; nil when a character is not base64 or the length cannot be.
    static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text {
            guard let value = value(of: byte) else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(buffer >> UInt32(bits) & 0xFF))
            }
        }
        return out
    }
}
