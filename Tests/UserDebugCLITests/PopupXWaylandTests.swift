import Foundation
import TestSupport
import Testing

/// The popup as an X11 window under XWayland, on a real headless sway: it maps at the pointer,
/// the Wayland seat's keyboard (a wtype virtual keyboard, as a person's keyboard) reaches it, and
/// Enter puts the entry on the clipboard.
@Suite(.serialized, .desktopTier) struct PopupXWaylandTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
    }

    /// XWayland lets in only the compositor's user: that user lets this one (the test's) in too.
    func allowUs(on sway: Sway) throws {
        let environment = ["PATH": "/usr/bin:/bin", "DISPLAY": sway.xDisplay, "HOME": sway.runtimeDir]
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let out = try Peer.read(
            TestUser.runningAs(sway.account) + ["xhost", "+si:localuser:\(user)"], environment: environment, limit: 30)
        try #require(out.status == 0, "xhost: \(String(decoding: out.bytes, as: UTF8.self))")
    }

    func x11(_ sway: Sway) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = sway.xDisplay
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        return environment
    }

    /// Presses `key` on a wtype virtual keyboard until `done` holds (waiting up to 30 s).
    ///
    /// Every wtype is a new keyboard with a keymap of its own, and XWayland drops a key that
    /// comes while it compiles a new keymap: so one key per wtype, always the same one until it
    /// has shown its effect, and only keys whose repetition changes nothing (End, Home), or that
    /// end the popup (Return).
    func press(_ sway: Sway, _ key: String, until done: () -> Bool) -> Bool {
        eventually(timeout: 30) {
            if done() { return true }
            _ = try? Peer.read(["wtype", "-s", "100", "-k", key], environment: sway.environment, limit: 20)
            return eventually(timeout: 0.5, done)
        }
    }

    /// In a sway session (`wayland`: WAYLAND_DISPLAY set as well) the copy goes to the Wayland
    /// clipboard through data-control, read by wl-paste; with only DISPLAY it goes to XWayland's
    /// CLIPBOARD, read by xclip there. (sway 1.7 bridges neither way unless a managed X11 window
    /// has the focus, so each is read where it was made.)
    @Test(arguments: [true, false])
    func underXWaylandItMapsAtThePointerTakesTheWaylandKeyboardAndCopies(wayland: Bool) throws {
        try withSway { sway in
            // A keyboard on the seat for the whole test (the headless sway has none of its own).
            let keyboard = try Peer.start(["wtype", "-s", "600000"], environment: sway.environment)
            defer {
                keyboard.kill()
                keyboard.wait()
            }
            try allowUs(on: sway)
            _ = try Peer.read(["xdotool", "mousemove", "200", "150"], environment: x11(sway), limit: 30)
            var environment = home.environment
            environment["DISPLAY"] = sway.xDisplay
            if wayland {
                environment["WAYLAND_DISPLAY"] = sway.socket
                environment["XDG_RUNTIME_DIR"] = sway.runtimeDir
            }
            let popup = try PopupProcess([PopupTests.popupBinary, "--trace"], environment: environment)
            defer { popup.stop() }
            let mapped = try #require(popup.waitFor { $0.contains("popup mapped at") }, "\(popup.lines)")
            #expect(mapped.contains("popup mapped at 200,150 ") && mapped.contains("(XWayland)"), "\(mapped)")
            _ = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
            // sway gives the keyboard focus to the mapped window (not typed a popup menu under
            // XWayland); the seat's keys then reach it, and its grab.
            func selected(_ id: String) -> Bool {
                popup.lines.last { $0.contains("state {") }?.contains(#""selected":"\#(id)""#) == true
            }
            let atEnd = press(sway, "End") { selected("responses-by-status") }
            try #require(atEnd, "no key of the Wayland seat reached the popup: \(popup.lines)")
            let atHome = press(sway, "Home") { selected("copy-id") }
            try #require(atHome, "\(popup.lines)")
            #expect(press(sway, "Return") { processExited(popup.pid) }, "\(popup.lines)")
            #expect(popup.wait() == 0, "\(popup.lines)")
            #expect(popup.lifecycle.last == "will end (performed copy-id)", "\(popup.lines)")
            let read =
                wayland
                ? try Peer.read(["wl-paste", "-n"], environment: sway.environment, limit: 30)
                : try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x11(sway), limit: 30)
            let text = String(decoding: read.bytes, as: UTF8.self)
            #expect(text == "usr_1", "\(text)")
        }
    }
}
