/// An action defined in the config file, without code (`actions` section).
///
/// Without `command`, the payload is `template` filled in. With `command` (an argv array, run
/// without a shell: each element is one argument, placeholders filled in, so a value with
/// spaces, quotes or `$(…)` arrives verbatim), the program's stdout is the payload and
/// `template`, if any, is written to its stdin. The program's stdout is the action's only
/// effect that counts; a non-zero exit or running past `timeoutSeconds` fails the action.
/// Secrets go to a command only on stdin: arguments are visible to every local user in
/// `/proc/*/cmdline`.
public struct ConfigAction: Sendable, Equatable {
    /// The id `userdebug run` takes: lowercase letters, digits, `.`, `_`, `-`.
    public var id: String
    /// The title the menu shows (required in the file).
    public var title: String
    /// A second line in the menu, shown as written: no placeholder is filled in.
    public var subtitle: String?
    /// A key that chooses it in a popup menu.
    public var keyHint: String?
    /// The payload (without a command) or the command's stdin (with one).
    public var template: ActionTemplate?
    /// The program and its arguments, each a template.
    public var command: [ActionTemplate]?
    /// Whether the payload is a secret; required when the template uses one.
    public var isSecret: Bool
    /// Seconds the command may run before its process group is killed and the action fails;
    /// unused without `command`.
    public var timeoutSeconds: Double

    /// An action as the file defines one. Nothing is checked here: the config loader refuses a
    /// reserved or repeated id, a secret placeholder in `command` (or in `template` without
    /// `isSecret`), and an action with neither `template` nor `command`.
    public init(
        id: String,
        title: String,
        subtitle: String? = nil,
        keyHint: String? = nil,
        template: ActionTemplate? = nil,
        command: [ActionTemplate]? = nil,
        isSecret: Bool = false,
        timeoutSeconds: Double = ConfigAction.defaultTimeoutSeconds
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.keyHint = keyHint
        self.template = template
        self.command = command
        self.isSecret = isSecret
        self.timeoutSeconds = timeoutSeconds
    }

    /// A command's time limit when the config does not give one.
    public static let defaultTimeoutSeconds: Double = 10

    /// Ids the built-in providers use; a config action may not take one (`run ID` must mean one
    /// thing), nor anything under `backend.`.
    public static var reservedIDs: [String] {
        UserActionProvider.actionIDs + ResponseLogProvider.actionIDs + [
            "responses-by-status", BackendProvider.sectionID,
        ]
    }

    /// Whether `id` is well formed: 1–64 of `a-z 0-9 . _ -`, starting with a letter or digit.
    static func isWellFormed(_ id: String) -> Bool {
        guard let first = id.utf8.first, id.utf8.count <= 64, isLowerAlnum(first) else { return false }
        return id.utf8.allSatisfy {
            isLowerAlnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    private static func isLowerAlnum(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
