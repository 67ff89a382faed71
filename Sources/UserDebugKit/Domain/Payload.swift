/// What an action produces: bytes for the output, what kind of text they are, and whether they
/// are a secret (so a clipboard owner can mark them and clear them later).
public struct Payload: Sendable, Hashable {
    /// The kind of content, which decides the clipboard targets offered.
    public enum Kind: Sendable, Hashable {
        /// Plain UTF-8 text.
        case text
        /// A JSON document (also offered as `application/json`).
        case json
        /// Arbitrary bytes (only offered as-is, never re-encoded).
        case binary
    }

    /// The bytes, exactly as they go out.
    public var bytes: [UInt8]
    /// The kind of content.
    public var kind: Kind
    /// Whether the bytes are a secret (an auth token, a header with one).
    public var isSecret: Bool

    /// A payload.
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
