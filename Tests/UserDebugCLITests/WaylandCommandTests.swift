import Foundation
import TestSupport
import Testing

/// The built binary on a real headless sway with only WAYLAND_DISPLAY set: its copies are read
/// by wl-paste whatever window has the focus (none, an X11 one, a native Wayland one), and it
/// reads what wl-copy owns.
@Suite(.desktopTier) struct WaylandCommandTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func env(_ sway: Sway) -> [String: String] {
        ["WAYLAND_DISPLAY": sway.socket, "XDG_RUNTIME_DIR": sway.runtimeDir]
    }

    func copyIdIsReadByWlPaste(_ sway: Sway, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try home.run(["copy-id", "--to", "clipboard"], extraEnvironment: env(sway))
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        #expect(result.err.contains("copied 5 bytes to CLIPBOARD"), sourceLocation: sourceLocation)
        let out = try Peer.read(["wl-paste", "-n"], environment: sway.environment, limit: 30)
        #expect(out.bytes == Array("usr_1".utf8), sourceLocation: sourceLocation)
        // Then a copy by another client replaces ours, and we read it.
        let theirs = Array("Zoë 名前 🚀".utf8)
        try Peer.own(["wl-copy", "--type", "text/plain;charset=utf-8"], input: theirs, environment: sway.environment)
        let pasted = try home.run(["paste"], extraEnvironment: env(sway))
        #expect(pasted.status == 0, "\(pasted)", sourceLocation: sourceLocation)
        #expect(Array(pasted.stdout) == theirs, sourceLocation: sourceLocation)
    }

    @Test func copyIdWithNoWindowAtAll() throws {
        try withSway { sway in try copyIdIsReadByWlPaste(sway) }
    }

    @Test func copyIdWithAnX11WindowFocused() throws {
        try withSway { sway in
            let window = try sway.startWindow(["xmessage", "-geometry", "200x50", "x11 window"], x11: true)
            #expect(sway.focus(pid: window.pid), "the X11 window never got the focus")
            try copyIdIsReadByWlPaste(sway)
        }
    }

    @Test func copyIdWithANativeWaylandWindowFocused() throws {
        try withSway { sway in
            let window = try sway.startWindow(["foot", "sleep", "60"])
            #expect(sway.focus(pid: window.pid), "the Wayland window never got the focus")
            try copyIdIsReadByWlPaste(sway)
        }
    }

    /// Every type other applications see is a real one: nothing of our own bookkeeping (an
    /// `application/x-userdebug-owner;pid=…` type once confirmed our offer), after a cold copy,
    /// a copy handed to our serving process, a new owner replacing an identical selection of
    /// ours (which must still be confirmed as ours), and a JSON copy.
    @Test func theSelectionOffersOnlyRealTypes() throws {
        let text = ["text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "TEXT", "STRING"]
        try withSway { sway in
            for (arguments, expected) in [
                (["copy-id", "--to", "clipboard"], text), (["copy-id", "--to", "clipboard"], text),
                (["copy-id", "--to", "clipboard", "--new-owner"], text),
                (["dump-json", "--to", "clipboard"], text + ["application/json"]),
            ] {
                let result = try home.run(arguments, extraEnvironment: env(sway))
                #expect(result.status == 0, "\(arguments): \(result)")
                let listed = try Peer.read(["wl-paste", "--list-types"], environment: sway.environment, limit: 20)
                let types = String(decoding: listed.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
                #expect(Set(types) == Set(expected), "\(arguments): \(types)")
                #expect(!types.contains { $0.contains("userdebug") }, "\(arguments): \(types)")
            }
            #expect(try Peer.read(["wl-paste", "-n"], environment: sway.environment).bytes.first == UInt8(ascii: "{"))
        }
    }

    @Test func commandSubstitutionAndAPipeReturnAtOnce() throws {
        try withSway { sway in
            let script = """
                x=$(\(UserDebugHome.binary) copy-id --to clipboard -q); echo "[$x]"
                \(UserDebugHome.binary) copy-id --to clipboard -q | cat; echo "piped:$?"
                """
            let environment = sway.environment.merging(home.environment) { a, _ in a }
            let out = try Peer.read(["bash", "-c", script], environment: environment, limit: 20)
            #expect(out.status == 0, "timed out or failed: \(out.status)")
            #expect(String(decoding: out.bytes, as: UTF8.self) == "[]\npiped:0\n")
        }
    }

    @Test func copyTokenIsMarkedSecretAndCleared() throws {
        try home.file("config/config.json", #"{"clipboard": {"secretClearSeconds": 1}}"#)
        try withSway { sway in
            let result = try home.run(["copy-token", "--to", "clipboard"], extraEnvironment: env(sway))
            #expect(result.status == 0, "\(result)")
            #expect(!result.out.contains(Samples.canary))
            let hint = try Peer.read(
                ["wl-paste", "-n", "--type", "x-kde-passwordManagerHint"], environment: sway.environment)
            #expect(hint.bytes == Array("secret".utf8))
            #expect(
                eventually { (try? Peer.read(["wl-paste", "-n"], environment: sway.environment))?.status != 0 },
                "the token was not cleared")
        }
    }
}
