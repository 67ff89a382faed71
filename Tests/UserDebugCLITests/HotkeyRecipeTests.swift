import Foundation
import TestSupport
import Testing

/// The hotkey recipes of config/hotkeys, run as a user installs them: the real sxhkdrc and
/// xbindkeysrc files (only `userdebug` replaced by the built binary's path), the tool started
/// with its standard output sent to a file (as `sxhkd >out 2>err` or a display manager does),
/// keys pressed with xdotool under a private Xvfb, the clipboard read with xclip; the launcher key
/// opens the real dmenu, where a typed choice reaches the clipboard too. A recipe that relied on
/// `--to auto` would write into the file and leave the clipboard alone.
@Suite(.serialized, .desktopTier) struct HotkeyRecipeTests {
    /// One binding of a recipe file: the keys as xdotool types them, the command as written.
    struct Binding: CustomStringConvertible {
        var keys: String
        var command: String
        var description: String { "\(keys): \(command)" }
    }

    static let hotkeys = InstallTests.root.appendingPathComponent("config/hotkeys")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: hotkeys.appendingPathComponent(name), encoding: .utf8)
    }

    /// xdotool's name for a key of sxhkd (`super + alt + i`) or xbindkeys (`Mod4+Mod1 + i`).
    static func xdotoolKeys(_ chord: String) -> String {
        let names = ["mod4": "super", "mod1": "alt", "control": "ctrl", "mod5": "ISO_Level3_Shift"]
        return chord.split(separator: "+").map { $0.trimmingCharacters(in: .whitespaces) }
            .map { names[$0.lowercased()] ?? $0 }.joined(separator: "+")
    }

    /// sxhkdrc: a chord on a line of its own, its command on the next, indented.
    static func sxhkdBindings(_ text: String) -> [Binding] {
        var bindings: [Binding] = []
        var chord: String?
        for line in text.components(separatedBy: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            if line.first == "\t" || line.first == " ", let keys = chord {
                bindings.append(Binding(keys: xdotoolKeys(keys), command: line.trimmingCharacters(in: .whitespaces)))
                chord = nil
            } else {
                chord = line
            }
        }
        return bindings
    }

    /// xbindkeysrc: a quoted command, its keys on the next line.
    static func xbindkeysBindings(_ text: String) -> [Binding] {
        var bindings: [Binding] = []
        var command: String?
        for line in text.components(separatedBy: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("\""), trimmed.hasSuffix("\""), trimmed.count > 1 {
                command = String(trimmed.dropFirst().dropLast())
            } else if let written = command {
                bindings.append(Binding(keys: xdotoolKeys(trimmed), command: written))
                command = nil
            }
        }
        return bindings
    }

    /// A launcher binding (`menu --dmenu`) needs a launcher window; the others are actions.
    static func isAction(_ binding: Binding) -> Bool { !binding.command.contains("menu --dmenu") }

    /// The file with `userdebug` at the start of each command replaced by the binary's path.
    static func withBinary(_ text: String) -> String {
        text.components(separatedBy: "\n").map { line in
            for prefix in ["\tuserdebug ", "\"userdebug "] where line.hasPrefix(prefix) {
                return "\(prefix.prefix(1))'\(UserDebugHome.binary)' \(line.dropFirst(prefix.count))"
            }
            return line
        }.joined(separator: "\n")
    }

    @Test func everyRecipeOfEveryHotkeyFileAndOfREADMESaysToClipboard() throws {
        let pattern = try NSRegularExpression(
            pattern: #"userdebug'? (copy-id|dump-json|print-response|copy-token|copy-name|run [a-z0-9.-]+)([^\n"]*)"#)
        var found = 0
        var files = try FileManager.default.contentsOfDirectory(atPath: Self.hotkeys.path).map {
            ($0, try Self.text($0))
        }
        let readme = try userDocumentation()
        // The documentation's recipes: the hotkey table's rows and the compositors' bindings.
        let recipes = readme.components(separatedBy: "\n").filter {
            $0.hasPrefix("| Super+") || $0.contains("bindsym") || $0.contains("exec userdebug")
        }
        files.append(("README.md and docs/", recipes.joined(separator: "\n")))
        for (name, text) in files {
            let range = NSRange(text.startIndex..., in: text)
            for match in pattern.matches(in: text, range: range) {
                found += 1
                let recipe = (text as NSString).substring(with: match.range)
                #expect(recipe.contains("--to clipboard"), "\(name): \(recipe)")
            }
        }
        #expect(found >= 20, "found only \(found) recipes")
    }

    @Test func theParsersFindTheBindingsOfTheRealFiles() throws {
        let sxhkd = Self.sxhkdBindings(try Self.text("sxhkdrc"))
        let xbindkeys = Self.xbindkeysBindings(try Self.text("xbindkeysrc"))
        for bindings in [sxhkd, xbindkeys] {
            #expect(
                bindings.map(\.keys) == ["super+alt+i", "super+alt+j", "super+alt+r", "super+alt+m"], "\(bindings)")
            #expect(bindings.filter(Self.isAction).allSatisfy { $0.command.hasPrefix("userdebug ") })
        }
    }

    /// Starts `argv` on `x` with stdout and stderr to files in `home`; returns it and the stdout file.
    func startTool(_ argv: [String], _ x: Xvfb, _ home: UserDebugHome) throws -> (Spawned, String) {
        let out = home.root.appendingPathComponent("tool.out").path
        let err = home.root.appendingPathComponent("tool.err").path
        var environment = x.environment.merging(home.environment) { _, mine in mine }
        environment["SHELL"] = "/bin/sh"
        let tool = try Spawned.start(
            ["/bin/sh", "-c", "out=$1; err=$2; shift 2; exec \"$@\" >\"$out\" 2>\"$err\"", "sh", out, err] + argv,
            environment: environment)
        return (tool, out)
    }

    func clipboard(_ x: Xvfb) -> [UInt8] {
        (try? Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 10))?.bytes ?? []
    }

    /// Presses each action binding's keys (again, until the tool has grabbed them) and expects
    /// the clipboard to hold what the command gives on a pipe, and the tool's stdout file none of it.
    func pressEach(_ bindings: [Binding], tool: Spawned, out: String, _ x: Xvfb, _ home: UserDebugHome) throws {
        for binding in bindings where Self.isAction(binding) {
            let words = binding.command.split(separator: " ").dropFirst().map(String.init)
            let piped = try home.ok(words.map { $0 == "clipboard" ? "stdout" : $0 })
            let expected = TerminalOutputTests.copied(piped.out)
            try Peer.own(
                ["xclip", "-i", "-selection", "clipboard"], input: Array("stale".utf8), environment: x.environment)
            #expect(eventually { clipboard(x) == Array("stale".utf8) })
            var copied = false
            for _ in 0..<20 where !copied && !processExited(tool.pid) {
                _ = try Peer.read(["xdotool", "key", "--clearmodifiers", binding.keys], environment: x.environment)
                copied = eventually(timeout: 1) { expected.contains(clipboard(x)) }
            }
            #expect(copied, "\(binding): the clipboard holds \(String(decoding: clipboard(x), as: UTF8.self))")
        }
        let written = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(!written.contains("usr_42"), "the result went to the tool's stdout: \(written)")
    }

    /// Presses the launcher binding (`menu --dmenu`, no launcher named: dmenu is the first found
    /// on X11), waits for dmenu's window, types a filter and Return, and expects the chosen
    /// entry's payload on the clipboard and none of it in the tool's stdout file.
    func pressMenu(_ bindings: [Binding], out: String, _ x: Xvfb, _ home: UserDebugHome) throws {
        let menu = try #require(bindings.first { !Self.isAction($0) }, "the recipe binds no menu key")
        let expected = TerminalOutputTests.copied(try home.ok(["copy-id", "--to", "stdout"]).out)
        try Peer.own(
            ["xclip", "-i", "-selection", "clipboard"], input: Array("stale".utf8), environment: x.environment)
        #expect(eventually { clipboard(x) == Array("stale".utf8) })
        _ = try Peer.read(["xdotool", "key", "--clearmodifiers", menu.keys], environment: x.environment)
        let found = try Peer.read(
            ["xdotool", "search", "--sync", "--onlyvisible", "--class", "dmenu"], environment: x.environment, limit: 20)
        #expect(found.status == 0, "\(menu): no dmenu window appeared")
        _ = try Peer.read(["xdotool", "type", "--delay", "0", "identifier"], environment: x.environment)
        _ = try Peer.read(["xdotool", "key", "--delay", "0", "Return"], environment: x.environment)
        #expect(
            eventually(timeout: 10) { expected.contains(clipboard(x)) },
            "\(menu): the clipboard holds \(String(decoding: clipboard(x), as: UTF8.self))")
        let written = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(!written.contains("usr_42"), "the menu's result went to the tool's stdout: \(written)")
    }

    func recordedHome() throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: "https://api.example.com")
        try home.ok(["response", "record", "-"], stdin: Samples.notFound)
        return home
    }

    /// Installs the recipe file `name` (with the binary's path), starts the tool `argv(rcPath)`
    /// with stdout to a file, presses every action binding `parse` finds in the file.
    func runRecipes(_ name: String, parse: (String) -> [Binding], argv: (String) -> [String]) throws {
        let home = try recordedHome()
        let text = try Self.text(name)
        let rc = try home.file(name, Self.withBinary(text))
        try withXvfb { x in
            let (tool, out) = try startTool(argv(rc), x, home)
            defer {
                tool.kill()
                tool.wait()
            }
            try pressEach(parse(text), tool: tool, out: out, x, home)
            try pressMenu(parse(text), out: out, x, home)
        }
    }

    @Test func theSxhkdRecipesCopyWithStdoutSentToAFile() throws {
        try runRecipes("sxhkdrc", parse: Self.sxhkdBindings) { ["sxhkd", "-c", $0] }
    }

    @Test func theXbindkeysRecipesCopyWithStdoutSentToAFile() throws {
        try runRecipes("xbindkeysrc", parse: Self.xbindkeysBindings) { ["xbindkeys", "-n", "-f", $0] }
    }
}
