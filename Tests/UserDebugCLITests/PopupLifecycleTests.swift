import Foundation
import TestSupport
import Testing

/// The popup's ways out that the user did not choose (another client unmaps it, the X server
/// dies under it) and deferred sections that fill in one by one, on a real Xvfb.
extension PopupTests {
    /// Answers `GET /NAME` once the test has created the file NAME in the directory argv[1], with
    /// `{"id": "usr_1", "section": NAME}`: the test decides when each section answers, so no
    /// assertion depends on how fast a loaded machine is.
    static let gatedServer = #"""
        import http.server, json, os, sys, time
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                name = self.path.strip("/")
                deadline = time.time() + 60
                while not os.path.exists(os.path.join(sys.argv[1], name)) and time.time() < deadline:
                    time.sleep(0.02)
                body = json.dumps({"id": "usr_1", "section": name}).encode()
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

    static func placeholder(_ name: String, _ title: String) -> String {
        #"{"kind":"placeholder","id":"backend.\#(name)","title":"\#(title)","subtitle":"Loading…""#
    }

    @Test func twoDeferredSectionsFillInOneByOne() throws {
        let gates = home.root.appendingPathComponent("gates").path
        try FileManager.default.createDirectory(atPath: gates, withIntermediateDirectories: true)
        let server = try Spawned.start(
            ["/usr/bin/env", "python3", "-c", Self.gatedServer, gates],
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
        try home.file(
            "config/config.json",
            #"""
            {"backend": {"timeoutSeconds": 60, "sections": [
              {"name": "fast", "title": "Fast", "path": "/fast"},
              {"name": "slow", "title": "Slow", "path": "/slow"}]}}
            """#)
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let popup = try popup(x)
            defer { popup.stop() }
            let first = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
            #expect(first.contains(Self.placeholder("fast", "Fast")), "\(first)")
            #expect(first.contains(Self.placeholder("slow", "Slow")), "\(first)")
            #expect(FileManager.default.createFile(atPath: gates + "/fast", contents: nil))
            let half = try #require(
                popup.waitFor { $0.contains(#""id":"backend.fast.field.section""#) }, "\(popup.lines)")
            #expect(half.contains(#"{"kind":"header","id":"backend.fast","title":"Fast""#), "\(half)")
            #expect(half.contains(Self.placeholder("slow", "Slow")), "the slow section still loads: \(half)")
            #expect(!half.contains(#""id":"backend.slow.field.section""#), "\(half)")
            #expect(FileManager.default.createFile(atPath: gates + "/slow", contents: nil))
            let both = try #require(
                popup.waitFor { $0.contains(#""id":"backend.slow.field.section""#) }, "\(popup.lines)")
            #expect(both.contains(#""id":"backend.fast.field.section""#) && !both.contains("Loading…"), "\(both)")
            // The slow section's entry runs: filtered to by its id, Enter.
            _ = try xdotool(x, ["type", "--delay", "0", "slow.field.section"])
            let filtered = try #require(
                popup.waitFor { $0.contains(#""filter":"slow.field.section""#) }, "\(popup.lines)")
            #expect(filtered.contains(#""selected":"backend.slow.field.section""#), "\(filtered)")
            _ = try xdotool(x, ["key", "--delay", "0", "Return"])
            #expect(popup.wait() == 0, "\(popup.lines)")
            #expect(popup.lifecycle.last == "will end (performed backend.slow.field.section)", "\(popup.lines)")
            #expect(try clipboard(x) == "slow")
        }
    }

    /// The window id the popup reports in its `popup mapped at` line.
    func windowID(_ popup: PopupProcess) throws -> String {
        let mapped = try #require(popup.waitFor { $0.contains("popup mapped at") }, "\(popup.lines)")
        return String(try #require(mapped.split(separator: " ").drop { $0 != "window" }.dropFirst().first))
    }

    @Test func unmappedByAnotherClientItClosesWithoutRunningAnything() throws {
        try withXvfb(extraArguments: ["-screen", "0", "1280x800x24"]) { x in
            let popup = try popup(x)
            defer { popup.stop() }
            let window = try windowID(popup)
            _ = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
            // Another client unmaps it: the server ends our grabs (the window is no longer
            // viewable) and tells us (UnmapNotify, then FocusOut of mode NotifyUngrab).
            _ = try xdotool(x, ["windowunmap", window])
            #expect(popup.wait() == 0, "\(popup.lines)")
            #expect(popup.lines.contains { $0.contains("unmapped by another client; closing") }, "\(popup.lines)")
            #expect(popup.lifecycle == ["menu requested", "will display (7 elements)", "will end (cancelled)"])
            #expect(try clipboard(x).isEmpty)
            // The keyboard is free again: another client can grab it.
            let grab = try Peer.read(
                ["/usr/bin/python3", "-c", Self.grabOnce], environment: x.environment, limit: 20)
            #expect(String(decoding: grab.bytes, as: UTF8.self) == "grabbed\n")
        }
    }

    /// Grabs the keyboard once and says whether it could.
    static let grabOnce = """
        from Xlib import X, display
        d = display.Display()
        status = d.screen().root.grab_keyboard(True, X.GrabModeAsync, X.GrabModeAsync, X.CurrentTime)
        print("grabbed" if status == X.GrabSuccess else "refused %d" % status, flush=True)
        """

    @Test func theXServerGoingAwayEndsThePopupWith69AndNoPerform() throws {
        let x = try Xvfb.start(extraArguments: ["-screen", "0", "1280x800x24"])
        defer { x.stop() }
        let popup = try popup(x)
        defer { popup.stop() }
        _ = try #require(popup.waitFor { $0.contains("state {") }, "\(popup.lines)")
        x.stop()
        #expect(popup.wait() == 69, "\(popup.lines)")
        let message = "the X server of display \(x.display) went away; the menu closed, nothing was run"
        #expect(popup.lines.contains { $0.hasSuffix(message) }, "\(popup.lines)")
        #expect(!popup.lines.contains { $0.contains("XIO") }, "Xlib's own message is not printed: \(popup.lines)")
        #expect(!popup.lifecycle.contains { $0.hasPrefix("will perform") }, "\(popup.lines)")
        #expect(popup.lifecycle.last?.hasPrefix("will end (failed: ") == true, "\(popup.lines)")
    }
}
