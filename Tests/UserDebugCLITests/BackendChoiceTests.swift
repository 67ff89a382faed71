import Foundation
import TestSupport
import Testing
import UserDebugKit
import WaylandClipboard

@testable import UserDebugCLI

/// The backend rule on its own: every branch, and which of them ask the compositor.
@Suite struct BackendRuleTests {
    /// Applies the rule with a probe that answers `finding` and counts its calls.
    func choose(
        _ preference: ClipboardBackendPreference, _ display: String?, _ finding: WaylandFinding,
        source: BackendChoice.Source = .none
    ) -> (BackendChoice, Int) {
        var calls = 0
        let choice = BackendChoice.choose(preference, from: source, waylandDisplay: display) {
            calls += 1
            return finding
        }
        return (choice, calls)
    }

    static let wlr = WaylandFinding.dataControl(interface: "zwlr_data_control_manager_v1", version: 2)

    @Test func underPlainX11NothingIsAskedOfWayland() {
        for display in [nil, ""] as [String?] {
            let (choice, calls) = choose(.auto, display, Self.wlr)
            #expect(choice.route == .x11 && calls == 0, "\(choice)")
            #expect(choice.reason == "WAYLAND_DISPLAY is not set: X11")
            #expect(choice.wayland == .notSet)
        }
    }

    @Test func aCompositorWithDataControlIsWayland() {
        let (choice, calls) = choose(.auto, "wayland-1", Self.wlr)
        #expect(choice.route == .wayland && calls == 1)
        #expect(choice.reason == "WAYLAND_DISPLAY=wayland-1 answers and offers zwlr_data_control_manager_v1 version 2")
    }

    @Test func aCompositorWithoutDataControlIsX11ThroughXWayland() {
        for finding in [
            WaylandFinding.noDataControl(family: .other), .noSeat(interface: "ext_data_control_manager_v1"),
        ] {
            let (choice, calls) = choose(.auto, "wayland-0", finding)
            #expect(choice.route == .x11 && calls == 1)
            #expect(choice.reason.hasSuffix(": X11 through XWayland"), "\(choice.reason)")
        }
        #expect(
            choose(.auto, "wayland-0", .noDataControl(family: .other)).0.reason.contains(
                "offers no data-control protocol"))
    }

    @Test func aCompositorThatDoesNotAnswerIsX11() {
        let (choice, calls) = choose(.auto, "wayland-9", .notAnswering("no socket"))
        #expect(choice.route == .x11 && calls == 1)
        #expect(choice.reason == "WAYLAND_DISPLAY=wayland-9 does not answer (no socket): X11")
    }

    @Test func aForcedX11AsksNothing() {
        let (choice, calls) = choose(.x11, "wayland-1", Self.wlr, source: .option)
        #expect(choice.route == .x11 && calls == 0 && choice.wayland == nil)
        #expect(choice.reason == "--backend x11")
    }

    @Test func aForcedWaylandIsWaylandOnlyWithDataControl() {
        #expect(choose(.wayland, "wayland-1", Self.wlr, source: .config).0.route == .wayland)
        let (unset, unsetCalls) = choose(.wayland, nil, Self.wlr, source: .option)
        #expect(unset.route == .unavailable && unsetCalls == 0)
        #expect(unset.reason == "--backend wayland, but WAYLAND_DISPLAY is not set")
        let (bare, _) = choose(.wayland, "wayland-0", .noDataControl(family: .other), source: .config)
        #expect(bare.route == .unavailable)
        #expect(bare.reason.hasPrefix("clipboard.backend wayland, but WAYLAND_DISPLAY=wayland-0 answers but offers no"))
        #expect(bare.reason.hasSuffix("; use --backend x11 (XWayland) on this compositor"))
        let (silent, _) = choose(.wayland, "wayland-9", .notAnswering("refused"), source: .option)
        #expect(silent.route == .unavailable && silent.reason.contains("does not answer (refused)"))
    }
}

