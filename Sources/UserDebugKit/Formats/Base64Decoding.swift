/// RFC 4648 base64 (standard alphabet, padded) decoded straight into the result: no filtered
/// copy of the text and no `Data` in between, so a 100 MB body in a HAR file costs its text and
/// its bytes, nothing more. Spaces, tabs and line breaks are ignored (MIME-style wrapping).
enum Base64Decoding {
    /// The bytes `text` encodes, nil when it is not padded base64.
    static func decode(_ text: String) -> [UInt8]? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode($0) }) { return decoded }
        return Array(text.utf8).withUnsafeBufferPointer { decode($0) }
    }

    /// The bytes `input` encodes, nil when it is not padded base64.
    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: input.count / 4 * 3 + 3) { out, count in
            var quad: UInt32 = 0
            var filled = 0
            var padding = 0
            count = 0
            for byte in input {
                if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { continue }
                // Nothing may follow the padding; padding fills only the last one or two places.
                guard padding == 0 || byte == UInt8(ascii: "="), let sextet = sextet(byte) else {
                    valid = false
                    return
                }
                if byte == UInt8(ascii: "=") {
                    guard filled >= 2 else {
                        valid = false
                        return
                    }
                    padding += 1
                }
                quad = quad << 6 | sextet
                filled += 1
                guard filled == 4 else { continue }
                for shift in [16, 8, 0].prefix(3 - padding) {
                    out[count] = UInt8(truncatingIfNeeded: quad >> UInt32(shift))
                    count += 1
                }
                quad = 0
                filled = 0
            }
            if filled != 0 { valid = false }
        }
        return valid ? bytes : nil
    }

    /// The 6-bit value of one base64 character (`=` counts as 0), nil for anything else.
    private static func sextet(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        case UInt8(ascii: "="): return 0
        default: return nil
        }
    }
}
