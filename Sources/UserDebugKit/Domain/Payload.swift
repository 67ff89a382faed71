/// What an action produces: bytes for the output, what kind of text they are, and whether they
/// are a secret (so a clipboard owner can mark them and clear them later).
public struct Payload: Sendable, Hashable {
    /// What the bytes are. It decides the formats a clipboard offers them in: the `Clipboard`
    /// protocol lists them, once, for every backend.
    public enum Kind: Sendable, Hashable {
        /// Plain UTF-8 text.
        case text
        /// A JSON document, which is also text.
        case json
        /// Bytes that need not be text; they go out as they are, never re-encoded.
        case binary
    }

    /// The bytes, exactly as they go out.
    public var bytes: [UInt8]
    /// What the bytes are; the CLI's standard output adds a final newline to all but `.binary`.
    public var kind: Kind
    /// Whether the bytes are a secret (an auth token, a header with one).
    public var isSecret: Bool

    /// A payload of `bytes` as they are: nothing checks them against `kind`, so a caller that does
    /// not know picks `.binary` unless they are valid UTF-8 (as `userdebug copy` does).
    public init(bytes: [UInt8], kind: Kind = .text, isSecret: Bool = false) {
        self.bytes = bytes
        self.kind = kind
        self.isSecret = isSecret
    }

    /// A text payload from a string.
    public init(text: String, kind: Kind = .text, isSecret: Bool = false) {
        self.init(bytes: Array(text.utf8), kind: kind, isSecret: isSecret)
    }
}
