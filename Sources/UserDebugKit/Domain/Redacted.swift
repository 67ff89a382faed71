/// How a hidden secret looks wherever it is written, shared by the redactor that writes it and
/// the formats that must recognise it (a re-imported export says `[redacted]` where the token
/// was) or leave it alone (Postman templating).
public enum Redacted {
    /// What a secret is replaced with.
    public static let placeholder = "[redacted]"
    /// The placeholder percent-encoded, used inside URLs and form bodies: `[` and `]` are not
    /// allowed there and make curl treat the URL as a glob pattern.
    public static let urlPlaceholder = "%5Bredacted%5D"
    /// Known secrets shorter than this are not searched for: replacing a 3-byte "secret"
    /// everywhere would shred unrelated text while protecting nothing real.
    public static let minimumSecretLength = 6

    /// Whether `value` is a placeholder one of our exports writes where a secret was, not a
    /// secret: `[redacted]`, its percent-encoded form, or a Postman variable such as
    /// `{{authToken}}` (the collection export's, and any other `{{name}}`). A redacted HAR or
    /// session document imported back holds these; taking one for a token would hand it out as
    /// a credential.
    public static func isPlaceholder(_ value: String) -> Bool {
        if value == placeholder || value.lowercased() == urlPlaceholder.lowercased() { return true }
        guard value.hasPrefix("{{"), value.hasSuffix("}}"), value.utf8.count > 4 else { return false }
        return value.utf8.dropFirst(2).dropLast(2).allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "$"):
                return true
            default:
                return false
            }
        }
    }
}
