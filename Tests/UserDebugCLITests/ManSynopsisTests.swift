import Foundation
import Testing

@testable import UserDebugCLI

/// The man page's SYNOPSIS against the CLI's own command table (`CLI.commands`), so that a new
/// command cannot ship without its line: rendered by groff as `man` shows it, every command's
/// words appear in one `userdebug …` entry (a group's subcommand inside that group's entry).
@Suite struct ManSynopsisTests {
    /// The SYNOPSIS entries as groff renders them, one string per `userdebug …` entry, each with
    /// its continuation lines joined.
    static func synopsisEntries() throws -> [String] {
        guard let groff = InstallShell.find("groff") else {
            Issue.record("groff is not installed, so the SYNOPSIS cannot be checked (apt-get install groff-base)")
            return []
        }
        let rendered = try InstallShell.run(groff, ["-man", "-Tutf8", "-ww", "-P-cbou", InstallTests.manPage])
        #expect(rendered.status == 0 && rendered.err.isEmpty, "\(rendered)")
        let lines = rendered.out.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "SYNOPSIS"), let end = lines.firstIndex(of: "DESCRIPTION") else {
            Issue.record("no SYNOPSIS or DESCRIPTION heading in \(rendered.out.prefix(400))")
            return []
        }
        var entries: [String] = []
        for line in lines[(start + 1)..<end] {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("userdebug ") {
                entries.append(text)
            } else if !text.isEmpty, !entries.isEmpty {
                entries[entries.count - 1] += " " + text
            }
        }
        return entries
    }

    /// The words of an entry: the runs of characters a command or subcommand name is made of.
    static func words(_ entry: String) -> Set<String> {
        Set(entry.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init))
    }

    @Test func theSynopsisListsEveryCommandOfTheCommandTable() throws {
        let entries = try Self.synopsisEntries().map(Self.words)
        #expect(entries.count >= 10, "\(entries)")
        #expect(CLI.commands.count >= 20)
        for command in CLI.commands {
            // The entry that starts with the command's first word (`userdebug session {…}`), or
            // lists it among alternatives (`userdebug {copy|paste}`).
            let found = entries.contains { words in command.path.allSatisfy(words.contains) }
            #expect(found, "'userdebug \(command.path.joined(separator: " "))' is missing from the SYNOPSIS")
        }
    }

    @Test func theDescriptionNamesTheWaylandClipboardToo() throws {
        guard let groff = InstallShell.find("groff") else {
            Issue.record("groff is not installed, so the DESCRIPTION cannot be checked (apt-get install groff-base)")
            return
        }
        let rendered = try InstallShell.run(groff, ["-man", "-Tutf8", "-ww", "-P-cbou", InstallTests.manPage])
        let lines = rendered.out.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "DESCRIPTION"))
        let end = try #require(lines[(start + 1)...].firstIndex { !$0.isEmpty && !$0.hasPrefix(" ") })
        // Justified text: words joined by one space, whatever groff padded them with.
        let description = lines[(start + 1)..<end].joined(separator: " ").split(whereSeparator: \.isWhitespace)
            .joined(separator: " ")
        #expect(description.contains("the X11 or Wayland clipboard"), "\(description)")
    }

    @Test func theCheckFindsACommandThatIsMissing() throws {
        // The check itself can fail: a command the page does not name is not found.
        let entries = try Self.synopsisEntries().map(Self.words)
        #expect(!entries.contains { $0.contains("frobnicate") })
        #expect(!entries.contains { ["session", "frobnicate"].allSatisfy($0.contains) })
    }
}
