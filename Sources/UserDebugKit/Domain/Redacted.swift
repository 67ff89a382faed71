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
}
