import UserDebugKit

/// `userdebug __spec`: the command-line interface as one JSON document — every command's words,
/// summary, usage, help, positional argument and options, and the global options — read by
/// Scripts/gen-cli.py, which writes from it the man page's SYNOPSIS and OPTIONS, the bash, zsh
/// and fish completions and docs/commands.md. The specs are the one source; those files are
/// generated. Hidden from the command list, like `__complete`.
enum SpecCommand {
    /// The word that selects it.
    static let word = "__spec"

    static let spec = CommandSpec(
        path: [word],
        summary: "The command-line interface as JSON, for Scripts/gen-cli.py.",
        usage: word,
        discussion: """
            Prints every command's spec (words, summary, usage, help, argument, options with their
            value names and what a shell completes for them) and the global options, as one JSON
            document. Scripts/gen-cli.py writes the man page's SYNOPSIS and OPTIONS, the shell
            completions and docs/commands.md from it.
            Example: userdebug __spec | jq '.commands[].path'
            """,
        options: [],
        maxPositionals: 0
    ) { _ in
        try writeAll(Array((JSONWriter(indent: 2).string(document) + "\n").utf8), to: 1, name: "standard output")
    }

    /// `help` and `version`, which the command line answers before it looks for a command: not in
    /// `CLI.commands`, but documented and completed like the others.
    static let answeredCommands: [CommandSpec] = [
        CommandSpec(
            path: ["help"],
            summary: "Show the command list, or a command's usage, options and an example.",
            usage: "help [COMMAND]",
            discussion: """
                The same as COMMAND --help; a group's name alone lists its subcommands.
                Example: userdebug help export curl
                """,
            options: [],
            maxPositionals: 2,
            argument: .command
        ) { _ in },
        CommandSpec(
            path: ["version"],
            summary: "Print the version (also userdebug --version).",
            usage: "version",
            discussion: "Example: userdebug version",
            options: [],
            maxPositionals: 0
        ) { _ in },
    ]

    /// The whole interface: `{"globals": [option…], "commands": [command…]}`, commands in help's order.
    static var document: JSONValue {
        .object(
            JSONObject([
                "globals": .array(GlobalOptions.all.map(json)),
                "commands": .array((CLI.commands + answeredCommands).map(json)),
            ]))
    }

    static func json(_ command: CommandSpec) -> JSONValue {
        .object(
            JSONObject([
                "path": .array(command.path.map(JSONValue.string)),
                "summary": .string(command.summary),
                "usage": .string(command.usage),
                "discussion": .string(command.discussion),
                "maxPositionals": .number(String(command.maxPositionals == Int.max ? -1 : command.maxPositionals)),
                "argument": command.argument.map(json) ?? .null,
                "options": .array(command.options.map(json)),
            ]))
    }

    static func json(_ option: OptionSpec) -> JSONValue {
        .object(
            JSONObject([
                "name": .string(option.name),
                "short": option.short.map { .string(String($0)) } ?? .null,
                "valueName": option.valueName.map(JSONValue.string) ?? .null,
                "repeatable": .bool(option.repeatable),
                "help": .string(option.help),
                "completion": option.valueName == nil ? .null : json(option.completion),
                "conflicts": .array(option.conflicts.map(JSONValue.string)),
            ]))
    }

    /// `{"kind": "text"}`, `{"kind": "words", "words": […]}` or `{"kind": "dynamic", "list": "tags"}`.
    static func json(_ completion: Completion) -> JSONValue {
        switch completion {
        case .text: return .object(JSONObject(["kind": .string("text")]))
        case .file: return .object(JSONObject(["kind": .string("file")]))
        case .url: return .object(JSONObject(["kind": .string("url")]))
        case .response: return .object(JSONObject(["kind": .string("response")]))
        case .command: return .object(JSONObject(["kind": .string("command")]))
        case .words(let words):
            return .object(JSONObject(["kind": .string("words"), "words": .array(words().map(JSONValue.string))]))
        case .dynamic(let kind):
            return .object(JSONObject(["kind": .string("dynamic"), "list": .string(kind.rawValue)]))
        }
    }
}
