import Foundation
import TestSupport
import Testing

/// `userdebug paste` reads whatever another program owns, so its output is hostile: on a terminal
/// it is shown escaped like every other command's output, while a pipe, a file or `--raw` get
/// the bytes exactly. The terminal is a real pseudo-terminal (script(1)) with output
/// post-processing off (`stty -opost`), so what is compared is byte for byte what reached it.
@Suite struct PasteTerminalTests {
    /// OSC 52 (writes the clipboard in many terminals), clear screen, a C1 CSI both as a character
    /// and as a lone byte, BiDi overrides, ^C, BEL, CR, DEL and NUL, around ordinary text.
    static let hostile: [UInt8] =
        Array("clip \u{1B}]52;c;ZXZpbA==\u{07} \u{1B}[2J \u{9B}31m ".utf8) + [0x9B]
        + Array(" admin\u{202E}gnp.exe \u{2066}x\u{2069} ^C:\u{03} cr\rdel\u{7F} nul\u{0}\ttab\nend".utf8)

    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
    }

    /// Runs `SHELL_COMMAND` under script(1): its stdout is a pseudo-terminal; returns what reached it.
    func onATerminal(_ command: String, _ x: Xvfb) throws -> Peer.Output {
        try Peer.read(
            ["script", "-qec", "stty -opost && \(command)", "/dev/null"],
            environment: x.environment.merging(home.environment) { a, _ in a }, limit: 30)
    }

    /// xclip owns `hostile`; returns once `paste` to a pipe gets it back, which is itself the check
    /// that a pipe keeps every byte.
    func ownHostileBytes(_ x: Xvfb) throws {
        try Peer.own(["xclip", "-selection", "clipboard"], input: Self.hostile, environment: x.environment)
        var piped = Data()
        let served = eventually {
            piped = (try? home.run(["paste"], extraEnvironment: ["DISPLAY": x.display]))?.stdout ?? Data()
            return Array(piped) == Self.hostile
        }
        #expect(served, "paste to a pipe changed the bytes: \(Array(piped))")
    }

    static func isTerminalControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if scalar == "\n" || scalar == "\t" { return false }
        return value < 0x20 || (0x7F...0x9F).contains(value)
            || [0x061C, 0x200E, 0x200F, 0x2028, 0x2029].contains(value)
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    @Test func onATerminalEveryControlIsShownEscaped() throws {
        try withXvfb { x in
            try ownHostileBytes(x)
            let out = try onATerminal("exec \(UserDebugHome.binary) paste", x)
            #expect(out.status == 0)
            let shown = try #require(String(validating: out.bytes, as: UTF8.self), "not UTF-8: \(out.bytes)")
            let controls = shown.unicodeScalars.filter(Self.isTerminalControl)
            #expect(controls.isEmpty, "raw controls reached the terminal: \(controls.map(\.value))")
            for visible in [#"\x1b]52;c;ZXZpbA==\x07"#, #"\x1b[2J"#, #"\u{9b}31m"#, #"\x9b"#, #"\u{202e}"#, #"\x03"#] {
                #expect(shown.contains(visible), "\(visible) not shown in \(shown)")
            }
            #expect(shown.hasSuffix("\ttab\nend\n"), "\(shown)")
        }
    }

    @Test func rawAndAPipeKeepEveryByteEvenWhenATerminalIsAtTheEnd() throws {
        try withXvfb { x in
            try ownHostileBytes(x)
            let raw = try onATerminal("exec \(UserDebugHome.binary) paste --raw", x)
            #expect(raw.status == 0)
            #expect(raw.bytes == Self.hostile)
            let piped = try onATerminal("\(UserDebugHome.binary) paste | cat", x)
            #expect(piped.status == 0)
            #expect(piped.bytes == Self.hostile)
        }
    }

    @Test func rawIsDocumentedInTheHelp() throws {
        let help = try home.ok(["paste", "--help"]).out
        #expect(help.contains("--raw"), "\(help)")
    }
}
