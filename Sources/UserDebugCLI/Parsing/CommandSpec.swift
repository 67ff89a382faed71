/// An option a command accepts.
struct OptionSpec: Sendable {
    /// The long name without dashes.
    var name: String
    /// A one-letter alias, if any.
    var short: Character?
    /// The value's placeholder (nil for a flag that takes no value).
    var valueName: String?
    /// Whether the option may be given several times.
    var repeatable = false
    /// One line of help.
    var help: String
    /// Checks a value when the command line is read, before anything is opened, so a typo is
    /// reported as such (exit 64) rather than as whatever the command met first (no store).
    var check: (@Sendable (String) throws(CommandError) -> Void)? = nil

    /// This option with its value checked by `check` when the command line is read.
    func checked(_ check: @escaping @Sendable (String) throws(CommandError) -> Void) -> OptionSpec {
        var copy = self
        copy.check = check
        return copy
    }

    static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help)
    }

    static func value(
        _ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false, _ help: String
    ) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: valueName, repeatable: repeatable, help: help)
    }
}

/// A command: its words (`["session", "import"]`), its help, what it accepts, and what it does.
struct CommandSpec: Sendable {
    /// The words that select it.
    var path: [String]
    /// One line for the command list.
    var summary: String
    /// The usage line after `userdebug`.
    var usage: String
    /// Longer help: what it does, an example.
    var discussion: String
    /// The options it accepts besides the global ones.
    var options: [OptionSpec]
    /// How many positional arguments it takes at most (`Int.max` for `capture`, which hands curl
    /// all of its own); one more is a usage error.
    var maxPositionals: Int
    /// Runs the command once its arguments are parsed; `ErrorReport` turns what it throws into the
    /// message and the exit status.
    var run: @Sendable (Invocation) throws -> Void
}

/// The options every command accepts.
enum GlobalOptions {
    static let all: [OptionSpec] = [
        .flag("help", short: "h", "Show help for the command."),
        .value("session", "NAME", "Use this session instead of the current one."),
        .flag("reveal", "Show secrets (token, Authorization, cookies) instead of redacting them."),
        .flag("quiet", short: "q", "Print no notices on stderr."),
    ]
}
