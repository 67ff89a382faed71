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
    static let commands: [CommandSpec] =
        ActionCommands.all + [MenuCommand.spec, RunCommand.spec, RofiCommand.spec] + SessionCommands.all
        + ResponseCommands.all
        + ClipboardCommands.all + ImportCommands.all + ExportCommands.all + CaptureCommand.all
        + [DaemonCommand.spec, DoctorCommand.spec]

    /// Runs the command line `arguments` (without the program name) and returns the exit status.
    public static func run(_ arguments: [String], environment: [String: String]? = nil) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let diagnostics = Diagnostics(quiet: false, isTerminal: isatty(2) == 1)
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
        let tokens = Tokenizer.split(arguments)
        // The command is the longest run of leading words that names one.
        var words: [String] = []
        for token in tokens {
            guard case .argument(let word, _) = token, words.count < 2 else { break }
            words.append(word)
        }
        if words.isEmpty { return try answerWithoutCommand(tokens) }
        if words[0] == "help" { return try showHelp(topic: Array(words.dropFirst())) }
        if words[0] == "version" { return try printStandardOutput("userdebug \(version)\n") }
        guard let (spec, used) = try command(named: words, tokens: tokens) else { return }
        let rest = Array(tokens.dropFirst(used))
        if rest.contains(where: isHelp) { return try printStandardOutput(Help.page(spec)) }
        let parsed = try ParsedArguments.parse(rest, arguments: arguments, spec: spec)
        try spec.run(Invocation(arguments: parsed, environment: environment))
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
        if let found = commands.first(where: { $0.path == [words[0]] }) { return (found, 1) }
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
        throw UsageError(
            message:
                "unknown command '\(words.joined(separator: " "))'; '\(words[0])' has: \(subcommands(of: words[0]))",
            command: [])
    }

    private static func isHelp(_ token: Token) -> Bool {
        switch token {
        case .option("help", _, _), .shortOption("h", _): return true
        default: return false
        }
    }

    private static func subcommands(of group: String) -> String {
        commands.filter { $0.path.first == group && $0.path.count > 1 }.map { $0.path[1] }.joined(separator: ", ")
    }

    private static func suggestion(for word: String) -> String {
        let names = Set(commands.map { $0.path[0] })
        let close = names.filter { editDistance($0, word) <= 2 }.sorted()
        return close.isEmpty ? "" : "; did you mean '\(close[0])'?"
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
