// libFuzzer target: the argument scanner (Sources/UserDebugCLI/Parsing): argv split into tokens,
// the command found by its leading words, its options and positionals scanned against the command's
// spec, as `CLI` does before running a command (the command itself is not run). Whatever the
// arguments, scanning returns or throws a UsageError, and what it returns keeps the spec's rules.
@testable import UserDebugCLI

/// Called by libFuzzer with one input: the arguments, separated by NUL bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    let tokens = Tokenizer.split(arguments)
    precondition(tokens.allSatisfy { arguments.indices.contains($0.index) }, "a token names no argument")
    var words: [String] = []
    for token in tokens {
        guard case .argument(let word, _) = token, words.count < 2 else { break }
        words.append(word)
    }
    guard !words.isEmpty else { return 0 }
    let found =
        words.count == 2
        ? CLI.commands.first { $0.path == words } ?? CLI.commands.first { $0.path == [words[0]] }
        : CLI.commands.first { $0.path == [words[0]] }
    guard let spec = found else { return 0 }
    do {
        let parsed = try ParsedArguments.parse(
            Array(tokens.dropFirst(spec.path.count)), arguments: arguments, spec: spec)
        precondition(parsed.positionals.count <= spec.maxPositionals, "more positionals than the command takes")
        for option in spec.options + GlobalOptions.all where !option.repeatable {
            precondition(parsed.all(option.name).count <= 1, "--\(option.name) kept twice")
        }
    } catch {
        precondition(!error.message.isEmpty, "a usage error without a message")
    }
    return 0
}
