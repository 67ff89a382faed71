/// One debug action: what the menu shows (title, subtitle, key hint), whether what it produces
/// is a secret, and how it produces it.
///
/// An action's only effect is its payload: it returns bytes for the output (clipboard or stdout)
/// instead of writing them somewhere itself, so every action goes through the same routing,
/// redaction and secret handling, and tests can look at exactly what it made.
public struct DebugAction: Sendable {
    /// The identifier `userdebug run` takes, e.g. `copy-id`.
    public var id: String
    /// The title shown, e.g. "Copy Identifier".
    public var title: String
    /// A second line, e.g. the value it will copy (never a secret).
    public var subtitle: String?
    /// A key that chooses it in a popup menu, e.g. `I`.
    public var keyHint: String?
    /// Whether the payload is a secret (marked for clipboard managers, cleared after a timeout).
    public var isSecret: Bool
    /// Whether the secret comes out only with `--reveal`: without it the action produces the
    /// placeholder and `produce` does not run. For secrets found in data (a backend field named
    /// like one); `copy-token` and a config action marked secret are asked for by name instead.
    public var needsReveal: Bool
    /// Produces the payload. Runs only when the action is performed, so building a menu never
    /// reads a response body or runs a command.
    public var produce: @Sendable (ActionContext) throws -> Payload

    /// An action. A secret action's payload is always marked secret, whatever `produce` says;
    /// `needsReveal` makes it one that only `--reveal` shows.
    public init(
        id: String,
        title: String,
        subtitle: String? = nil,
        keyHint: String? = nil,
        isSecret: Bool = false,
        needsReveal: Bool = false,
        produce: @escaping @Sendable (ActionContext) throws -> Payload
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.keyHint = keyHint
        self.isSecret = isSecret || needsReveal
        self.needsReveal = needsReveal
        self.produce = produce
    }

    /// What `produce` returns for `context`, marked secret when the action is, then settled by
    /// `SecretPayloads` (an undeclared secret in it is redacted, or marked under `--reveal`); the
    /// placeholder for a `needsReveal` action without `--reveal`. Its errors (usually
    /// `ActionError`) pass through.
    public func perform(in context: ActionContext) throws -> Payload {
        if needsReveal, try context.redactor() != nil { return Payload(text: Redacted.placeholder) }
        var payload = try produce(context)
        if isSecret { payload.isSecret = true }
        return try SecretPayloads.settle(payload, in: context)
    }
}

/// Why an action produced nothing.
public enum ActionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The records lack what the action needs (no token, no matching response, no such field).
    case missing(String)
    /// The action's command could not be started.
    case commandNotStarted(command: String, reason: String)
    /// The action's command exited with a non-zero status; `stderr` is its last line there.
    case commandFailed(command: String, status: Int32, stderr: String)
    /// A signal ended the action's command; `stderr` is its last line there.
    case commandKilled(command: String, signal: Int32, stderr: String)
    /// The action's command did not finish within its timeout and was killed.
    case commandTimedOut(command: String, seconds: Double)
    /// The action's command wrote more than the output limit.
    case outputTooLarge(command: String, limit: Int)
    /// The config asks for something refused at run time, before anything runs: a program that
    /// someone else could change, or a command argument that holds the session's token. `key`
    /// is the setting, e.g. `backend.curl` or `actions[2].command[1]`.
    case unsafeConfig(key: String, reason: String)
    /// A value substituted into a command argument at run time would change what the program
    /// reads (it starts the argument with `-`, an option; or holds a control character, a second
    /// header or line). The value comes from recorded data (a login response, an imported HAR,
    /// the clipboard), not from the config: nothing was run. `action` is the action's id, `key`
    /// the argument (`actions[0].command[2]`), `placeholder` the field (`user.identifier`).
    case unsafeArgument(action: String, key: String, placeholder: String, reason: String)

    /// A message for stderr.
    public var description: String {
        switch self {
        case .missing(let what):
            return what
        case .commandNotStarted(let command, let reason):
            return "cannot run '\(command)': \(reason)"
        case .commandFailed(let command, let status, let stderr):
            return "'\(command)' failed (exit status \(status))\(stderr.isEmpty ? "" : ": " + stderr)"
        case .commandKilled(let command, let signal, let stderr):
            return "'\(command)' failed (killed by signal \(signal))\(stderr.isEmpty ? "" : ": " + stderr)"
        case .commandTimedOut(let command, let seconds):
            return "'\(command)' did not finish within \(formatSeconds(seconds)) s and was killed"
        case .outputTooLarge(let command, let limit):
            return "'\(command)' wrote more than \(limit) bytes"
        case .unsafeConfig(let key, let reason):
            return "\(key): \(reason)"
        case .unsafeArgument(let action, let key, let placeholder, let reason):
            return
                "action '\(action)': \(key): {{\(placeholder)}} \(reason); nothing was run (the value comes from the "
                + "recorded session: check it with 'userdebug session show')"
        }
    }
}

extension ActionError {
    /// What a command's ending means for its action: nil for exit status 0, else the failure,
    /// with the last line the command wrote to stderr, redacted as `SecretPayloads` redacts a
    /// diagnostic, the values of the user's secret fields hidden too (a command that echoes its
    /// stdin, a template with the token, would otherwise put them in the message and `--trace`).
    static func failure(of command: String, _ result: ProcessRunner.Result, in context: ActionContext) -> ActionError? {
        guard result.termination != .exited(0) else { return nil }
        var redactor = try? context.secretsRedactor()
        if let policy = redactor?.policy {
            for member in context.session.user.fields.members where policy.isSensitiveField(member.key) {
                if let text = member.value.scalarText { redactor?.knownSecrets.append(text) }
            }
        }
        return failure(of: command, result, token: context.session.token, redactor: redactor)
    }

    /// `failure(of:_:in:)` with the session's `token` and the `redactor` given (nil: one that
    /// knows only the token).
    static func failure(of command: String, _ result: ProcessRunner.Result, token: String?, redactor: Redactor?)
        -> ActionError?
    {
        func lastLine() -> String {
            let line = String(decoding: result.stderr, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            let redactor = redactor ?? Redactor(knownSecrets: [token].compactMap { $0 })
            return SecretPayloads.redactedDiagnostic(line, redactor: redactor, token: token)
        }
        switch result.termination {
        case .exited(0): return nil
        case .exited(let status): return .commandFailed(command: command, status: status, stderr: lastLine())
        case .signalled(let signal): return .commandKilled(command: command, signal: signal, stderr: lastLine())
        }
    }
}

/// `3` rather than `3.0`, `0.5` as is: seconds in messages and menu entries.
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
}
