/// What a shell offers for an option's value or a command's positional argument. The completion
/// scripts in config/completions/ are generated from it (Scripts/gen-cli.py, through
/// `userdebug __spec`), so a new option or command is completed once its spec says so.
enum Completion: Sendable {
    /// Free text: nothing to offer.
    case text
    /// A file name (for a positional argument: a JSON file, or `-` for standard input).
    case file
    /// A URL.
    case url
    /// One of these words: the values a check accepts, or the usual ones of a free value. A
    /// closure, so that building the specs on a hotkey's run does not build the lists.
    case words(@Sendable () -> [String])
    /// What `userdebug __complete KIND` lists at completion time (from the store or the config).
    case dynamic(CompleteCommand.Kind)
    /// `last` or a response id.
    case response
    /// A command's name (`help COMMAND`).
    case command
}

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
    /// What a shell offers for the value (`.text` for a flag).
    var completion: Completion = .text
    /// The options this one cannot be given with (the completions stop offering them).
    var conflicts: [String] = []
    /// Checks a value when the command line is read, before anything is opened, so a typo is
    /// reported as such (exit 64) rather than as whatever the command met first (no store).
    var check: (@Sendable (String) throws(CommandError) -> Void)? = nil

    /// This option with its value checked by `check` when the command line is read.
    func checked(_ check: @escaping @Sendable (String) throws(CommandError) -> Void) -> OptionSpec {
        var copy = self
        copy.check = check
        return copy
    }

    /// This option, which cannot be given with the options `names`.
    func excluding(_ names: String...) -> OptionSpec {
        var copy = self
        copy.conflicts += names
        return copy
    }

    static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help)
    }

    static func value(
        _ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false,
        completes completion: Completion = .text, _ help: String
    ) -> OptionSpec {
        OptionSpec(
            name: name, short: short, valueName: valueName, repeatable: repeatable, help: help, completion: completion)
    }
}

/// A command: its words (`["session", "import"]`), its help, what it accepts, and what it does.
struct CommandSpec: Sendable {
    /// The words that select it.
    var path: [String]
    /// One line for the command list.
    var summary: String
    /// The usage line after `userdebug`, as help and the man page's SYNOPSIS show it: words to
    /// type as they are, placeholders in capitals (`NAME`), `[optional]`, `a|b` alternatives, `…`
    /// for a repeatable one. Every option it names is one of `options` or a global one.
    var usage: String
    /// Longer help: what it does, an example.
    var discussion: String
    /// The options it accepts besides the global ones.
    var options: [OptionSpec]
    /// How many positional arguments it takes at most (`Int.max` for `capture`, which hands curl
    /// all of its own); one more is a usage error.
    var maxPositionals: Int
    /// What a shell offers for the positional argument (nil when it takes none, or nothing to offer).
    var argument: Completion? = nil
    /// Runs the command once its arguments are parsed; `ErrorReport` turns what it throws into the
    /// message and the exit status.
    var run: @Sendable (Invocation) throws -> Void
}

/// The options every command accepts.
enum GlobalOptions {
    static let all: [OptionSpec] = [
        .flag("help", short: "h", "Show help for the command."),
        .value("session", "NAME", completes: .dynamic(.sessions), "Use this session instead of the current one."),
        .flag("reveal", "Show secrets (token, Authorization, cookies) instead of redacting them."),
        .flag("quiet", short: "q", "Print no notices on stderr."),
    ]
}