/// `--backend`, `clipboard.backend` and `doctor` through the built binary.
@Suite struct BackendOptionTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    @Test(arguments: [
        ["copy-id", "--backend", "wlroots"], ["paste", "--backend", "X11"], ["doctor", "--backend", ""],
        ["copy", "--backend", "gnome"], ["session", "import", "--from-clipboard", "--backend", "kde"],
    ])
    func anUnknownBackendIsAUsageError(_ arguments: [String]) throws {
        let result = try home.run(arguments, stdin: Data("x".utf8))
        #expect(result.status == 64, "\(result)")
        #expect(result.err.contains("unknown --backend '\(arguments.last!)'; expected one of: auto, wayland, x11"))
    }

    @Test func aMissingBackendValueIsAUsageError() throws {
        let result = try home.run(["copy-id", "--backend"])
        #expect(result.status == 64, "\(result)")
        #expect(result.err.contains("--backend"))
    }

    @Test func aBadConfigValueIsExit78WithItsPlace() throws {
        try home.file("config/config.json", "{\n  \"clipboard\": {\"backend\": \"sway\"}\n}\n")
        for arguments in [["copy-id", "--to", "clipboard"], ["doctor"], ["paste"]] {
            let result = try home.run(arguments)
            #expect(result.status == 78, "\(arguments): \(result)")
            #expect(
                result.err.contains(
                    "config.json:2:28: clipboard.backend: expected one of \"auto\", \"wayland\", \"x11\", got \"sway\""),
                "\(result)")
        }
        // Output to stdout reads no clipboard setting, so the file's bad backend does not stop it.
        #expect(try home.run(["copy-id", "--to", "stdout", "--backend", "x11"]).status == 0)
    }

    @Test func aForcedWaylandWithoutACompositorIsExit69NamingWhy() throws {
        let result = try home.run(["copy-id", "--to", "clipboard", "--backend", "wayland"])
        #expect(result.status == 69, "\(result)")
        #expect(result.err.contains("no clipboard: --backend wayland, but WAYLAND_DISPLAY is not set"), "\(result)")
        let missing = try home.run(
            ["copy-id", "--to", "clipboard", "--backend", "wayland"],
            extraEnvironment: ["WAYLAND_DISPLAY": "wayland-none", "XDG_RUNTIME_DIR": home.root.path])
        #expect(missing.status == 69, "\(missing)")
        #expect(missing.err.contains("WAYLAND_DISPLAY=wayland-none does not answer"), "\(missing)")
    }

    @Test func aForcedWaylandFromTheConfigFallsBackUnderAutoWithTheReason() throws {
        try home.file("config/config.json", #"{"clipboard": {"backend": "wayland"}}"#)
        // stdout and stderr one regular file: a desktop log, where auto tries the clipboard.
        let log = home.root.appendingPathComponent("session.log").path
        let out = try Peer.read(
            ["sh", "-c", "'\(UserDebugHome.binary)' copy-id >>'\(log)' 2>&1; echo $?"], environment: home.environment)
        #expect(String(decoding: out.bytes, as: UTF8.self) == "0\n")
        let text = String(decoding: readWholeFile(log) ?? [], as: UTF8.self)
        #expect(
            text.contains(
                "no clipboard: clipboard.backend wayland, but WAYLAND_DISPLAY is not set; writing to standard output"),
            "\(text)")
        #expect(text.hasSuffix("usr_1\n"), "\(text)")
    }

    @Test func doctorWithNothingToTalkTo() throws {
        // No display: the health check's first problem is the desktop (69).
        let text = try home.doctor(status: 69).out
        #expect(text.hasPrefix("backend: stdout\n"), "\(text)")
        #expect(text.contains("reason: WAYLAND_DISPLAY is not set: X11; DISPLAY is not set; --to auto writes"))
        #expect(text.contains("preference: auto (the default)\n"))
        let json = try JSONParser().parse(
            Array(try home.doctor(["--json", "--backend", "wayland"], status: 69).stdout))
        #expect(json["backend"]?.stringValue == "stdout")
        #expect(json["preference"]?.stringValue == "wayland" && json["preferenceFrom"]?.stringValue == "--backend")
        #expect(json["reason"]?.stringValue?.hasPrefix("--backend wayland, but WAYLAND_DISPLAY is not set") == true)
        #expect(json["wayland"]?["display"] == .null && json["wayland"]?["answers"] == .bool(false))
        #expect(json["x11"]?["answers"] == .bool(false))
    }

    @Test func doctorOnAnXServerSeesTheClipboardAndItsOwner() throws {
        try withXvfb { x in
            let environment = ["DISPLAY": x.display]
            let before = try JSONParser().parse(
                Array(try home.doctor(["--json"], status: 69, extraEnvironment: environment).stdout))
            #expect(before["backend"]?.stringValue == "x11", "\(before)")
            #expect(before["x11"]?["answers"] == .bool(true) && before["x11"]?["clipboardOwned"] == .bool(false))
            try home.ok(["copy-id", "--to", "clipboard", "--backend", "x11"], extraEnvironment: environment)
            // No session bus here: the notifications line is the first problem (69).
            let after = try home.doctor(status: 69, extraEnvironment: environment).out
            #expect(after.contains("DISPLAY: \(x.display) — answers; CLIPBOARD has an owner"), "\(after)")
            let forced = try home.doctor(["--backend", "wayland"], status: 69, extraEnvironment: environment).out
            #expect(forced.hasPrefix("backend: stdout\n"), "\(forced)")
        }
    }
}

