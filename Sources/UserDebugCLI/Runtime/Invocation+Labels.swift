import UserDebugKit

/// The labels commands show — tags, session names, users' identifiers and names — with any
/// that holds a secret replaced as a whole (`Redactor.redactLabel`).
extension Invocation {
    /// The redactor for labels a list shows across sessions: the config's policy and every
    /// session's token (a tag or a name may hold another session's token); nil with --reveal.
    func labelRedactor(_ store: SessionStore) throws -> Redactor? {
        guard !arguments.has("reveal") else { return nil }
        return Redactor(policy: try config().redactionPolicy, knownSecrets: try store.tokens())
    }

    /// `session` as a stderr notice names it: its name and its user's identifier, each replaced
    /// when it holds the session's token, a JWT or a secret pair. Whatever --reveal says: a
    /// notice is not the output asked for, and stderr ends up in logs and bug reports.
    func noticeLabels(_ session: Session) -> (name: String, user: String) {
        let policy = (try? config().redactionPolicy) ?? .default
        let redactor = Redactor(policy: policy, knownSecrets: [session.token].compactMap { $0 }.filter { !$0.isEmpty })
        return (redactor.redactLabel(session.name), redactor.redactLabel(session.user.identifier))
    }
}
