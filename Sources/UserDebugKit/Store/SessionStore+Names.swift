extension SessionStore {
    /// The names shell completion offers, read without decoding a single record: every session
    /// name, every tag and every status code in the store, each sorted and once. None of them is
    /// a secret by nature (names and tags are labels the user gave; status codes are numbers), but
    /// a label may hold one by mistake: `tokens` tell which (`Redactor.isSecretLabel`).
    public struct Names: Sendable, Equatable {
        /// Session names, bytewise order.
        public var sessions: [String]
        /// Tags of recorded responses, bytewise order.
        public var tags: [String]
        /// HTTP status codes of recorded responses, ascending.
        public var statuses: [Int]
        /// Every session's token, to tell a name or tag that holds one; never to be shown.
        public var tokens: [String]
    }

    /// The session names, tags and status codes in the store (an index walk each, no bodies read),
    /// and the sessions' tokens.
    public func names() throws(StoreError) -> Names {
        try database.readTransaction { () throws(StoreError) in
            Names(
                sessions: try database.column("SELECT name FROM sessions ORDER BY name"),
                tags: try database.column("SELECT DISTINCT tag FROM response_tags ORDER BY tag"),
                statuses: try database.column("SELECT DISTINCT status FROM responses ORDER BY status").compactMap {
                    Int($0)
                },
                tokens: try tokens())
        }
    }

    /// Every session's token (none empty), for redaction of what lists show across sessions: a
    /// tag or a session name that holds another session's token is as secret as one that holds
    /// the current one's.
    public func tokens() throws(StoreError) -> [String] {
        try database.column("SELECT token FROM sessions WHERE token IS NOT NULL AND token <> '' ORDER BY id")
    }
}
