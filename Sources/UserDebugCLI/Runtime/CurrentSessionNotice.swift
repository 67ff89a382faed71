import UserDebugKit

extension Invocation {
    /// The last stderr line of every command that wrote a session (`session import`, `set`,
    /// `use`, `remove`, a login recorded from a response): which session the debug actions now
    /// use, `current session: 'staging' (usr_42)`, or that none is current. It names the session
    /// and its user's identifier (each `[redacted]` when it holds a secret), never the token. Read from the store just written, so it says
    /// what the next hotkey press will copy.
    func reportCurrentSession() throws {
        let store = try storeForWriting()
        guard let current = try store.currentSession() else {
            diagnostics.notice("no session is current; 'userdebug session use NAME' picks one")
            return
        }
        let labels = noticeLabels(current)
        diagnostics.notice("current session: '\(labels.name)' (\(labels.user))")
    }
}
