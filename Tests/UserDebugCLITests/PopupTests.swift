import Foundation
import Synchronization
import TestSupport
import Testing

/// The popup debug menu (`userdebug menu --popup`, the `userdebug-popup` program) on a real Xvfb
/// without a window manager, driven by xdotool as a user would drive it. The tests read what the
/// popup feeds its window from `--trace` (its `state {…}` lines) and what ends up on the
/// clipboard (xclip), never pixels.
@Suite(.serialized, .desktopTier) final class PopupTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
    }

    static let popupBinary = URL(fileURLWithPath: UserDebugHome.binary).deletingLastPathComponent()
        .appendingPathComponent("userdebug-popup").path

    /// Runs xdotool with `arguments` on `x`'s display.
    func xdotool(_ x: Xvfb, _ arguments: [String]) throws -> String {
        let output = try Peer.read(["xdotool"] + arguments, environment: x.environment, limit: 30)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    func clipboard(_ x: Xvfb) throws -> String {
        String(
            decoding: try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment).bytes,
            as: UTF8.self)
    }

    /// Starts the popup (through `userdebug menu --popup` with `viaCLI`) with `--trace`.
    func popup(_ x: Xvfb, viaCLI: Bool = false, extra: [String] = []) throws -> PopupProcess {
        let command = viaCLI ? [UserDebugHome.binary, "menu", "--popup"] : [Self.popupBinary]
        return try PopupProcess(
            command + ["--trace"] + extra, environment: home.environment.merging(["DISPLAY": x.display]) { $1 })
    }

    @Test func opensAtThePointerGoesIntoASubmenuAndCopiesTheChosenEntry() throws {
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            _ = try xdotool(x, ["mousemove", "200", "150"])
            let popup = try popup(x)
            defer { popup.stop() }
            let mapped = try #require(popup.waitFor { $0.contains("popup mapped at") }, "\(popup.lines)")
            #expect(mapped.contains("popup mapped at 200,150 "), "\(mapped)")
            let window = try #require(mapped.split(separator: " ").drop { $0 != "window" }.dropFirst().first)
            let info = try Peer.read(["xwininfo", "-id", String(window)], environment: x.environment)
            let text = String(decoding: info.bytes, as: UTF8.self)
            #expect(
                text.contains("Absolute upper-left X:  200") && text.contains("Absolute upper-left Y:  150"), "\(text)")
            _ = try #require(popup.waitFor { $0.contains("state {") })
            _ = try xdotool(x, ["key", "--delay", "0", "End", "Right"])
            let inside = try #require(
                popup.waitFor { $0.contains(#""level":["responses-by-status"]"#) }, "\(popup.lines)")
            #expect(inside.contains(#""selected":"print-response-1xx""#), "\(inside)")
            _ = try xdotool(x, ["key", "--delay", "0", "Down", "Return"])
            #expect(popup.wait() == 0, "\(popup.lines)")
            let copied = try clipboard(x)
            #expect(copied.contains("usr_1") && !copied.contains(Samples.canary), "\(copied)")
            #expect(
                popup.lifecycle == [
                    "menu requested", "will display (7 elements)", "will perform print-response-2xx",
                    "will end (performed print-response-2xx)",
                ], "\(popup.lines)")
        }
    }

    @Test func escapeTakesTheCancelPathThroughUserdebugMenuPopup() throws {
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let popup = try popup(x, viaCLI: true)
            defer { popup.stop() }
            _ = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
            _ = try xdotool(x, ["key", "--delay", "0", "Escape"])
            #expect(popup.wait() == 0, "\(popup.lines)")
            #expect(popup.lifecycle == ["menu requested", "will display (7 elements)", "will end (cancelled)"])
            #expect(try clipboard(x).isEmpty)
        }
    }

    @Test func aClickOutsideClosesAndAClickInsideRuns() throws {
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            _ = try xdotool(x, ["mousemove", "300", "300"])
            let first = try popup(x)
            defer { first.stop() }
            _ = try #require(first.waitFor { $0.contains("state {") }, "\(first.lines)")
            _ = try xdotool(x, ["mousemove", "20", "20", "click", "1"])
            #expect(first.wait() == 0, "\(first.lines)")
            #expect(first.lines.contains { $0.contains("click outside") })
            #expect(first.lifecycle.last == "will end (cancelled)")

            _ = try xdotool(x, ["mousemove", "300", "300"])
            let second = try popup(x)
            defer { second.stop() }
            let state = try #require(second.waitFor { $0.contains("state {") }, "\(second.lines)")
            #expect(state.contains(#""selected":"copy-id""#))
            // The second row: below the heading (one row and a line high) and the first row.
            let mapped = try #require(second.lines.first { $0.contains("popup mapped at") })
            let rowHeight = try #require(mapped.split(separator: " ").last.flatMap { Int($0) }, "\(mapped)")
            _ = try xdotool(x, ["mousemove", "330", String(300 + rowHeight * 2 + rowHeight / 2 + 2), "click", "1"])
            #expect(second.wait() == 0, "\(second.lines)")
            #expect(second.lifecycle.last == "will end (performed copy-name)", "\(second.lines)")
            #expect(try clipboard(x) == "Zoë")
        }
    }

    @Test func typingFiltersAndAHintKeyRunsItsEntry() throws {
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let popup = try popup(x)
            defer { popup.stop() }
            _ = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
            _ = try xdotool(x, ["type", "--delay", "0", "2xx"])
            let filtered = try #require(popup.waitFor { $0.contains(#""filter":"2xx""#) }, "\(popup.lines)")
            #expect(filtered.contains(#""title":"Responses by Status › Print Last 2xx Response""#), "\(filtered)")
            #expect(!filtered.contains(#""id":"copy-id""#), "\(filtered)")
            _ = try xdotool(x, ["key", "--delay", "0", "BackSpace", "BackSpace", "BackSpace"])
            _ = try #require(popup.waitFor { $0.contains(#""filter":"""#) && $0.contains(#""id":"copy-id""#) })
            _ = try xdotool(x, ["key", "--delay", "0", "N"])
            #expect(popup.wait() == 0, "\(popup.lines)")
            #expect(popup.lifecycle.last == "will end (performed copy-name)", "\(popup.lines)")
            #expect(try clipboard(x) == "Zoë")
        }
    }

    @Test func nearTheBottomRightCornerTheWindowStaysOnTheMonitor() throws {
        try withXvfb(extraArguments: ["-screen", "0", "1920x1080x24"]) { x in
            _ = try xdotool(x, ["mousemove", "1910", "1070"])
            let popup = try popup(x)
            defer { popup.stop() }
            let mapped = try #require(popup.waitFor { $0.contains("popup mapped at") }, "\(popup.lines)")
            let words = mapped.split(separator: " ")
            let at = try #require(words.firstIndex(of: "at"))
            let origin = words[at + 1].split(separator: ",").compactMap { Int($0) }
            let size = words[at + 2].split(separator: "x").compactMap { Int($0) }
            #expect(origin.count == 2 && size.count == 2)
            #expect(origin[0] + size[0] <= 1920 && origin[1] + size[1] <= 1080, "\(mapped)")
            #expect(origin[0] < 1910 && origin[1] < 1070, "\(mapped)")
            _ = try xdotool(x, ["key", "--delay", "0", "Escape"])
            #expect(popup.wait() == 0)
        }
    }

    /// Answers /me 2 s after the test creates the file named by argv[1] (so the popup is
    /// certainly up before the answer, however loaded the machine is).
    static let slowServer = #"""
        import http.server, json, os, sys, time
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                deadline = time.time() + 60
                while not os.path.exists(sys.argv[1]) and time.time() < deadline:
                    time.sleep(0.02)
                time.sleep(2)
                body = json.dumps({"id": "usr_1", "plan": "pro"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    @Test func aDeferredSectionShowsItsPlaceholderThenItsEntries() throws {
        let release = home.root.appendingPathComponent("release").path
        let server = try Spawned.start(
            ["/usr/bin/env", "python3", "-c", Self.slowServer, release],
            environment: ProcessInfo.processInfo.environment, pipeOutput: true)
        defer {
            server.kill()
            server.wait()
        }
        let port = try #require(server.receiveLine().flatMap { Int($0) })
        try home.ok(
            ["session", "import", "-"],
            stdin: Samples.session.replacingOccurrences(of: "https://api.example.com", with: "http://127.0.0.1:\(port)")
        )
        try home.file("config/config.json", #"{"backend": {"path": "/me", "timeoutSeconds": 60}}"#)
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let popup = try popup(x)
            defer { popup.stop() }
            let first = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
            #expect(popup.lines.contains { $0.contains("popup mapped at") })
            #expect(
                first.contains(
                    #"{"kind":"placeholder","id":"backend","title":"From the backend","subtitle":"Loading…""#),
                "\(first)")
            #expect(!popup.lines.contains { $0.contains("resolved") })
            #expect(FileManager.default.createFile(atPath: release, contents: nil))
            let resolved = try #require(popup.waitFor { $0.contains(#""id":"backend.field.plan""#) }, "\(popup.lines)")
            #expect(resolved.contains(#"{"kind":"header","id":"backend","title":"From the backend""#), "\(resolved)")
            #expect(!resolved.contains("Loading…"))
            #expect(popup.lines.contains { $0.contains("popup resized to") }, "the window grew for the new rows")
            _ = try xdotool(x, ["key", "--delay", "0", "Escape"])
            #expect(popup.wait() == 0)
            #expect(popup.lifecycle == ["menu requested", "will display (8 elements)", "will end (cancelled)"])
        }
    }

    /// The row height the popup reports at `dpi` (`Xft.dpi` set with xrdb; nil: not set).
    func rowHeight(_ x: Xvfb, dpi: Int?) throws -> Int {
        if let dpi {
            #expect(
                try Peer.own(["xrdb", "-merge"], input: Array("Xft.dpi: \(dpi)\n".utf8), environment: x.environment)
                    == 0)
        }
        let popup = try popup(x)
        defer { popup.stop() }
        let mapped = try #require(popup.waitFor { $0.contains("popup mapped at") }, "\(popup.lines)")
        #expect(!mapped.contains("(core font)"), "Xft drew the text: \(mapped)")
        _ = try xdotool(x, ["key", "--delay", "0", "Escape"])
        #expect(popup.wait() == 0)
        return try #require(mapped.split(separator: " ").last.flatMap { Int($0) }, "\(mapped)")
    }

    @Test func xftDpiFromTheResourceDatabaseScalesThePopup() throws {
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let normal = try rowHeight(x, dpi: 96)
            let doubled = try rowHeight(x, dpi: 192)
            #expect(doubled * 10 >= normal * 17, "96 dpi: \(normal) px rows, 192 dpi: \(doubled) px")
        }
    }

    @Test func withoutAnyFontconfigFontTheCoreFontDrawsAndTheMenuStillWorks() throws {
        let config = try home.file(
            "fonts.conf", #"<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig></fontconfig>"#)
        home.environment["FONTCONFIG_FILE"] = config
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let popup = try popup(x)
            defer { popup.stop() }
            let mapped = try #require(popup.waitFor { $0.contains("popup mapped at") }, "\(popup.lines)")
            #expect(mapped.contains("(core font)"), "\(mapped)")
            _ = try #require(popup.waitFor { $0.contains("state {") })
            _ = try xdotool(x, ["key", "--delay", "0", "Return"])
            #expect(popup.wait() == 0, "\(popup.lines)")
            #expect(try clipboard(x) == "usr_1")
        }
    }

    /// Grabs the keyboard on the root window (as a hotkey daemon does while its key is down),
    /// says "grabbed", and lets go after argv[1] seconds.
    static let keyboardGrabber = """
        import sys, time
        from Xlib import X, display
        d = display.Display()
        status = d.screen().root.grab_keyboard(True, X.GrabModeAsync, X.GrabModeAsync, X.CurrentTime)
        print("grabbed" if status == X.GrabSuccess else "refused %d" % status, flush=True)
        time.sleep(float(sys.argv[1]))
        d.ungrab_keyboard(X.CurrentTime)
        d.flush()
        time.sleep(60)
        """

    @Test(arguments: [0.3, 30])
    func aKeyboardGrabHeldBrieflyIsWaitedForAndOneHeldOnIsReported(seconds: Double) throws {
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let grabber = try Spawned.start(
                ["/usr/bin/python3", "-c", Self.keyboardGrabber, String(seconds)], environment: x.environment,
                pipeOutput: true)
            defer {
                grabber.kill()
                grabber.wait()
            }
            #expect(grabber.receiveLine() == "grabbed")
            let popup = try popup(x)
            defer { popup.stop() }
            if seconds < 1 {
                _ = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
                _ = try xdotool(x, ["key", "--delay", "0", "Escape"])
                #expect(popup.wait() == 0, "\(popup.lines)")
                #expect(popup.lifecycle.last == "will end (cancelled)")
            } else {
                #expect(popup.wait() == 69, "\(popup.lines)")
                #expect(popup.lines.contains { $0.contains("cannot grab the keyboard: another program holds it") })
                #expect(popup.lifecycle.last?.hasPrefix("will end (failed: ") == true, "\(popup.lines)")
            }
        }
    }

    /// A user name of 300,000 characters (issue 25, item 7): drawn whole, it was one
    /// RenderCompositeGlyphs8 request too long for the server, and Xlib's default error handler
    /// ended the popup with exit 1 every time it opened. It is cut where it is shown and copied whole.
    @Test func aUserNameOf300000CharactersIsCutInTheRowAndCopiedWhole() throws {
        // 300,000 `a`s: their width in DejaVu Sans wraps Xft's 16-bit advance to less than the
        // window's, so the old popup drew them all (BadLength, exit 1 from Xlib).
        let name = String(repeating: "a", count: 300_000)
        try home.ok(
            ["session", "import", "-"],
            stdin: Samples.session.replacingOccurrences(of: #""name": "Zoë""#, with: #""name": "\#(name)""#))
        var shown = String.UnicodeScalarView()
        shown.append(contentsOf: name.unicodeScalars.prefix(300))
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let first = try popup(x, viaCLI: true)
            defer { first.stop() }
            let state = try #require(first.waitFor { $0.contains("state {") }, "\(first.lines.suffix(5))")
            #expect(state.contains(#""id":"copy-name","title":"Copy Name","subtitle":"\#(String(shown))…""#))
            #expect(state.contains(#""id":"copy-token","title":"Copy Token (secret)""#), "\(state.prefix(400))")
            #expect(!state.contains(name))
            _ = try xdotool(x, ["key", "--delay", "0", "Escape"])
            #expect(first.wait() == 0, "\(first.lines.suffix(5))")
            #expect(first.lifecycle.last == "will end (cancelled)", "\(first.lines.suffix(5))")

            let second = try popup(x, viaCLI: true)
            defer { second.stop() }
            _ = try #require(second.waitFor { $0.contains("state {") }, "\(second.lines.suffix(5))")
            _ = try xdotool(x, ["key", "--delay", "0", "N"])
            #expect(second.wait() == 0, "\(second.lines.suffix(5))")
            #expect(second.lifecycle.last == "will end (performed copy-name)", "\(second.lines.suffix(5))")
            #expect(try clipboard(x) == name)
        }
    }

    /// Another client destroys the popup's window: the popup closes as for an unmap (exit 0,
    /// nothing run). Its own requests on the window that is gone (BadWindow) no longer reach
    /// Xlib's default handler, which printed them and exited 1.
    @Test func aWindowAnotherClientDestroysClosesThePopupWithoutAnXErrorExit() throws {
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let popup = try popup(x)
            defer { popup.stop() }
            let mapped = try #require(popup.waitFor { $0.contains("popup mapped at") }, "\(popup.lines)")
            let window = try #require(mapped.split(separator: " ").drop { $0 != "window" }.dropFirst().first)
            _ = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
            let destroy = """
                import sys
                from Xlib import display
                d = display.Display()
                d.create_resource_object('window', int(sys.argv[1])).destroy()
                d.sync()
                """
            let destroyed = try Peer.read(
                ["/usr/bin/python3", "-c", destroy, String(window)], environment: x.environment, limit: 20)
            #expect(destroyed.status == 0)
            #expect(popup.wait() == 0, "\(popup.lines)")
            #expect(popup.lifecycle.last == "will end (cancelled)", "\(popup.lines)")
            #expect(!popup.lines.contains { $0.contains("X Error") }, "\(popup.lines)")
        }
    }

    @Test func withoutThePopupProgramMenuPopupExits69() throws {
        let directory = home.root.appendingPathComponent("alone")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("userdebug").path
        try copyExecutable(UserDebugHome.binary, to: copy)
        let result = try runTool(
            copy, ["menu", "--popup"], environment: home.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
        #expect(result.status == 69, "\(result)")
        #expect(result.err.contains("userdebug-popup is not installed"), "\(result)")
    }
}

