/// The rule every recorded header must meet, whichever way it comes in (a document, a HAR
/// entry, a capture): RFC 9110 allows no control character in a field name or value except
/// HTAB in a value. A CR, LF or ^C kept in a record would later be sent by curl as a header of
/// its own (`X-Injected: yes`) or typed into a shell by a pasted `export curl`.
public enum HeaderField {
    /// What is wrong with a header of this name and value, naming the header and the character
    /// (`header "X-A": control character 0x03 in the value; …`); nil when it may be recorded.
    public static func problem(name: String, value: String) -> String? {
        if let byte = forbidden(in: name, allowingTab: false) {
            return "header \(quoted(name)): control character \(describe(byte)) in the name; \(rule)"
        }
        if let byte = forbidden(in: value, allowingTab: true) {
            return "header \(quoted(name)): control character \(describe(byte)) in the value; \(rule)"
        }
        return nil
    }

    /// The first problem among `headers`, as `problem(name:value:)` says it.
    public static func problem(in headers: [HTTPHeader]) -> String? {
        for header in headers {
            if let problem = problem(name: header.name, value: header.value) { return problem }
        }
        return nil
    }

    /// The first problem among the request's headers, then the response's, as `problem(name:value:)`
    /// says it, prefixed `request ` or `response `.
    public static func problem(in exchange: BackendResponse) -> String? {
        problem(in: exchange.request.headers).map { "request " + $0 }
            ?? problem(in: exchange.headers).map { "response " + $0 }
    }

    /// Why the record is refused, for the messages.
    static let rule = "RFC 9110 forbids control characters other than tab in header fields; remove it from the input"

    /// The first C0 control (HTAB allowed when `allowingTab`) or DEL in `text`.
    static func forbidden(in text: String, allowingTab: Bool) -> UInt8? {
        text.utf8.first { ($0 < 0x20 && !(allowingTab && $0 == 0x09)) || $0 == 0x7F }
    }

    /// `0x0D (CR)`: the byte, and its name for the ones that do harm by name.
    static func describe(_ byte: UInt8) -> String {
        let hex = Array("0123456789ABCDEF")
        let code = "0x" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
        let names: [UInt8: String] = [0x0A: "LF", 0x0D: "CR", 0x03: "ETX, ^C", 0x1B: "ESC", 0x7F: "DEL", 0x00: "NUL"]
        return names[byte].map { "\(code) (\($0))" } ?? code
    }

    private static func quoted(_ text: String) -> String {
        var out = ""
        JSONWriter.appendQuoted(text, to: &out)
        return out
    }
}
