import FoundationEssentials

/// Sessions that follow the app: a login (found by a login rule, or told by the app) saved and
/// made current, and a logout.
extension SessionStore {
    /// Saves `login`'s session and makes it current. A session of that name that exists keeps its
    /// `createdAt`, and its base URL and environment where the login has none; a new one without
    /// a base URL gets the login's origin. Returns the session as saved.
    @discardableResult
    public func saveLogin(_ login: LoginRule.Login) throws(StoreError) -> Session {
        var session = login.session
        let existing = try self.session(named: session.name)
        if let existing { session.createdAt = existing.createdAt }
        session.baseURL = session.baseURL ?? existing?.baseURL ?? login.origin
        session.environment = session.environment ?? existing?.environment
        try saveSession(session, makeCurrent: true)
        return session
    }

    /// A logout: the current session loses its token and stops being current (its user and
    /// responses stay, for `session use` later). Returns its name, nil when none was current.
    @discardableResult
    public func logOut() throws(StoreError) -> String? {
        let now = StoreCoding.milliseconds(Date())
        return try database.writeTransaction { () throws(StoreError) -> String? in
            guard let name = try currentSessionName() else { return nil }
            try database.run(
                "UPDATE sessions SET token = NULL, updated_at_ms = ? WHERE name = ?", [.integer(now), .text(name)])
            try database.run("DELETE FROM current_session WHERE id = 1")
            return name
        }
    }
}
