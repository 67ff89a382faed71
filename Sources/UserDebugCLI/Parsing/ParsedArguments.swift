/// What a command received: option values by name, flags, positional arguments.
///
/// Held in plain arrays searched in order: a command line has a handful of options, and the
/// first hashed collection of a run costs the hotkey path a scan of every protocol conformance
/// in the binary.
struct ParsedArguments: Sendable {
    private(set) var values: [(name: String, value: String)] = []
    private(set) var flags: [String] = []
    private(set) var positionals: [String] = []

    /// Whether a flag was given.
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The last value of an option.
    func value(_ name: String) -> String? { values.last { $0.name == name }?.value }

    /// Every value of a repeatable option, in order.
    func all(_ name: String) -> [String] { values.filter { $0.name == name }.map(\.value) }

    /// Scans `tokens` against the options of `spec` (plus the global ones).
    static func parse(_ tokens: [Token], arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        let options = spec.options + GlobalOptions.all
        var parsed = ParsedArguments()
        var position = 0
        func lookup(_ name: String) -> OptionSpec? { options.first { $0.name == name } }
        while position < tokens.count {
            let token = tokens[position]
            position += 1
            let option: OptionSpec
            var inline: String?
            var short: Character?
            switch token {
            case .argument(let text, _):
                parsed.positionals.append(text)
                continue
            case .option(let name, let inlineValue, _):
                guard let found = lookup(name) else {
                    throw UsageError(
                        message: "unknown option '--\(name)' for '\(spec.path.joined(separator: " "))'"
                            + Suggestion.phrase(for: name, among: options.map(\.name), prefix: "--"),
                        command: spec.path)
                }
                option = found
                inline = inlineValue
            case .shortOption(let letter, _):
                guard let found = options.first(where: { $0.short == letter }) else {
                    throw UsageError(
                        message: "unknown option '-\(letter)' for '\(spec.path.joined(separator: " "))'",
                        command: spec.path)
                }
                option = found
                short = letter
            }
            // One rule for flags and valued options: given twice is a usage error, naming it as
            // written (`-qq`, `--quiet -q`), since a second copy is a mistake the user would
            // want to hear of (a pasted line, an alias that already has it), never a meaning.
            let given = parsed.has(option.name) || parsed.value(option.name) != nil
            if given, !option.repeatable {
                let spelled = short.map { "'-\($0)' (--\(option.name))" } ?? "'--\(option.name)'"
                throw UsageError(message: "option \(spelled) given more than once", command: spec.path)
            }
            guard option.valueName != nil else {
                if inline != nil {
                    throw UsageError(message: "option '--\(option.name)' takes no value", command: spec.path)
                }
                parsed.flags.append(option.name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                value = try valueAfter(option, at: position, in: tokens, arguments: arguments, spec: spec)
                position += 1
            }
            do {
                try option.check?(value)
            } catch {
                throw UsageError(message: error.message, command: spec.path)
            }
            parsed.values.append((option.name, value))
        }
        if parsed.positionals.count > spec.maxPositionals {
            let extra = parsed.positionals[spec.maxPositionals]
            throw UsageError(
                message: "unexpected argument '\(extra)' for '\(spec.path.joined(separator: " "))'", command: spec.path)
        }
        return parsed
    }

    /// The value of `option` given as the next argument (`--tag login`). A next argument that is an
    /// option, or none at all, is an error that says how to pass a value starting with '-'.
    private static func valueAfter(
        _ option: OptionSpec, at position: Int, in tokens: [Token], arguments: [String], spec: CommandSpec
    ) throws(UsageError) -> String {
        guard position < tokens.count else {
            throw UsageError(
                message: "option '--\(option.name)' needs a value (\(option.valueName ?? "VALUE"))", command: spec.path)
        }
        guard case .argument(let next, _) = tokens[position] else {
            let raw = arguments[tokens[position].index]
            throw UsageError(
                message: "option '--\(option.name)' needs a value, but the next argument is '\(raw)'; "
                    + "to pass a value that starts with '-', write --\(option.name)=\(raw)",
                command: spec.path)
        }
        return next
    }
}
