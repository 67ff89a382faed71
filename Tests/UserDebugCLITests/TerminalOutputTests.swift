import Foundation
import TestSupport
import Testing

/// Output that does what the command's name says: on a terminal (a real pseudo-terminal from
/// script(1), output post-processing off so what reached it is compared byte for byte) the
/// debug actions and the exports show their result, escaped, and also copy it to the CLIPBOARD
/// under a private Xvfb, saying so in one stderr line. Pipes, files and `--to clipboard` keep
/// their behaviour.
@Suite struct TerminalOutputTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-", "--tag", "login"], stdin: Samples.loginResponse)
    }

    /// What a run on a terminal did: what reached the terminal (stdout only), stderr (a file).
    struct TerminalRun: CustomStringConvertible {
        var status: Int32
        var shown: String
        var err: String
        var description: String { "exit \(status)\nterminal: \(shown)\nstderr: \(err)" }
    }

    static func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs `userdebug ARGS` with stdout on a pseudo-terminal and stderr to a file.
    func onATerminal(_ arguments: [String], _ x: Xvfb?) throws -> TerminalRun {
        let errPath = home.root.appendingPathComponent("stderr-\(UUID().uuidString)").path
        // The exit status goes after stderr's text in the same file (script(1) has its own).
        let command =
            "stty -opost && " + ([UserDebugHome.binary] + arguments).map(Self.quoted).joined(separator: " ")
            + " 2>" + Self.quoted(errPath) + "; echo \"exit=$?\" >>" + Self.quoted(errPath)
        var environment = home.environment
        if let x { environment.merge(x.environment) { a, _ in a } } else { environment["DISPLAY"] = ":4093" }
        let out = try Peer.read(["script", "-qec", command, "/dev/null"], environment: environment, limit: 30)
        var err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        var status = out.status
        if let marker = err.range(of: "exit=", options: .backwards) {
            status = Int32(err[marker.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            err = String(err[..<marker.lowerBound])
        }
        return TerminalRun(status: status, shown: String(decoding: out.bytes, as: UTF8.self), err: err)
    }

    func clipboard(_ x: Xvfb) -> [UInt8] {
        (try? Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 10))?.bytes ?? []
    }

    /// Puts `stale` on the clipboard, so a later read tells whether anything was copied.
    func setStale(_ x: Xvfb, _ stale: String = "stale") throws {
        try Peer.own(["xclip", "-i", "-selection", "clipboard"], input: Array(stale.utf8), environment: x.environment)
        #expect(eventually { clipboard(x) == Array(stale.utf8) })
    }

    /// The commands whose result a terminal now shows, and the result as a pipe gets it.
    static let shownCommands: [[String]] = [
        ["copy-id"], ["dump-json"], ["print-response", "--tag", "login"], ["print-response", "--headers"],
        ["run", "copy-name"], ["export", "har"], ["export", "curl"], ["export", "postman-collection"],
        ["export", "postman-env"],
    ]

    /// What a clipboard may hold when a pipe got `piped`: the bytes, or the bytes without the
    /// newline stdout adds to a result that has none.
    static func copied(_ piped: String) -> [[UInt8]] {
        let bytes = Array(piped.utf8)
        return bytes.last == UInt8(ascii: "\n") ? [bytes, Array(bytes.dropLast())] : [bytes]
    }

    @Test(arguments: shownCommands)
    func onATerminalTheResultIsShownAndCopied(arguments: [String]) throws {
        let piped = try home.ok(arguments)
        #expect(!piped.out.isEmpty)
        try withXvfb { x in
            try setStale(x)
            let run = try onATerminal(arguments, x)
            #expect(run.status == 0, "\(run)")
            // What the terminal shows is what a pipe gets (none of these has a control character).
            #expect(run.shown == piped.out, "\(run)")
            #expect(!run.shown.contains(Samples.canary))
            // And the clipboard holds it too (stdout adds a newline for the prompt when it has none).
            let expected = Self.copied(piped.out)
            #expect(eventually { expected.contains(clipboard(x)) }, "\(String(decoding: clipboard(x), as: UTF8.self))")
            let lines = run.err.split(separator: "\n").filter { $0.contains("copied") }
            #expect(lines == ["userdebug: copied \(clipboard(x).count) bytes to CLIPBOARD"], "\(run)")
        }
    }

    @Test func copyIDOnATerminalCopiesAndPrintsTheIdentifier() throws {
        try withXvfb { x in
            try setStale(x)
            let run = try onATerminal(["copy-id"], x)
            #expect(run.status == 0, "\(run)")
            #expect(run.shown == "usr_1\n", "\(run)")
            #expect(run.err == "userdebug: copied 5 bytes to CLIPBOARD\n", "\(run)")
            #expect(eventually { clipboard(x) == Array("usr_1".utf8) })
        }
    }

    @Test func aHostileBodyIsShownEscapedAndCopiedAsItIs() throws {
        let body = "see \u{1B}]52;c;ZXZpbA==\u{07} and \u{1B}[2J here"
        var escapedBody = ""
        JSONWriterEscape.append(body, to: &escapedBody)
        try home.ok(
            ["response", "record", "-", "--tag", "hostile"],
            stdin: """
                {"request": {"method": "GET", "url": "https://api.example.com/v1/note"},
                 "response": {"status": 200, "headers": {"Content-Type": "text/plain"}, "body": \(escapedBody)}}
                """)
        try withXvfb { x in
            // Revealed: redaction cannot read a body with control characters, and would hide it.
            let run = try onATerminal(["print-response", "--tag", "hostile", "--reveal"], x)
            #expect(run.status == 0, "\(run)")
            #expect(!run.shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(run)")
            #expect(run.shown.contains(#"\x1b]52;c;ZXZpbA==\x07"#), "\(run)")
            #expect(eventually { clipboard(x) == Array(body.utf8) })
        }
    }

    @Test func aSecretIsCopiedButShownRedactedUnlessRevealed() throws {
        try withXvfb { x in
            let run = try onATerminal(["copy-token"], x)
            #expect(run.status == 0, "\(run)")
            #expect(run.shown == "[redacted]\n", "\(run)")
            #expect(!run.err.contains(Samples.canary))
            #expect(run.err.contains("copied a secret"), "\(run)")
            #expect(eventually { clipboard(x) == Array(Samples.canary.utf8) })
            let revealed = try onATerminal(["copy-token", "--reveal"], x)
            #expect(revealed.shown == Samples.canary + "\n", "\(revealed)")
        }
    }

    @Test func withoutADisplayATerminalGetsTheResultOnceWithANotice() throws {
        let run = try onATerminal(["print-response", "--tag", "login"], nil)
        #expect(run.status == 0, "\(run)")
        #expect(run.shown.components(separatedBy: "\"user\"").count == 2, "shown once: \(run)")
        #expect(run.err.contains("no clipboard"), "\(run)")
    }

    @Test func aFileOrAPipeGetsTheResultAndTheClipboardIsLeftAlone() throws {
        try withXvfb { x in
            try setStale(x)
            let file = home.root.appendingPathComponent("out.json").path
            let shell = "\(UserDebugHome.binary) dump-json >'\(file)' && \(UserDebugHome.binary) copy-id | cat"
            let out = try Peer.read(
                ["sh", "-c", shell], environment: x.environment.merging(home.environment) { a, _ in a }, limit: 20)
            #expect(out.status == 0)
            #expect(out.bytes == Array("usr_1\n".utf8))
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\"usr_1\""))
            #expect(clipboard(x) == Array("stale".utf8))
        }
    }

    @Test func aHotkeysToClipboardWritesNothingToStdout() throws {
        try withXvfb { x in
            let run = try onATerminal(["copy-id", "--to", "clipboard"], x)
            #expect(run.status == 0, "\(run)")
            #expect(run.shown.isEmpty, "\(run)")
            #expect(eventually { clipboard(x) == Array("usr_1".utf8) })
        }
    }

    @Test(arguments: ["clipboard+stdout", "both"])
    func clipboardPlusStdoutAndItsOldNameWriteBoth(target: String) throws {
        try withXvfb { x in
            try setStale(x)
            let result = try home.run(["copy-id", "--to", target], extraEnvironment: ["DISPLAY": x.display])
            #expect(result.status == 0, "\(result)")
            #expect(result.out == "usr_1\n")
            #expect(eventually { clipboard(x) == Array("usr_1".utf8) })
        }
    }

    @Test func aBadTargetNamesTheNewSpellingAndTheConfigTakesBoth() throws {
        let bad = try home.run(["copy-id", "--to", "bothh"])
        #expect(bad.status == 64, "\(bad)")
        #expect(bad.err.contains("clipboard+stdout"), "\(bad)")
        let help = try home.ok(["copy-id", "--help"]).out
        #expect(help.contains("clipboard+stdout") && help.contains("alias both"), "\(help)")
        try home.file("config/config.json", #"{"output": {"defaultTarget": "both"}}"#)
        // No display: the clipboard half fails with 69, so the config's value was taken as a target.
        #expect(try home.run(["copy-id"], extraEnvironment: ["DISPLAY": ":4093"]).status == 69)
        try home.file("config/config.json", #"{"output": {"defaultTarget": "clipboard+stdout"}}"#)
        #expect(try home.run(["copy-id"], extraEnvironment: ["DISPLAY": ":4093"]).status == 69)
    }

    @Test func menuWithALauncherOnATerminalShowsTheChosenResult() throws {
        try withXvfb { x in
            try setStale(x)
            let run = try onATerminal(["menu", "--dmenu", "--launcher", "grep -m1 Identifier"], x)
            #expect(run.status == 0, "\(run)")
            #expect(run.shown == "usr_1\n", "\(run)")
            #expect(eventually { clipboard(x) == Array("usr_1".utf8) })
        }
    }
}

/// A JSON string literal for `text` (quotes included), for building test documents.
enum JSONWriterEscape {
    static func append(_ text: String, to out: inout String) {
        let data = try? JSONSerialization.data(withJSONObject: [text], options: [])
        let array = String(decoding: data ?? Data(), as: UTF8.self)
        out += String(array.dropFirst().dropLast())
    }
}
