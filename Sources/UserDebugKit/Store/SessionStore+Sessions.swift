import FoundationEssentials

/// Named sessions and which one is current.
extension SessionStore {
    private static let sessionColumns = """
        s.name, s.user_identifier, s.user_name, s.user_fields, s.token, s.base_url, s.environment, \
        s.created_at_ms, s.updated_at_ms
        """

    /// Saves `session` under its name: inserts it, or updates the existing session of that name
    /// keeping its `createdAt`. `updatedAt` becomes now. With `makeCurrent`, it also becomes the
    /// current session, in the same transaction.
    public func saveSession(_ session: Session, makeCurrent: Bool) throws(StoreError) {
        let now = StoreCoding.milliseconds(Date())
        try database.writeTransaction { () throws(StoreError) in
            try database.run(
                """
                INSERT INTO sessions (name, user_identifier, user_name, user_fields, token, base_url, environment, created_at_ms, updated_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET
                    user_identifier = excluded.user_identifier, user_name = excluded.user_name,
                    user_fields = excluded.user_fields, token = excluded.token, base_url = excluded.base_url,
                    environment = excluded.environment, updated_at_ms = excluded.updated_at_ms
                """,
                [
                    .text(session.name), .text(session.user.identifier), session.user.name.map { .text($0) } ?? .null,
                    .text(StoreCoding.encode(fields: session.user.fields)), session.token.map { .text($0) } ?? .null,
                    session.baseURL.map { .text($0) } ?? .null, session.environment.map { .text($0) } ?? .null,
                    .integer(StoreCoding.milliseconds(session.createdAt)), .integer(now),
                ]
            )
            if makeCurrent {
                try makeCurrentSession(try sessionID(named: session.name))
            }
        }
    }

    /// The session named `name`, nil when there is none.
    public func session(named name: String) throws(StoreError) -> Session? {
        try database.query("SELECT \(Self.sessionColumns) FROM sessions AS s WHERE s.name = ?", [.text(name)]) {
            (statement) throws(StoreError) in
            try statement.step() ? try decodeSession(statement) : nil
        }
    }

    /// The name of the current session, nil when none is current.
    public func currentSessionName() throws(StoreError) -> String? {
        try database.scalarText(
            "SELECT s.name FROM current_session AS c JOIN sessions AS s ON s.id = c.session_id WHERE c.id = 1"
        )
    }

    /// The current session, nil when none is current.
    public func currentSession() throws(StoreError) -> Session? {
        try database.query(
            "SELECT \(Self.sessionColumns) FROM current_session AS c JOIN sessions AS s ON s.id = c.session_id WHERE c.id = 1"
        ) { (statement) throws(StoreError) in
            try statement.step() ? try decodeSession(statement) : nil
        }
    }

    /// Every session, sorted by name (bytewise, so the order does not depend on the locale).
    public func sessions() throws(StoreError) -> [Session] {
        try database.query("SELECT \(Self.sessionColumns) FROM sessions AS s ORDER BY s.name") {
            (statement) throws(StoreError) in
            var sessions: [Session] = []
            while try statement.step() { sessions.append(try decodeSession(statement)) }
            return sessions
        }
    }

    /// Makes the session named `name` the current one.
    /// - Throws: `.noSuchSession(name)` when there is none.
    public func useSession(_ name: String) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try makeCurrentSession(try sessionID(named: name))
        }
    }

    /// Removes the session named `name` and, in the same transaction, its responses; when it was
    /// current, no session is current afterwards (both follow from the schema's cascades).
    /// - Throws: `.noSuchSession(name)` when there is none.
    public func removeSession(_ name: String) throws(StoreError) {
        try database.writeTransaction { () throws(StoreError) in
            try database.run("DELETE FROM sessions WHERE name = ?", [.text(name)])
            if database.changes == 0 { throw StoreError.noSuchSession(name) }
        }
    }

    /// The row id of the session named `name`.
    func sessionID(named name: String) throws(StoreError) -> Int64 {
        guard let id = try database.scalarInt("SELECT id FROM sessions WHERE name = ?", [.text(name)]) else {
            throw StoreError.noSuchSession(name)
        }
        return id
    }

    /// The row id of the current session.
    func currentSessionID() throws(StoreError) -> Int64 {
        guard let id = try database.scalarInt("SELECT session_id FROM current_session WHERE id = 1") else {
            throw StoreError.noCurrentSession
        }
        return id
    }

    private func makeCurrentSession(_ id: Int64) throws(StoreError) {
        try database.run("INSERT OR REPLACE INTO current_session (id, session_id) VALUES (1, ?)", [.integer(id)])
    }

    private func decodeSession(_ row: Statement) throws(StoreError) -> Session {
        let name = row.text(0)
        guard let fields = StoreCoding.decodeFields(row.text(3)) else {
            throw StoreError.corrupt(path: path, detail: "session \"\(name)\" has malformed user fields")
        }
        return Session(
            name: name,
            user: User(identifier: row.text(1), name: row.optionalText(2), fields: fields),
            token: row.optionalText(4),
            baseURL: row.optionalText(5),
            environment: row.optionalText(6),
            createdAt: StoreCoding.date(milliseconds: row.int64(7)),
            updatedAt: StoreCoding.date(milliseconds: row.int64(8))
        )
    }
}