/// The XWayland route under weston (no data-control): X11 copies reach Wayland clients through
/// the bridge, and `auto` picks X11 there.
@Suite(.serialized, .desktopTier) struct WestonRouteTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func wlPaste(_ weston: Weston) throws -> Peer.Output {
        try Peer.read(["wl-paste", "-n"], environment: weston.environment, limit: 20)
    }

    /// wl-paste's read once the bridge offers text, read after read until it gives `expected`
    /// (the bridge takes an X11 copy over asynchronously) or 10 s pass; the last read. weston 10's
    /// bridge serves one Wayland read at a time: a second read during a transfer gets both
    /// answers written into one pipe and then crashes weston (three wl-paste started together do
    /// it every time; a CI run lost weston so, with two transfers in its log). So no read starts
    /// before the offer, and none while another runs.
    func bridgedPaste(_ weston: Weston, _ expected: [UInt8]) -> Peer.Output? {
        var last: Peer.Output? = nil
        _ = eventually(timeout: 10) {
            guard let types = try? Peer.read(["wl-paste", "-l"], environment: weston.environment, limit: 10),
                String(decoding: types.bytes, as: UTF8.self).contains("text/plain;charset=utf-8")
            else { return false }
            last = try? wlPaste(weston)
            return last?.status == 0 && last?.bytes == expected
        }
        return last
    }

    func clientEnvironment(_ weston: Weston) -> [String: String] {
        ["DISPLAY": weston.xwayland, "WAYLAND_DISPLAY": weston.socket, "XDG_RUNTIME_DIR": weston.runtimeDir]
    }

    @Test func anX11CopyIsReadByWlPasteAndAutoPicksX11() throws {
        try withWeston { weston in
            let environment = clientEnvironment(weston)
            let forced = try home.run(
                ["copy-id", "--to", "clipboard", "--backend", "x11"], extraEnvironment: environment)
            #expect(forced.status == 0, "\(forced)")
            // The bridge takes the X11 selection over asynchronously: read until it carries the
            // copy, within a deadline.
            let pasted = bridgedPaste(weston, Array("usr_1".utf8))
            #expect(pasted?.status == 0 && pasted?.bytes == Array("usr_1".utf8), "\(String(describing: pasted))")

            try home.ok(["session", "set", "--id", "usr_2", "--name", "Bo"])
            let auto = try home.run(["copy-id", "--to", "clipboard"], extraEnvironment: environment)
            #expect(auto.status == 0, "\(auto)")
            let second = bridgedPaste(weston, Array("usr_2".utf8))
            #expect(second?.bytes == Array("usr_2".utf8), "\(String(describing: second))")

            let doctor = try JSONParser().parse(
                Array(try home.doctor(["--json"], status: 69, extraEnvironment: environment).stdout))
            #expect(doctor["backend"]?.stringValue == "x11", "\(doctor)")
            #expect(doctor["wayland"]?["answers"] == .bool(true) && doctor["wayland"]?["dataControl"] == .null)
            #expect(doctor["reason"]?.stringValue?.contains("offers no data-control protocol") == true)
            #expect(doctor["reason"]?.stringValue?.contains("X11 through XWayland") == true)
            #expect(doctor["x11"]?["answers"] == .bool(true))
        }
    }

    /// 1 MiB of text (which weston 10's bridge hands Wayland clients as the 4-byte size of an INCR
    /// transfer) is refused with the limit; text of the limit's size arrives whole through the
    /// bridge; one byte over is refused with the limit, and bytes
    /// that are not UTF-8 (which the bridge does not carry at all) are refused as such. Nothing
    /// refused is served.
    @Test func whatTheBridgeCannotCarryIsRefusedWithItsLimit() throws {
        try withWeston { weston in
            let environment = clientEnvironment(weston)
            let over = try home.run(
                ["copy", "-q"], stdin: Data(repeating: 0x61, count: 1 << 20), extraEnvironment: environment)
            #expect(over.status == 69, "\(over)")
            #expect(over.err.contains("the X11 copy of 1048576 bytes would not reach Wayland clients whole"), "\(over)")
            let limit = try #require(
                over.err.split(separator: "carries at most ").dropFirst().first.flatMap {
                    Int($0.prefix { $0.isNumber })
                },
                "\(over)")
            #expect(limit > 0 && limit < 1 << 20, "\(over)")
            let whole = Array(repeating: UInt8(ascii: "b"), count: limit)
            let fits = try home.run(["copy", "-q"], stdin: Data(whole), extraEnvironment: environment)
            #expect(fits.status == 0, "\(fits)")
            let pasted = bridgedPaste(weston, whole)
            #expect(pasted?.bytes == whole, "\(pasted?.bytes.count ?? 0) bytes")
            let oneMore = try home.run(["copy", "-q"], stdin: Data(whole + [0x62]), extraEnvironment: environment)
            #expect(oneMore.status == 69 && oneMore.err.contains("carries at most \(limit) bytes"), "\(oneMore)")
            #expect(try wlPaste(weston).bytes == whole, "a refused copy replaced the selection")

            let binary = try home.run(["copy", "-q"], stdin: Data([0xff, 0x00, 0xfe]), extraEnvironment: environment)
            #expect(binary.status == 69, "\(binary)")
            #expect(binary.err.contains("carries text only"), "\(binary)")

            let primary = try home.run(["copy-id", "--to", "primary"], extraEnvironment: environment)
            #expect(primary.status == 69 && primary.err.contains("carries CLIPBOARD only"), "\(primary)")
        }
    }

    /// A secret copied with `--backend x11` goes through the same bridge as one the rule sends there,
    /// and says the same: the hint does not reach Wayland clients (the route's own look at the
    /// compositor tells, as the rule does not ask when x11 is forced). And it is so: wl-paste gets
    /// the token as text but no hint.
    @Test func aForcedX11SecretThereSaysTheBridgeDropsTheHint() throws {
        try withWeston { weston in
            let result = try home.run(
                ["copy-token", "--to", "clipboard", "--backend", "x11"], extraEnvironment: clientEnvironment(weston))
            #expect(result.status == 0, "\(result)")
            #expect(
                result.err.contains("weston's XWayland bridge drops the secret hint (x-kde-passwordManagerHint)"),
                "\(result)")
            let pasted = bridgedPaste(weston, Array(Samples.canary.utf8))
            #expect(pasted?.bytes == Array(Samples.canary.utf8), "\(String(describing: pasted))")
            let types = try Peer.read(["wl-paste", "-l"], environment: weston.environment, limit: 10)
            #expect(!String(decoding: types.bytes, as: UTF8.self).contains("x-kde-passwordManagerHint"), "\(types)")
        }
    }

    @Test func aForcedWaylandThereSaysToUseX11() throws {
        try withWeston { weston in
            let result = try home.run(
                ["copy-id", "--to", "clipboard", "--backend", "wayland"], extraEnvironment: clientEnvironment(weston))
            #expect(result.status == 69, "\(result)")
            #expect(result.err.contains("offers no data-control protocol"), "\(result)")
            #expect(result.err.contains("use --backend x11 (XWayland) on this compositor"), "\(result)")
        }
    }
}

