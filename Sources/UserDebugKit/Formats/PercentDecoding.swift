/// Reading `application/x-www-form-urlencoded` names and values (URL queries, form bodies) as
/// the text they stand for: the HAR export lists them decoded, the Postman export and the
/// redactor compare them decoded (`acc%65ss_token` is `access_token`).
enum PercentDecoding {
    /// `+` as a space and `%XX` escapes decoded; a malformed escape is kept literally, and bytes
    /// that are not UTF-8 become U+FFFD.
    static func decoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexDigitValue(utf8[index + 1]), let low = hexDigitValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
