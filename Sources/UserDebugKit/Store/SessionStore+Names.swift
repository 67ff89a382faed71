extension SessionStore {
    /// The names shell completion offers, read without decoding a single record: every session
    /// name, every tag and every status code in the store, each sorted and once. None of them is
    /// a secret (names and tags are labels the user gave; status codes are numbers).
    public struct Names: Sendable, Equatable {
        /// Session names, bytewise order.
        public var sessions: [String]
        /// Tags of recorded responses, bytewise order.
        public var tags: [String]
        /// HTTP status codes of recorded responses, ascending.
        public var statuses: [Int]
    }

    /// The session names, tags and status codes in the store (an index walk each, no bodies read).
    public func names() throws(StoreError) -> Names {
        try database.readTransaction { () throws(StoreError) in
            Names(
                sessions: try database.column("SELECT name FROM sessions ORDER BY name"),
                tags: try database.column("SELECT DISTINCT tag FROM response_tags ORDER BY tag"),
                statuses: try database.column("SELECT DISTINCT status FROM responses ORDER BY status").compactMap {
                    Int($0)
                })
        }
    }
}
