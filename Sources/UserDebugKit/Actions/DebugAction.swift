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
    /// Produces the payload. Runs only when the action is performed, so building a menu never
    /// reads a response body or runs a command.
    public var produce: @Sendable (ActionContext) throws -> Payload

    /// An action. A secret action's payload is always marked secret, whatever `produce` says.
    public init(
        id: String,
        title: String,
        subtitle: String? = nil,
        keyHint: String? = nil,
        isSecret: Bool = false,
        produce: @escaping @Sendable (ActionContext) throws -> Payload
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.keyHint = keyHint
        self.isSecret = isSecret
        self.produce = produce
    }

    /// What `produce` returns for `context`, marked secret when the action is; its errors
    /// (usually `ActionError`) pass through.
    public func perform(in context: ActionContext) throws -> Payload {
        var payload = try produce(context)
        if isSecret { payload.isSecret = true }
        return payload
    }
}

/// Why an action produced nothing.
public enum ActionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The records lack what the action needs (no token, no matching response, no such field).
    case missing(String)
    /// The action's command could not be started.
    case commandNotStarted(command: String, reason: String)
    /// The action's command exited with a non-zero status (or was killed by a signal).
    case commandFailed(command: String, status: Int32, stderr: String)
    /// The action's command did not finish within its timeout and was killed.
    case commandTimedOut(command: String, seconds: Double)
    /// The action's command wrote more than the output limit.
    case outputTooLarge(command: String, limit: Int)

    /// A message for stderr.
    public var description: String {
        switch self {
        case .missing(let what):
            return what
        case .commandNotStarted(let command, let reason):
            return "cannot run '\(command)': \(reason)"
        case .commandFailed(let command, let status, let stderr):
            let detail = stderr.isEmpty ? "" : ": " + stderr
            return
                "'\(command)' failed (\(status < 0 ? "killed by signal \(-status)" : "exit status \(status)"))\(detail)"
        case .commandTimedOut(let command, let seconds):
            return "'\(command)' did not finish within \(formatSeconds(seconds)) s and was killed"
        case .outputTooLarge(let command, let limit):
            return "'\(command)' wrote more than \(limit) bytes"
        }
    }
}

/// `3` rather than `3.0`, `0.5` as is: seconds in messages and menu entries.
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
}
