/// One command-line argument after splitting, with the index it had in argv so errors can name it.
enum Token: Equatable, Sendable {
    /// `--name` or `--name=value` (the value kept when given inline).
    case option(name: String, inlineValue: String?, index: Int)
    /// `-x` (a single-letter flag; bundles like `-xy` are split into several).
    case shortOption(Character, index: Int)
    /// Anything else, including `-` (standard input) and everything after `--`.
    case argument(String, index: Int)

    /// The argv index the token came from.
    var index: Int {
        switch self {
        case .option(_, _, let index), .shortOption(_, let index), .argument(_, let index): return index
        }
    }
}

/// Splits argv into tokens. Knows nothing of commands: `--` ends option parsing, `-` is an
/// argument, `--a=b` keeps `b` inline, `-abc` becomes three short options.
enum Tokenizer {
    static func split(_ arguments: [String]) -> [Token] {
        var tokens: [Token] = []
        var onlyArguments = false
        for (index, argument) in arguments.enumerated() {
            if onlyArguments {
                tokens.append(.argument(argument, index: index))
            } else if argument == "--" {
                onlyArguments = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    tokens.append(
                        .option(
                            name: String(body[..<equals]), inlineValue: String(body[body.index(after: equals)...]),
                            index: index))
                } else {
                    tokens.append(.option(name: String(body), inlineValue: nil, index: index))
                }
            } else if argument.hasPrefix("-") && argument.count > 1 && !argument.dropFirst().allSatisfy(\.isNumber) {
                for letter in argument.dropFirst() { tokens.append(.shortOption(letter, index: index)) }
            } else {
                tokens.append(.argument(argument, index: index))
            }
        }
        return tokens
    }
}
