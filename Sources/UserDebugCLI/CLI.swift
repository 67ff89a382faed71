import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The `userdebug` command line: finds the command, scans its arguments, runs it, and maps any
/// error to a message on stderr and an exit status. Nothing else in the program calls `exit`.
public enum CLI {
    /// The version printed by `--version`.
    public static let version = "0.1.0"

    /// Every command, in the order help lists them.
    static let commands: [CommandSpec] = commandGroups.flatMap { $0() }

    /// The commands in groups, in help's order. Finding a one-word command builds only the groups
    /// up to the one that has it (`copy-id`, the hotkey's, is in the first): building every spec,
    /// help texts and all, cost a hotkey run a fifth of its instructions.
    private static let commandGroups: [@Sendable () -> [CommandSpec]] = [
        { ActionCommands.all }, { [MenuCommand.spec, RunCommand.spec, RofiCommand.spec] }, { SessionCommands.all },
        { ResponseCommands.all }, { ClipboardCommands.all }, { ImportCommands.all }, { ExportCommands.all },
        { CaptureCommand.all + [ProxyCommand.spec] }, { [DaemonCommand.spec, DoctorCommand.spec, SetupCommand.spec] },
    ]

    /// Runs the command line `arguments` (without the program name) and returns the exit status.
    public static func run(_ arguments: [String], environment: [String: String]? = nil) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        occupyClosedStandardDescriptors()
        let diagnostics = Diagnostics(quiet: false, isTerminal: isatty(2) == 1)
        if let list = getenv("USERDEBUG_DISABLE") {  // a misspelt name would turn nothing off, silently
            let unknown = DisabledMechanisms.parse(String(cString: list)).unknown
            if !unknown.isEmpty {
                let known = DisabledMechanisms.names.map(\.name).joined(separator: ", ")
                diagnostics.notice(
                    "warning: USERDEBUG_DISABLE: unknown \(unknown.map { "'\($0)'" }.joined(separator: ", ")) "
                        + "(known: \(known), all)")
            }
        }
        do {
            try dispatch(arguments, environment: environment)
            return ExitStatus.ok.rawValue
        } catch let exit as PassThroughExit {
            return exit.status
        } catch {
            let (status, message) = ErrorReport.classify(error)
            diagnostics.error(message)
            return status.rawValue
        }
    }

    private static func dispatch(_ arguments: [String], environment: [String: String]?) throws {
        if let invalid = RawArguments.firstInvalidUTF8(in: arguments) {
            throw RawArguments.invalidUTF8Error(in: arguments, index: invalid.index, bytes: invalid.bytes)
        }
        // Global options may come before the command too: `userdebug --session staging copy-id`.
        let (globals, tokens) = try leadingGlobalOptions(Tokenizer.split(arguments))
        // The command is the longest run of leading words that names one.
        var words: [String] = []
        for token in tokens {
            guard case .argument(let word, _) = token, words.count < 2 else { break }
            words.append(word)
        }
        if words.isEmpty {
            if tokens.isEmpty && !globals.isEmpty { throw UsageError(message: "expected a command", command: []) }
            return try answerWithoutCommand(tokens)
        }
        if words[0] == "help" { return try showHelp(topic: Array(words.dropFirst())) }
        if words[0] == "version" { return try printStandardOutput("userdebug \(version)\n") }
        let found =
            words[0] == CompleteCommand.word
            ? (CompleteCommand.spec, 1)
            : words[0] == SpecCommand.word ? (SpecCommand.spec, 1) : try command(named: words, tokens: tokens)
        guard let (spec, used) = found else { return }
        let rest = globals + tokens.dropFirst(used)
        if rest.contains(where: isHelp) { return try printStandardOutput(Help.page(spec)) }
        let parsed = try ParsedArguments.parse(rest, arguments: arguments, spec: spec)
        try spec.run(Invocation(arguments: parsed, environment: environment))
    }

    /// The global options before the command word (`--session NAME`, `--reveal`, `--quiet`),
    /// taken off the front, and the tokens after them. `--help` and `--version` stay where they
    /// are: without a command they get their own answer.
    private static func leadingGlobalOptions(_ tokens: [Token]) throws(UsageError) -> ([Token], [Token]) {
        var position = 0
        while position < tokens.count {
            switch tokens[position] {
            case .option("session", nil, _):
                guard position + 1 < tokens.count, case .argument = tokens[position + 1] else {
                    throw UsageError(message: "option '--session' needs a value (NAME)", command: [])
                }
                position += 2
            case .option("session", _, _), .option("reveal", nil, _), .option("quiet", nil, _), .shortOption("q", _):
                position += 1
            default:
                return (Array(tokens[..<position]), Array(tokens[position...]))
            }
        }
        return (tokens, [])
    }

    private static func printStandardOutput(_ text: String) throws {
        try writeAll(Array(text.utf8), to: 1, name: "standard output")
    }

    /// No command word: `--version`, `--help` (or nothing at all) get their answer, anything else
    /// is a usage error.
    private static func answerWithoutCommand(_ tokens: [Token]) throws {
        if tokens.contains(where: { if case .option("version", _, _) = $0 { return true } else { return false } }) {
            return try printStandardOutput("userdebug \(version)\n")
        }
        if tokens.isEmpty || tokens.contains(where: isHelp) { return try printStandardOutput(Help.overview(commands)) }
        if case .option(let name, _, _) = tokens[0] {
            throw UsageError(message: "unknown option '--\(name)'; expected a command first", command: [])
        }
        throw UsageError(message: "expected a command", command: [])
    }

    /// `userdebug help [TOPIC…]`: the overview, a command's page, or a group's list.
    private static func showHelp(topic: [String]) throws {
        if topic.isEmpty {
            try printStandardOutput(Help.overview(commands))
        } else if let spec = commands.first(where: { $0.path == topic })
            ?? commands.first(where: { $0.path == [topic[0]] })
        {
            try printStandardOutput(Help.page(spec))
        } else if commands.contains(where: { $0.path.first == topic[0] }) {
            try printStandardOutput(Help.group(topic[0], commands))
        } else {
            throw UsageError(message: "no command '\(topic.joined(separator: " "))'", command: [])
        }
    }

    /// The command the leading words name and how many words it took; nil when a group's help was
    /// printed instead. A group without a known subcommand, or an unknown word, is a usage error.
    private static func command(named words: [String], tokens: [Token]) throws -> (CommandSpec, Int)? {
        if words.count == 2, let found = commands.first(where: { $0.path == words }) { return (found, 2) }
        for group in commandGroups {
            if let found = group().first(where: { $0.path.count == 1 && $0.path[0] == words[0] }) { return (found, 1) }
        }
        guard commands.contains(where: { $0.path.first == words[0] }) else {
            throw UsageError(message: "unknown command '\(words[0])'\(suggestion(for: words[0]))", command: [])
        }
        if tokens.contains(where: isHelp) {
            try printStandardOutput(Help.group(words[0], commands))
            return nil
        }
        if words.count == 1 {
            throw UsageError(message: "'\(words[0])' needs a subcommand: \(subcommands(of: words[0]))", command: [])
        }
        let suggestion = Suggestion.phrase(for: words[1], among: subcommandList(of: words[0]), prefix: "\(words[0]) ")
        let list = "'\(words[0])' has: \(subcommands(of: words[0]))"
        throw UsageError(
            message: "unknown command '\(words.joined(separator: " "))'"
                + (suggestion.isEmpty ? "; \(list)" : "\(suggestion) (\(list))"),
            command: [])
    }

    private static func isHelp(_ token: Token) -> Bool {
        switch token {
        case .option("help", _, _), .shortOption("h", _): return true
        default: return false
        }
    }

    private static func subcommands(of group: String) -> String {
        subcommandList(of: group).joined(separator: ", ")
    }

    private static func subcommandList(of group: String) -> [String] {
        commands.filter { $0.path.first == group && $0.path.count > 1 }.map { $0.path[1] }
    }

    /// `; did you mean …?` for an unknown first word: a command, a group, or a group and its
    /// subcommand written as one word (`export-har`).
    private static func suggestion(for word: String) -> String {
        var names: [String] = []
        for command in commands {
            for name in [command.path[0], command.path.joined(separator: " ")] where !names.contains(name) {
                names.append(name)
            }
        }
        return Suggestion.phrase(for: word, among: names)
    }
}
