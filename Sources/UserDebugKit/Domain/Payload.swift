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

    /// Where the bytes are: an array, or a large input read once into a block of its own
    /// (`userdebug copy`), which the clipboard owner serves without a second copy.
    private enum Storage: Sendable {
        case array([UInt8])
        case block(HeapBytes)
    }

    private var storage: Storage

    /// The bytes, exactly as they go out. For a payload read into a block this makes an array
    /// of them (a copy): large payloads are read with `withUnsafeBytes` and `byteCount`.
    public var bytes: [UInt8] {
        get {
            switch storage {
            case .array(let bytes): bytes
            case .block(let block): Array(block.bytes)
            }
        }
        set { storage = .array(newValue) }
    }

    /// How many bytes there are, without copying them.
    public var byteCount: Int {
        switch storage {
        case .array(let bytes): bytes.count
        case .block(let block): block.count
        }
    }

    /// What the bytes are; the CLI's standard output adds a final newline to all but `.binary`.
    public var kind: Kind
    /// Whether the bytes are a secret (an auth token, a header with one).
    public var isSecret: Bool

    /// A payload of `bytes` as they are: nothing checks them against `kind`, so a caller that does
    /// not know picks `.binary` unless they are valid UTF-8 (as `userdebug copy` does).
    public init(bytes: [UInt8], kind: Kind = .text, isSecret: Bool = false) {
        self.storage = .array(bytes)
        self.kind = kind
        self.isSecret = isSecret
    }

    /// A payload of the bytes read into `block`, held there (not copied).
    package init(block: HeapBytes, kind: Kind, isSecret: Bool = false) {
        self.storage = .block(block)
        self.kind = kind
        self.isSecret = isSecret
    }

    /// A text payload from a string.
    public init(text: String, kind: Kind = .text, isSecret: Bool = false) {
        self.init(bytes: Array(text.utf8), kind: kind, isSecret: isSecret)
    }

    /// Calls `body` with the bytes where they are, without copying them.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        switch storage {
        case .array(let bytes):
            // withUnsafeBytes rethrows untyped: the typed failure is carried out as a value.
            let result: Result<R, E> = bytes.withUnsafeBytes { raw in
                do throws(E) { return .success(try body(raw)) } catch { return .failure(error) }
            }
            return try result.get()
        case .block(let block):
            defer { withExtendedLifetime(block) {} }
            return try body(block.bytes)
        }
    }

    /// Equal bytes, kind and secrecy, wherever the bytes are held.
    public static func == (lhs: Payload, rhs: Payload) -> Bool {
        guard lhs.kind == rhs.kind, lhs.isSecret == rhs.isSecret, lhs.byteCount == rhs.byteCount else { return false }
        return lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in a.elementsEqual(b) } }
    }

    /// Hashes the bytes, kind and secrecy.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(kind)
        hasher.combine(isSecret)
    }
}
