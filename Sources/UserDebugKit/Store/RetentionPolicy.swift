/// The limits of the response log. When a record would go past either, the oldest responses (of
/// any session) are dropped in the same transaction until both hold again.
///
/// The responses being recorded are never dropped by their own record call, so a single batch
/// larger than the limits stays whole (and the log shrinks back on the next record). One response
/// larger than `maxBytes` by itself is refused instead (`StoreError.recordTooLarge`, with its
/// batch): it would stay past the cap, and the cap is what bounds the store on disk.
///
/// It is also the `retention` section of the config file (`maxResponses` is `maxCount`), so the
/// defaults below are the product's, written only here.
public struct RetentionPolicy: Sendable, Equatable {
    /// The most responses kept; nil for no limit.
    public var maxCount: Int?
    /// The most bytes of responses kept, counting URLs, headers and bodies (not SQLite's own
    /// page and index overhead, so the file is somewhat larger); nil for no limit.
    public var maxBytes: Int?

    /// A policy; the defaults keep the last 10,000 responses and at most 256 MiB of them.
    public init(maxCount: Int? = 10_000, maxBytes: Int? = 256 * 1024 * 1024) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
    }

    /// No limits, e.g. for filling a benchmark store quickly.
    public static let unlimited = RetentionPolicy(maxCount: nil, maxBytes: nil)
}
