/// JSON Web Tokens (and JWE) recognised by their shape, whatever name they stand under: three
/// or more base64url segments joined by dots, the first decoding to a JSON object with an `alg`
/// member. A JWT is a bearer credential (or carries one's claims), so it is a secret wherever
/// it turns up: `"data": "eyJ…"`, a `state=` query item, a plain-text log line.
///
/// The check decodes only segments that start with `e` (every JSON object's base64 does), and
/// each byte of the text is looked at a bounded number of times: linear for any input.
enum JWTShape {
    /// The ranges of JWT-shaped runs in `bytes`, in order.
    static func ranges(in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard isRunByte(bytes[index]) else {
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, isRunByte(bytes[end]) { end += 1 }
            if let range = jwt(in: bytes, run: index..<end) { found.append(range) }
            index = end
        }
        return found
    }

    /// Within a maximal run of base64url characters and dots, the range from the first segment
    /// that is a JWT header to the end of the run (trailing dots, a sentence's full stop, left).
    private static func jwt(in bytes: [UInt8], run: Range<Int>) -> Range<Int>? {
        var dots: [Int] = []
        for position in run where bytes[position] == UInt8(ascii: ".") { dots.append(position) }
        guard dots.count >= 2 else { return nil }
        var end = run.upperBound
        while end > run.lowerBound, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        var segmentStart = run.lowerBound
        for (number, dot) in dots.enumerated() where number + 2 <= dots.count {
            // A header needs a payload after it and a dot after that (an unsigned JWT ends in
            // its dot, which `end` has trimmed).
            guard dots[number + 1] <= end else { break }
            if isHeader(bytes[segmentStart..<dot]) { return segmentStart..<end }
            segmentStart = dot + 1
        }
        return nil
    }

    private static func isHeader(_ segment: ArraySlice<UInt8>) -> Bool {
        guard segment.count >= 12, segment.first == UInt8(ascii: "e"), let decoded = Base64Text.decode(segment),
            let value = try? JSONParser(maxDepth: 8).parse(decoded)
        else { return false }
        return value.objectValue?["alg"] != nil
    }

    private static func isRunByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