/// No silent loss on sway: an X11 copy that sway keeps from Wayland clients (no X11 window has
/// the focus) fails, naming the limit and `--backend wayland`; one it takes over succeeds; and
/// `auto` goes through data-control, which needs no focus.
@Suite(.serialized, .desktopTier) struct SwayX11RouteTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        // sway starts XWayland on the first X11 client, which is our copy: on a loaded machine
        // that takes longer than the default 1 s connect timeout (which also bounds the read-back).
        try home.file("config/config.json", #"{"clipboard": {"connectTimeoutSeconds": 10}}"#)
    }

    func clientEnvironment(_ sway: Sway) -> [String: String] {
        ["DISPLAY": sway.xDisplay, "WAYLAND_DISPLAY": sway.socket, "XDG_RUNTIME_DIR": sway.runtimeDir]
    }

    /// Runs the binary as sway's own user, as a hotkey would: sway's XWayland refuses X clients
    /// of other users (root included). The home becomes that user's first.
    func run(_ sway: Sway, _ arguments: [String]) throws -> RunResult {
        let chown = try runTool("/bin/chown", ["-R", "\(sway.account.uid):\(sway.account.gid)", home.root.path])
        try #require(chown.status == 0, "\(chown)")
        return try runTool(
            "/usr/bin/setpriv",
            Array(TestUser.runningAs(sway.account).dropFirst()) + [UserDebugHome.binary] + arguments,
            environment: home.environment.merging(clientEnvironment(sway)) { $1 })
    }

    func wlPaste(_ sway: Sway) throws -> Peer.Output {
        try Peer.read(["wl-paste", "-n"], environment: sway.environment, limit: 20)
    }

    @Test func anX11CopyWithoutX11FocusFailsInsteadOfVanishing() throws {
        try withSway { sway in
            let result = try run(sway, ["copy-id", "--to", "clipboard", "--backend", "x11"])
            #expect(result.status == 69, "\(result)")
            #expect(result.err.contains("the X11 copy did not reach Wayland clients"), "\(result)")
            #expect(result.err.contains("use --backend wayland"), "\(result)")
            #expect(try wlPaste(sway).bytes != Array("usr_1".utf8), "then the check was wrong")
        }
    }

    /// What an X11 client of sway's user reads from XWayland's CLIPBOARD (xclip, as that user:
    /// XWayland refuses other users' clients).
    func xclipPaste(_ sway: Sway) throws -> [UInt8] {
        try Peer.read(
            TestUser.runningAs(sway.account) + ["xclip", "-o", "-selection", "clipboard"],
            environment: ["DISPLAY": sway.xDisplay, "PATH": "/usr/bin:/bin"], limit: 20
        ).bytes
    }

    /// Runs the binary as sway's user as `run` does, with `environment` instead of the client's.
    func run(_ sway: Sway, _ arguments: [String], environment: [String: String]) throws -> RunResult {
        let chown = try runTool("/bin/chown", ["-R", "\(sway.account.uid):\(sway.account.gid)", home.root.path])
        try #require(chown.status == 0, "\(chown)")
        return try runTool(
            "/usr/bin/setpriv",
            Array(TestUser.runningAs(sway.account).dropFirst()) + [UserDebugHome.binary] + arguments,
            environment: home.environment.merging(environment) { $1 })
    }

    @Test func aFailedX11CopyStopsServingItsValue() throws {
        try withSway { sway in
            let result = try run(sway, ["copy-id", "--to", "clipboard", "--backend", "x11"])
            #expect(result.status == 69, "\(result)")
            #expect(
                eventually(timeout: 5) { (try? xclipPaste(sway)) != Array("usr_1".utf8) },
                "the X11 owner of a copy that exited 69 still serves its value")
        }
    }

    /// A hotkey tool without WAYLAND_DISPLAY (started before the session exported it): the copy
    /// finds sway's socket in XDG_RUNTIME_DIR and copies through data-control, to both
    /// selections, with no window focused (an X11 copy would vanish there).
    @Test func withoutWaylandDisplayTheCompositorIsFoundInTheRuntimeDirectory() throws {
        try withSway { sway in
            let environment = ["DISPLAY": sway.xDisplay, "XDG_RUNTIME_DIR": sway.runtimeDir]
            for (selection, flags) in [("clipboard", ["-n"]), ("primary", ["-n", "-p"])] {
                let result = try run(sway, ["copy-id", "--to", selection], environment: environment)
                #expect(result.status == 0, "\(result)")
                let pasted = try Peer.read(["wl-paste"] + flags, environment: sway.environment, limit: 20)
                #expect(pasted.bytes == Array("usr_1".utf8), "\(selection): \(result)")
            }
            let doctor = try run(sway, ["doctor"], environment: environment)
            #expect(doctor.out.contains("backend: wayland"), "\(doctor)")
            #expect(doctor.out.contains("WAYLAND_DISPLAY is not set; \(sway.socket) (ours, found)"), "\(doctor)")
            #expect(doctor.out.contains("WAYLAND_DISPLAY: not set; found \(sway.socket) — answers"), "\(doctor)")
        }
    }

    /// Without WAYLAND_DISPLAY, and with nothing of ours answering on the `wayland-0` socket of
    /// ours in XDG_RUNTIME_DIR (a stale one), an X11 copy into sway's XWayland cannot be checked:
    /// exit 69 naming the cause and the fix instead of "copied", and its owner stops serving.
    @Test func anUnreachableCompositorUnderXWaylandIsExit69NamingTheFix() throws {
        try withSway { sway in
            let runtime = try staleRuntimeDirectory(for: sway.account)
            defer { try? FileManager.default.removeItem(atPath: runtime) }
            let environment = ["DISPLAY": sway.xDisplay, "XDG_RUNTIME_DIR": runtime]
            let result = try run(sway, ["copy-id", "--to", "clipboard"], environment: environment)
            #expect(result.status == 69, "\(result)")
            #expect(!result.err.contains("copied"), "\(result)")
            #expect(result.err.contains("DISPLAY is XWayland"), "\(result)")
            #expect(result.err.contains("systemctl --user import-environment WAYLAND_DISPLAY"), "\(result)")
            #expect(
                result.err.contains("nothing of ours listens on the wayland-N sockets of ours in \(runtime)"),
                "\(result)")
            #expect(
                eventually(timeout: 5) { (try? xclipPaste(sway)) != Array("usr_1".utf8) },
                "the X11 owner of a copy that exited 69 still serves its value")
        }
    }

    /// The same under `--to auto` on a terminal: the result on standard output with the reason,
    /// never "copied".
    @Test func anUnreachableCompositorUnderAutoFallsBackToStandardOutputWithTheReason() throws {
        try withSway { sway in
            let runtime = try staleRuntimeDirectory(for: sway.account)
            defer { try? FileManager.default.removeItem(atPath: runtime) }
            let chown = try runTool("/bin/chown", ["-R", "\(sway.account.uid):\(sway.account.gid)", home.root.path])
            try #require(chown.status == 0, "\(chown)")
            let command = (TestUser.runningAs(sway.account) + [UserDebugHome.binary, "copy-id"]).joined(separator: " ")
            let environment = home.environment.merging(["DISPLAY": sway.xDisplay, "XDG_RUNTIME_DIR": runtime]) { $1 }
            let out = try Peer.read(["script", "-qec", command, "/dev/null"], environment: environment, limit: 30)
            let text = String(decoding: out.bytes, as: UTF8.self)
            #expect(out.status == 0, "\(text)")
            #expect(text.contains("usr_1"), "\(text)")
            #expect(text.contains("no clipboard (the X11 copy may not reach Wayland clients"), "\(text)")
            #expect(!text.contains("copied"), "\(text)")
        }
    }

    /// A runtime directory of the account's own holding a `wayland-0` socket that nothing listens on.
    func staleRuntimeDirectory(for account: TestUser.Account) throws -> String {
        var template = Array("/tmp/userdebug-stale-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }
        let dir = try #require(made.map { String(cString: $0) })
        let path = dir + "/wayland-0"
        let fd = try #require(UnixSocket.bound(to: path), "bind \(path): errno \(errno)")
        close(fd)
        try #require(chown(path, account.uid, account.gid) == 0 && chown(dir, account.uid, account.gid) == 0)
        return dir
    }

    @Test func anX11CopyWithAnX11WindowFocusedReachesWaylandClients() throws {
        try withSway { sway in
            let window = try sway.startWindow(["xmessage", "-geometry", "200x50", "x11 window"], x11: true)
            try #require(sway.focus(pid: window.pid), "the X11 window never got the focus")
            let result = try run(sway, ["copy-id", "--to", "clipboard", "--backend", "x11"])
            #expect(result.status == 0, "\(result)")
            #expect(try wlPaste(sway).bytes == Array("usr_1".utf8))
        }
    }

    /// The premise of the check on wlroots compositors without data-control (cage), tested where
    /// data-control can read the Wayland side back: `_NET_ACTIVE_WINDOW` on XWayland's root is None
    /// while a Wayland window has the focus, when sway keeps an X11 copy from Wayland clients, and
    /// names a window once an X11 window has it, when sway takes the copy over. (Wayland first: once
    /// an X11 copy was taken over, sway's proxy of it reads the X11 selection live, so later X11
    /// copies reach Wayland clients whatever has the focus; the check on cage refuses those too.)
    @Test func theActiveX11WindowTellsWhetherWlrootsTakesAnX11Copy() throws {
        try withSway { sway in
            func activeX11Window() -> Bool {
                guard
                    let out = try? Peer.read(
                        TestUser.runningAs(sway.account) + ["xprop", "-root", "_NET_ACTIVE_WINDOW"],
                        environment: ["DISPLAY": sway.xDisplay, "PATH": "/usr/bin:/bin"], limit: 10), out.status == 0
                else { return false }
                let text = String(decoding: out.bytes, as: UTF8.self)
                guard let range = text.range(of: "window id # ") else { return false }
                let id = text[range.upperBound...].prefix { !$0.isWhitespace && $0 != "," }
                return !id.isEmpty && id != "0x0"
            }
            let wayland = try sway.startWindow(["foot", "sleep", "60"])
            try #require(sway.focus(pid: wayland.pid), "the Wayland window never got the focus")
            #expect(eventually(timeout: 10) { !activeX11Window() }, "a Wayland window has the focus, yet one is active")
            let kept = try run(sway, ["copy-id", "--to", "clipboard", "--backend", "x11"])
            #expect(kept.status == 69, "\(kept)")
            #expect(kept.err.contains("the X11 copy did not reach Wayland clients"), "\(kept)")

            let x11 = try sway.startWindow(["xmessage", "-geometry", "200x50", "x11 window"], x11: true)
            try #require(sway.focus(pid: x11.pid), "the X11 window never got the focus")
            #expect(eventually(timeout: 10) { activeX11Window() }, "an X11 window has the focus, none is active")
            let taken = try run(sway, ["copy-id", "--to", "clipboard", "--backend", "x11"])
            #expect(taken.status == 0, "\(taken)")
            #expect(try wlPaste(sway).bytes == Array("usr_1".utf8))
        }
    }

    @Test func autoTakesDataControlOnSwayEvenWithXWaylandThere() throws {
        try withSway { sway in
            let environment = clientEnvironment(sway)
            let doctor = try JSONParser().parse(
                Array(try home.doctor(["--json"], status: 69, extraEnvironment: environment).stdout))
            #expect(doctor["backend"]?.stringValue == "wayland", "\(doctor)")
            #expect(doctor["wayland"]?["dataControl"]?["interface"]?.stringValue == "zwlr_data_control_manager_v1")
            #expect(doctor["wayland"]?["dataControl"]?["version"] == .number("2"), "\(doctor)")
            let result = try home.run(["copy-id", "--to", "clipboard"], extraEnvironment: environment)
            #expect(result.status == 0, "\(result)")
            #expect(try wlPaste(sway).bytes == Array("usr_1".utf8))
            let forced = try home.doctor(["--backend", "x11"], status: 69, extraEnvironment: environment).out
            #expect(forced.contains("each X11 copy is read back through data-control"), "\(forced)")
        }
    }
}

