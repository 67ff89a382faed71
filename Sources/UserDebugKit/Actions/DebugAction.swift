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
        }
    }
}

extension ActionError {
    /// What a command's ending means for its action: nil for exit status 0, else the failure,
    /// with the last line the command wrote to stderr.
    static func failure(of command: String, _ result: ProcessRunner.Result) -> ActionError? {
        let lastLine = String(decoding: result.stderr, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        switch result.termination {
        case .exited(0): return nil
        case .exited(let status): return .commandFailed(command: command, status: status, stderr: lastLine)
        case .signalled(let signal): return .commandKilled(command: command, signal: signal, stderr: lastLine)
        }
    }
}

/// `3` rather than `3.0`, `0.5` as is: seconds in messages and menu entries.
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
}
