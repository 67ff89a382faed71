import UserDebugKit

/// `userdebug __complete KIND`: the words the shell completions in `config/completions/` offer
/// that only the store or the config knows, one per line: action ids for `run`, tags for
/// `--tag`, statuses for `--status`, session names for `--session`. Hidden from the command
/// list (it is for the completion scripts), fast (a read of the config, one read-only transaction
/// on the store, or both; nothing decoded), and
/// never a secret: ids, labels and numbers only, a label that holds a secret (a tag that is the
/// token, a JWT or `access_token=…`) left out. No store yet means nothing to offer: no output,
/// exit 0.
enum CompleteCommand {
    /// The word that selects it; the leading underscores keep it out of the way of users.
    static let word = "__complete"

    /// What it can list.
    enum Kind: String, CaseIterable {
        case actions, tags, statuses, sessions
    }

    static let spec = CommandSpec(
        path: [word],
        summary: "The words shell completion offers: action ids, tags, statuses or session names.",
        usage: "\(word) actions|tags|statuses|sessions",
        discussion: """
            One word per line, for config/completions/: 'actions' lists the ids 'run' takes (built-in,
            from the config, and backend.body when the config has a backend section), 'tags' and
            'sessions' the names in the store, 'statuses' the classes 1xx-5xx and every status code
            recorded. A word with a control character in it is left out, and so is one that holds
            a secret (a session's token, a JWT, access_token=…).
            Example: userdebug __complete sessions
            """,
        options: [],
        maxPositionals: 1
    ) { invocation in
        let kinds = Kind.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text = invocation.arguments.positionals.first else {
            throw UsageError(message: "'\(word)' needs a kind: \(kinds)", command: [word])
        }
        guard let kind = Kind(rawValue: text) else {
            throw UsageError(
                message: "unknown kind '\(text)' for '\(word)'; expected one of: \(kinds)", command: [word])
        }
        let words = try CompleteCommand.words(kind, invocation: invocation)
        let output = words.filter(isPlainWord).map { $0 + "\n" }.joined()
        try writeAll(Array(output.utf8), to: 1, name: "standard output")
    }

    /// The words of `kind`, in the order the shell gets them.
    static func words(_ kind: Kind, invocation: Invocation) throws -> [String] {
        switch kind {
        case .actions:
            let config = try invocation.config()
            return ActionRun.builtinIDs.sorted() + config.actions.map(\.id)
                + (config.backend.path == nil ? [] : ["\(BackendProvider.sectionID).body"])
        case .tags: return try names().map { try withoutSecrets($0.tags, tokens: $0.tokens) } ?? []
        case .sessions: return try names().map { try withoutSecrets($0.sessions, tokens: $0.tokens) } ?? []
        case .statuses:
            return (1...5).map { "\($0)xx" } + (try names()?.statuses ?? []).map(String.init)
        }
        // Left out, not offered as the placeholder: a completion is a word to type, and no
        // name or tag is `[redacted]`. --reveal does not bring them back: the shell asks, not
        // the user, and what it is offered ends up on the screen and in the history.
        func withoutSecrets(_ labels: [String], tokens: [String]) throws -> [String] {
            let redactor = Redactor(policy: try invocation.config().redactionPolicy, knownSecrets: tokens)
            return labels.filter { !redactor.isSecretLabel($0) }
        }
        func names() throws -> SessionStore.Names? {
            do {
                return try invocation.storeForReading().names()
            } catch StoreError.missing(_) {
                return nil
            }
        }
    }

    /// Whether a shell can be offered `word` as it is: not empty, no control characters (a
    /// newline would split it, an escape would reach the terminal).
    static func isPlainWord(_ word: String) -> Bool {
        !word.isEmpty && !word.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