/// What a failure through the chosen backend tells the user, and when `--to auto` falls back.
@Suite struct ClipboardRouteErrorTests {
    static let onSway = BackendChoice(
        route: .x11, reason: "--backend x11",
        wayland: .dataControl(interface: "zwlr_data_control_manager_v1", version: 2))
    static let onWayland = BackendChoice(route: .wayland, reason: "WAYLAND_DISPLAY=w answers", wayland: nil)

    @Test func eachProblemHasItsStatusAndReason() {
        let lost = ErrorReport.route(ClipboardRouteError(problem: .notBridged, choice: Self.onSway))
        #expect(lost.0 == .unavailable)
        #expect(lost.1.contains("did not reach Wayland clients") && lost.1.hasSuffix("use --backend wayland"))
        let refused = ErrorReport.route(
            ClipboardRouteError(
                problem: .backend(.ownershipNotConfirmed(reason: "the compositor cancelled our source at once")),
                choice: Self.onWayland))
        #expect(
            refused.0 == .unavailable && refused.1.contains("Wayland compositor did not make our copy the selection"))
        #expect(refused.1.hasSuffix(": the compositor cancelled our source at once"), "the reason reaches the user")
        let silent = ErrorReport.route(
            ClipboardRouteError(problem: .backend(.noDisplay(reason: "timed out")), choice: Self.onWayland))
        #expect(silent.1 == "the Wayland compositor does not answer: timed out")
        let x11 = ErrorReport.route(
            ClipboardRouteError(problem: .backend(.noDisplay(reason: "DISPLAY is not set")), choice: Self.onSway))
        #expect(x11.1 == "no X display answers: DISPLAY is not set (--backend x11)")
        let plain = BackendChoice(route: .x11, reason: "WAYLAND_DISPLAY is not set: X11", wayland: .notSet)
        let unchanged = ErrorReport.route(
            ClipboardRouteError(problem: .backend(.noDisplay(reason: "DISPLAY is not set")), choice: plain))
        #expect(unchanged.1 == "no X display answers: DISPLAY is not set", "plain X11 says what it always said")
    }

    @Test func onlyNoClipboardFallsBackToStandardOutput() {
        #expect(ClipboardRouteError(problem: .unavailable, choice: Self.onWayland).meansNoClipboard)
        #expect(ClipboardRouteError(problem: .backend(.noDisplay(reason: "x")), choice: Self.onSway).meansNoClipboard)
        #expect(!ClipboardRouteError(problem: .notBridged, choice: Self.onSway).meansNoClipboard)
        #expect(
            !ClipboardRouteError(problem: .backend(.ownershipNotConfirmed(reason: "x")), choice: Self.onSway)
                .meansNoClipboard)
    }
}

