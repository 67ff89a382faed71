import Foundation
import Testing

@testable import UserDebugCLI

/// The command specs are the one source of the command line's description: the man page's
/// SYNOPSIS and OPTIONS, the bash, zsh and fish completions and docs/commands.md are written from
/// `userdebug __spec` by Scripts/gen-cli.py. Here: the specs agree with themselves (a usage line
/// names only options the command accepts), `__spec` says what the specs say, and the files in the
/// tree are the ones the script writes — with the check seen failing on a stale copy.
@Suite struct CommandSpecTests {
    static let documented = CLI.commands + SpecCommand.answeredCommands
    static let generatedFiles = [
        "config/userdebug.1", "config/completions/userdebug.bash", "config/completions/_userdebug",
        "config/completions/userdebug.fish", "docs/commands.md",
    ]

    /// The `--options` a usage line names that `command` does not accept (its own or a global one).
    static func unknownOptions(in command: CommandSpec) -> [String] {
        let accepted = Set((command.options + GlobalOptions.all).map(\.name))
        let named = command.usage.split(whereSeparator: { " []|{}…".contains($0) }).filter { $0.hasPrefix("--") }
        return named.map { String($0.dropFirst(2)) }.filter { !$0.isEmpty && !accepted.contains($0) }
    }

    @Test func everyOptionAUsageLineNamesIsOneItsCommandAccepts() {
        #expect(Self.documented.count >= 27)
        for command in Self.documented {
            #expect(Self.unknownOptions(in: command).isEmpty, "'\(command.usage)' names options the spec lacks")
        }
        // The check can fail.
        var wrong = CLI.commands[0]
        wrong.usage += " [--frobnicate]"
        #expect(Self.unknownOptions(in: wrong) == ["frobnicate"])
    }

    @Test func conflictsNameOptionsOfTheSameCommand() {
        for command in Self.documented {
            let names = Set(command.options.map(\.name))
            for option in command.options {
                for other in option.conflicts {
                    #expect(
                        names.contains(other),
                        "--\(option.name) of '\(command.usage)' conflicts with unknown --\(other)")
                }
            }
        }
    }

    /// `userdebug __spec` of the built binary, parsed.
    static func specDocument() throws -> [String: Any] {
        let result = try InstallShell.run(UserDebugHome.binary, ["__spec"])
        #expect(result.status == 0 && result.err.isEmpty, "\(result)")
        return try #require(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    }

    @Test func theSpecDocumentHoldsEveryCommandWithWhatItCompletes() throws {
        let document = try Self.specDocument()
        let commands = try #require(document["commands"] as? [[String: Any]])
        let paths = commands.compactMap { $0["path"] as? [String] }
        #expect(paths == CLI.commands.map(\.path) + [["help"], ["version"]])
        #expect(!(try InstallShell.run(UserDebugHome.binary, ["--help"]).out.contains(SpecCommand.word)))

        let copyID = try #require(commands.first { $0["path"] as? [String] == ["copy-id"] })
        let options = try #require(copyID["options"] as? [[String: Any]])
        let to = try #require(options.first { $0["name"] as? String == "to" })
        #expect(to["valueName"] as? String == "TARGET")
        let completion = try #require(to["completion"] as? [String: Any])
        #expect(completion["words"] as? [String] == ["auto", "stdout", "clipboard", "primary", "clipboard+stdout"])

        let run = try #require(commands.first { $0["path"] as? [String] == ["run"] })
        let argument = try #require(run["argument"] as? [String: Any])
        #expect(argument["kind"] as? String == "dynamic" && argument["list"] as? String == "actions")
        let globals = try #require(document["globals"] as? [[String: Any]])
        #expect(globals.compactMap { $0["name"] as? String } == GlobalOptions.all.map(\.name))
    }

    /// Runs Scripts/gen-cli.py with `arguments` (the tree's root by default).
    static func generator(_ arguments: [String]) throws -> InstallShellResult {
        let script = InstallTests.root.appendingPathComponent("Scripts/gen-cli.py").path
        return try InstallShell.run("/usr/bin/python3", [script, "--check"] + arguments)
    }

    @Test func theGeneratedFilesSayWhatTheSpecsSay() throws {
        let result = try Self.generator(["--binary", UserDebugHome.binary])
        #expect(result.status == 0, "stale generated files; run Scripts/gen-cli.py:\n\(result.err)")
    }

    @Test func theCheckNamesEveryFileAnOptionAddedToASpecLeavesStale() throws {
        // A copy of the generated files, checked against the built binary's spec with one more
        // option in `daemon`: as if a spec gained it and nobody ran the generator.
        let scratch = try InstallTemporaryDirectory()
        for file in Self.generatedFiles {
            let target = scratch.url.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: InstallTests.root.appendingPathComponent(file), to: target)
        }
        var document = try Self.specDocument()
        let unchanged = scratch.url.appendingPathComponent("spec.json")
        try JSONSerialization.data(withJSONObject: document).write(to: unchanged)
        let fresh = try Self.generator(["--spec", unchanged.path, "--root", scratch.url.path])
        #expect(fresh.status == 0, "\(fresh)")

        var commands = try #require(document["commands"] as? [[String: Any]])
        let index = try #require(commands.firstIndex { $0["path"] as? [String] == ["daemon"] })
        var options = try #require(commands[index]["options"] as? [[String: Any]])
        options.append([
            "name": "stale-on-purpose", "short": NSNull(), "valueName": NSNull(), "repeatable": false,
            "help": "Added without regenerating.", "completion": NSNull(), "conflicts": [String](),
        ])
        commands[index]["options"] = options
        document["commands"] = commands
        let changed = scratch.url.appendingPathComponent("changed.json")
        try JSONSerialization.data(withJSONObject: document).write(to: changed)
        let stale = try Self.generator(["--spec", changed.path, "--root", scratch.url.path])
        #expect(stale.status == 1, "\(stale)")
        for file in Self.generatedFiles {
            #expect(
                stale.err.contains("gen-cli: \(file) is stale")
                    && stale.err.contains("regenerate it with Scripts/gen-cli.py"),
                "\(file) not named: \(stale.err)")
        }
        #expect(stale.err.contains("stale\\-on\\-purpose"), "the diff shows the man page's new option: \(stale.err)")
        // --check wrote nothing.
        for file in Self.generatedFiles {
            let copy = try Data(contentsOf: scratch.url.appendingPathComponent(file))
            #expect(
                copy == (try Data(contentsOf: InstallTests.root.appendingPathComponent(file))), "\(file) was written")
        }
    }
}
