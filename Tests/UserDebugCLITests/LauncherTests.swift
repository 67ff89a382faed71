import Foundation
import TestSupport
import Testing

/// `menu --dmenu` with the real dmenu and rofi, and rofi's script mode (`userdebug rofi`),
/// under a real Xvfb, driven by xdotool as a person at the keyboard would.
@Suite(.serialized, .desktopTier) struct LauncherTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
    }

    /// `userdebug ARGS` started in the background on `x`, stdout and stderr into one pipe.
    func startUserdebug(_ arguments: [String], on x: Xvfb, extra: [String: String] = [:]) throws -> Spawned {
        var environment = home.environment.merging(extra) { $1 }
        environment["DISPLAY"] = x.display
        return try Spawned.start(
            ["/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", UserDebugHome.binary] + arguments, environment: environment,
            pipeOutput: true)
    }

    /// Waits (bounded) for `child` to exit; kills it when it does not. Its status and output.
    func finish(_ child: Spawned) -> (status: Int32, output: String) {
        if !eventually(timeout: 30, { processExited(child.pid) }) { child.kill() }
        let output = String(decoding: child.receiveAll(), as: UTF8.self)
        return (child.wait(), output)
    }

    @discardableResult
    func xdotool(_ arguments: [String], on x: Xvfb) throws -> Peer.Output {
        try Peer.read(["xdotool"] + arguments, environment: x.environment, limit: 20)
    }

    /// Starts a launcher through `menu --dmenu`, waits for its window (class `windowClass`),
    /// types `filter` and Return; returns what userdebug did.
    func choose(
        _ filter: String, launcher: String, windowClass: String, on x: Xvfb
    ) throws -> (status: Int32, output: String) {
        let child = try startUserdebug(["menu", "--dmenu", "--launcher", launcher], on: x)
        defer { if !processExited(child.pid) { child.kill() } }
        let found = try xdotool(["search", "--sync", "--onlyvisible", "--class", windowClass], on: x)
        #expect(found.status == 0, "no \(windowClass) window appeared")
        try xdotool(["type", "--delay", "0", filter], on: x)
        try xdotool(["key", "--delay", "0", "Return"], on: x)
        return finish(child)
    }

    func clipboard(_ x: Xvfb) throws -> String {
        let read = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 20)
        return String(decoding: read.bytes, as: UTF8.self)
    }

    @Test func dmenuChoosesAnActionAndTheClipboardHoldsItsPayload() throws {
        try withXvfb { x in
            let result = try choose("copy name", launcher: "dmenu -i -l 20", windowClass: "dmenu", on: x)
            #expect(result.status == 0, "\(result.output)")
            #expect(try clipboard(x) == "Zoë")
            #expect(result.output.contains("copied 4 bytes to CLIPBOARD"))
        }
    }

    @Test func rofiDmenuChoosesAnActionAndTheClipboardHoldsItsPayload() throws {
        try withXvfb { x in
            let result = try choose("identifier", launcher: "rofi -dmenu -i", windowClass: "rofi", on: x)
            #expect(result.status == 0, "\(result.output)")
            #expect(try clipboard(x) == "usr_1")
        }
    }

    @Test func escapeInDmenuRunsNothingAndExitsOne() throws {
        try withXvfb { x in
            let child = try startUserdebug(["menu", "--dmenu", "--launcher", "dmenu", "--trace"], on: x)
            defer { if !processExited(child.pid) { child.kill() } }
            #expect(try xdotool(["search", "--sync", "--onlyvisible", "--class", "dmenu"], on: x).status == 0)
            try xdotool(["key", "--delay", "0", "Escape"], on: x)
            let result = finish(child)
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains("willEnd(cancelled)") || result.output.contains("cancelled"))
            #expect(!result.output.contains("willPerform"))
            #expect(try clipboard(x).isEmpty)
        }
    }

    @Test func theLinesFedToTheLauncherAreFlatUniqueAndSafe() throws {
        try home.file(
            "config/config.json",
            #"{"actions": [{"id": "evil", "title": "Evil\u001b]52;c;aGk=\u0007 Title", "template": "x"}]}"#)
        // `tee` as the launcher keeps the lines and chooses nothing (it prints them, and the
        // first one, "Copy Identifier …", is then performed): the choice is the first line.
        let linesFile = home.root.appendingPathComponent("lines.txt").path
        let result = try home.run(["menu", "--dmenu", "--launcher", "tee \(linesFile)", "--quiet"])
        #expect(result.status == 69 || result.status == 0, "\(result)")
        let lines = try String(contentsOfFile: linesFile, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.contains("Responses by Status › Print Last 4xx Response"))
        #expect(lines.contains("Copy Identifier — usr_1"))
        #expect(lines.contains("Copy Token (secret)"))
        #expect(Set(lines).count == lines.count)
        #expect(!lines.joined().unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(lines.contains { $0.hasPrefix("Evil\\x1b]52;c;aGk=\\x07 Title") })
        #expect(!lines.joined().contains(Samples.canary))
    }

    @Test func aBackendSectionThatFailedIsALineThatRunsNothing() throws {
        try home.file(
            "config/config.json", #"{"backend": {"path": "/me", "curl": "/bin/false", "timeoutSeconds": 5}}"#)
        // grep as the launcher chooses the backend's line.
        let result = try home.run(["menu", "--dmenu", "--launcher", "grep backend", "--trace"])
        #expect(result.status == 1, "\(result)")
        #expect(result.err.contains("'From the backend: failed"), "\(result)")
        #expect(result.err.contains("runs no action") && !result.err.contains("willPerform"))
    }

    @Test func aMissingLauncherIsExit69AndNothingChosenIsExit1() throws {
        let missing = try home.run(["menu", "--dmenu", "--launcher", "no-such-launcher-xyz"])
        #expect(missing.status == 69 && missing.err.contains("'no-such-launcher-xyz'"), "\(missing)")
        var environment = ["PATH": home.root.path]
        environment["WAYLAND_DISPLAY"] = nil
        let none = try home.run(["menu", "--dmenu"], extraEnvironment: environment)
        #expect(none.status == 69 && none.err.contains("no launcher found"), "\(none)")
        let nothing = try home.run(["menu", "--dmenu", "--launcher", "true"])
        #expect(nothing.status == 1 && nothing.err.isEmpty, "\(nothing)")
        let typed = try home.run(["menu", "--dmenu", "--launcher", "echo no such entry"])
        #expect(typed.status == 1 && typed.err.contains("'no such entry' runs no action"), "\(typed)")
        try home.file("config/config.json", #"{"menu": {"launcher": ["echo", "copy-id"]}}"#)
        let configured = try home.run(["menu", "--dmenu", "--quiet"], extraEnvironment: ["DISPLAY": ":9999"])
        #expect(configured.status == 69 && configured.err.contains("no X display"), "\(configured)")
        try home.file("config/config.json", #"{"menu": {"launcher": 7}}"#)
        #expect(try home.run(["menu", "--dmenu"]).status == 78)
    }

    /// With no launcher named, the first installed one is used: on Wayland (WAYLAND_DISPLAY set)
    /// fuzzel, wofi, bemenu before dmenu and rofi; on X11 dmenu first. Each stand-in launcher
    /// prints its own name, which runs no action, so the message names the one that ran.
    @Test func autoDetectionPrefersTheWaylandLaunchersOnWayland() throws {
        let bin = home.root.appendingPathComponent("bin").path
        for name in ["dmenu", "rofi", "fuzzel", "wofi", "bemenu"] {
            let path = try home.file("bin/" + name, "#!/bin/sh\necho \(name)\n")
            chmod(path, 0o755)
        }
        func ran(wayland: String?) throws -> String {
            let result = try home.run(
                ["menu", "--dmenu"], extraEnvironment: ["PATH": bin, "WAYLAND_DISPLAY": wayland ?? ""])
            #expect(result.status == 1, "\(result)")
            return result.err
        }
        #expect(try ran(wayland: "wayland-1").contains("'fuzzel' runs no action"))
        #expect(try ran(wayland: nil).contains("'dmenu' runs no action"))
        try FileManager.default.removeItem(atPath: bin + "/fuzzel")
        #expect(try ran(wayland: "wayland-1").contains("'wofi' runs no action"))
        try FileManager.default.removeItem(atPath: bin + "/wofi")
        #expect(try ran(wayland: "/run/user/0/wayland-0").contains("'bemenu' runs no action"))
    }
}

/// The hotkey recipes in config/hotkeys name the clipboard on every action: a hotkey tool's
/// stdout may be a log file, where `--to auto` would send the result.
@Test func everyHotkeyRecipeCopiesToTheClipboardExplicitly() throws {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/hotkeys")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix(".json") }
    #expect(names.count >= 4)
    let action = /userdebug'? (copy-id|dump-json|print-response|copy-token|copy-name|run)(\s|$)/
    for name in names {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        let commands = text.split(separator: "\n").filter { line in
            !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") && line.contains(action)
        }
        #expect(!commands.isEmpty, "\(name) binds no action")
        for line in commands {
            #expect(line.contains("--to clipboard"), "\(name): \(line)")
        }
    }
}