/// cage (wlroots without data-control) takes an X11 copy over from XWayland only while an X11
/// window has the focus: without one a copy is refused, naming the cause and the fix, nothing is
/// served, and `--to auto` falls back to standard output with the reason; with one it is copied.
@Suite(.serialized, .desktopTier) struct CageRouteTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        // cage starts XWayland on the first X11 client, which is our copy.
        try home.file("config/config.json", #"{"clipboard": {"connectTimeoutSeconds": 10}}"#)
    }

    func withCage<R>(_ body: (Cage) throws -> R) throws -> R {
        let cage = try Cage.start()
        defer { cage.stop() }
        let chown = try runTool("/bin/chown", ["-R", "\(cage.account.uid):\(cage.account.gid)", home.root.path])
        try #require(chown.status == 0, "\(chown)")
        return try body(cage)
    }

    func environment(_ cage: Cage) -> [String: String] {
        home.environment.merging(
            ["DISPLAY": cage.xDisplay, "WAYLAND_DISPLAY": cage.socket, "XDG_RUNTIME_DIR": cage.runtimeDir]) { $1 }
    }

    func run(_ cage: Cage, _ arguments: [String]) throws -> RunResult {
        try runTool(
            "/usr/bin/setpriv",
            Array(TestUser.runningAs(cage.account).dropFirst()) + [UserDebugHome.binary] + arguments,
            environment: environment(cage))
    }

    func xclipPaste(_ cage: Cage) throws -> [UInt8] {
        try Peer.read(
            TestUser.runningAs(cage.account) + ["xclip", "-o", "-selection", "clipboard"],
            environment: ["DISPLAY": cage.xDisplay, "PATH": "/usr/bin:/bin"], limit: 20
        ).bytes
    }

    @Test func withoutAnX11WindowFocusedACopyIsRefusedNamingTheFix() throws {
        try withCage { cage in
            #expect(!cage.activeX11Window(), "an X11 window has the focus already")
            let result = try run(cage, ["copy-id", "--to", "clipboard"])
            #expect(result.status == 69, "\(result)")
            #expect(!result.err.contains("copied"), "\(result)")
            #expect(result.err.contains("only while an X11 window has keyboard focus"), "\(result)")
            #expect(result.err.contains("focus an X11 window and copy again"), "\(result)")
            #expect(try xclipPaste(cage) != Array("usr_1".utf8), "a refused copy is served")

            let command = (TestUser.runningAs(cage.account) + [UserDebugHome.binary, "copy-id"])
                .joined(separator: " ")
            let out = try Peer.read(
                ["script", "-qec", command, "/dev/null"], environment: environment(cage), limit: 30)
            let text = String(decoding: out.bytes, as: UTF8.self)
            #expect(out.status == 0, "\(text)")
            #expect(text.contains("usr_1"), "\(text)")
            #expect(text.contains("no clipboard (the X11 copy would not reach Wayland clients"), "\(text)")
            #expect(!text.contains("copied"), "\(text)")
        }
    }

    @Test func withAnX11WindowFocusedACopyGoesThrough() throws {
        try withCage { cage in
            try #require(try cage.focusX11Window(), "no X11 window got cage's focus")
            let result = try run(cage, ["copy-id", "--to", "clipboard"])
            #expect(result.status == 0, "\(result)")
            #expect(result.err.contains("copied 5 bytes to CLIPBOARD"), "\(result)")
            #expect(try xclipPaste(cage) == Array("usr_1".utf8))
        }
    }
}