/// A running popup whose stderr (the trace) is collected line by line on a thread of its own.
final class PopupProcess: Sendable {
    private let child: Spawned
    private let collected = Mutex<[String]>([])
    private let finished = Mutex(false)
    private let reaped = Mutex(false)

    init(_ command: [String], environment: [String: String]) throws {
        // stderr joins stdout, and exec keeps the pid the test kills.
        child = try Spawned.start(
            ["/bin/sh", "-c", #"exec "$0" "$@" 2>&1"#] + command, environment: environment, pipeOutput: true)
        Thread.detachNewThread { [self] in
            while let line = child.receiveLine() { collected.withLock { $0.append(line) } }
            finished.withLock { $0 = true }
        }
    }

    var lines: [String] { collected.withLock { $0 } }

    /// The popup's process id.
    var pid: Int32 { child.pid }

    /// The lifecycle events of `--trace`, in order.
    var lifecycle: [String] {
        let events = ["menu requested", "will display", "will perform", "will end"]
        return lines.compactMap { line in
            guard line.hasPrefix("userdebug: trace: ") else { return nil }
            let event = String(line.dropFirst("userdebug: trace: ".count))
            return events.contains { event.hasPrefix($0) } ? event : nil
        }
    }

    /// The newest line matching `predicate`, waiting up to 20 s for one.
    func waitFor(_ predicate: (String) -> Bool) -> String? {
        var found: String?
        _ = eventually(timeout: 20) {
            found = lines.last(where: predicate)
            return found != nil
        }
        return found
    }

    /// Waits up to 20 s for the exit (then kills it); the exit status.
    func wait() -> Int32 {
        guard eventually(timeout: 20, { processExited(child.pid) }) else {
            stop()
            return -1
        }
        reaped.withLock { $0 = true }
        let status = child.wait()
        _ = eventually(timeout: 5) { finished.withLock { $0 } }
        return status
    }

    /// Kills and reaps it, unless `wait` already has.
    func stop() {
        let done = reaped.withLock { done in
            defer { done = true }
            return done
        }
        guard !done else { return }
        child.kill()
        child.wait()
    }
}
