import Foundation
import TestSupport
import Testing

/// `menu --dmenu` with the real Wayland launchers (fuzzel, wofi, bemenu) on a real headless sway,
/// only WAYLAND_DISPLAY set, keys typed by wtype (the virtual-keyboard protocol) as a person would.
///
/// The headless sway has no input device, so the only keyboard is a wtype virtual keyboard, and
/// it vanishes when that wtype exits: the seat loses its keyboard, the launcher its keyboard
/// focus, and fuzzel closes on losing focus (status 1, nothing chosen). A long-lived wtype that
/// types nothing keeps a keyboard on the seat for the whole test, as a real keyboard would.
@Suite(.serialized, .desktopTier) struct WaylandLauncherTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
    }

    /// The launchers, a filter typed into each (wofi and bemenu match case-sensitively) and the
    /// payload of the action it selects.
    static let choices: [(launcher: String, filter: String, payload: String)] = [
        ("fuzzel --dmenu", "copy name", "Zoë"),
        ("wofi --dmenu", "Identifier", "usr_1"),
        ("bemenu", "Identifier", "usr_1"),
    ]

    /// Runs `body` with a sway whose seat has a keyboard (see the suite's comment), and the
    /// clipboard first owned by wl-copy with `before`.
    func withKeyboard(_ body: (Sway) throws -> Void) throws {
        try withSway { sway in
            let keyboard = try Peer.start(["wtype", "-s", "600000"], environment: sway.environment)
            defer {
                keyboard.kill()
                keyboard.wait()
            }
            // Focus 0 is what `drive` waits for: before any launcher the workspace has the focus.
            let ready = eventually {
                seat(sway).map { $0.devices.contains("virtual keyboard") && $0.focus != 0 } == true
            }
            #expect(ready, "no virtual keyboard, or a layer surface already focused")
            try Peer.own(["wl-copy"], input: Array("before".utf8), environment: sway.environment)
            try body(sway)
        }
    }

    /// The first seat's focused node id (0: a layer surface, such as a launcher, has the keyboard)
    /// and its device names, from `swaymsg -t get_seats`.
    func seat(_ sway: Sway) -> (focus: Int, devices: [String])? {
        guard let out = try? sway.swaymsg(["-t", "get_seats"]),
            let seats = try? JSONSerialization.jsonObject(with: Data(out.bytes)) as? [[String: Any]],
            let first = seats.first, let focus = first["focus"] as? Int
        else { return nil }
        let devices = (first["devices"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        return (focus, devices)
    }

    /// Starts `userdebug menu --dmenu --launcher LAUNCHER --trace` on `sway`, waits until the
    /// launcher's layer surface has the keyboard, then types `keys` (wtype arguments).
    func drive(_ launcher: String, keys: [[String]], on sway: Sway) throws -> (status: Int32, output: String) {
        var environment = home.environment
        environment["WAYLAND_DISPLAY"] = sway.socket
        environment["XDG_RUNTIME_DIR"] = sway.runtimeDir
        let userdebug = [UserDebugHome.binary, "menu", "--dmenu", "--launcher", launcher, "--trace"]
        let child = try Spawned.start(
            ["/bin/sh", "-c", "exec \"$@\" 2>&1", "sh"] + userdebug, environment: environment, pipeOutput: true)
        defer {
            if !processExited(child.pid) {
                child.kill()
                child.wait()
            }
        }
        let focused = eventually(timeout: 30) { seat(sway)?.focus == 0 || processExited(child.pid) }
        #expect(focused && !processExited(child.pid), "\(launcher) never took the keyboard")
        for arguments in keys {
            let typed = try Peer.read(["wtype"] + arguments, environment: sway.environment, limit: 20)
            #expect(typed.status == 0, "wtype \(arguments) failed")
        }
        if !eventually(timeout: 30, { processExited(child.pid) }) { child.kill() }
        let output = String(decoding: child.receiveAll(), as: UTF8.self)
        return (child.wait(), output)
    }

    func clipboard(_ sway: Sway) throws -> String {
        String(
            decoding: try Peer.read(["wl-paste", "-n"], environment: sway.environment, limit: 20).bytes, as: UTF8.self)
    }

    @Test(arguments: choices)
    func typingPartOfALineAndReturnCopiesItsPayload(_ choice: (launcher: String, filter: String, payload: String))
        throws
    {
        try withKeyboard { sway in
            // bemenu keeps one key per event dispatch: the keys are paced, Return sent on its own.
            let keys = [["-d", "30", choice.filter], ["-k", "Return"]]
            let result = try drive(choice.launcher, keys: keys, on: sway)
            #expect(result.status == 0, "\(choice.launcher): \(result.output)")
            #expect(result.output.contains("will perform"), "\(result.output)")
            #expect(try clipboard(sway) == choice.payload, "\(choice.launcher)")
        }
    }

    @Test(arguments: choices.map(\.launcher))
    func escapeRunsNothingExitsOneAndLeavesTheClipboard(_ launcher: String) throws {
        try withKeyboard { sway in
            let result = try drive(launcher, keys: [["-k", "Escape"]], on: sway)
            #expect(result.status == 1, "\(launcher): \(result.output)")
            #expect(!result.output.contains("will perform"), "\(result.output)")
            #expect(try clipboard(sway) == "before", "\(launcher)")
        }
    }
}
