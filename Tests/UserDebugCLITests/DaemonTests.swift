import Foundation
import TestSupport
import Testing

/// A `userdebug daemon` started by a test: its stderr goes to a file the test reads; it is killed
/// and reaped whatever happens (`stop`, idempotent).
final class DaemonRun: @unchecked Sendable {
    let process: Spawned
    let log: String
    private var reaped: Int32?

    /// Starts `binary daemon ARGUMENTS` (the built binary unless told). `autostart`: as an
    /// autostart entry starts it, stderr too on /dev/null (`text` is then empty).
    init(
        home: UserDebugHome, environment: [String: String], arguments: [String] = ["--trace"],
        binary: String = UserDebugHome.binary, autostart: Bool = false
    ) throws {
        log = home.root.appendingPathComponent("daemon-\(UUID().uuidString).log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let errors = autostart ? "2>/dev/null" : "2>>\"$LOG\""
        // exec: the pid we hold is the daemon's own (the second daemon names it). Spawned gives
        // it /dev/null for stdin and stdout.
        process = try Spawned.start(
            ["/bin/sh", "-c", "exec \"$0\" daemon \"$@\" \(errors)"] + [binary] + arguments,
            environment: environment.merging(["LOG": log]) { $1 })
    }

    var pid: Int32 { process.pid }

    /// What it wrote on stderr so far.
    var text: String { String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self) }

    /// Waits (10 s at most) for it to exit; its status, or nil when it still runs.
    func waitForExit() -> Int32? {
        _ = eventually(timeout: 10) { exited() != nil }
        return exited()
    }

    /// Waits (10 s at most) until stderr holds `needle`.
    func waitFor(_ needle: String) -> Bool { eventually(timeout: 10) { text.contains(needle) } }

    /// Its exit status once it has exited (reaping it), or nil while it runs.
    func exited() -> Int32? {
        if let reaped { return reaped }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        reaped = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return reaped
    }

    /// Kills and reaps it (once).
    func stop() {
        guard exited() == nil else { return }
        process.kill(SIGKILL)
        _ = eventually(timeout: 10) { exited() != nil }
    }
}

/// `userdebug daemon` end to end: the built binary under a private Xvfb, keys injected with
/// xdotool (XTEST), the clipboard read with xclip, a competing grab made by xbindkeys.
@Suite(.serialized, .desktopTier) struct DaemonTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    static let config = """
        {
          "hotkeys": {"Super+Alt+I": "copy-id", "Super+Alt+J": "dump-json"}
        }
        """

    /// The daemon's environment on `x`, with a runtime directory of the test's own (the lock).
    func environment(_ x: Xvfb) throws -> [String: String] {
        let runtime = home.root.appendingPathComponent("run")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return home.environment.merging(["DISPLAY": x.display, "XDG_RUNTIME_DIR": runtime.path]) { $1 }
    }

    /// Runs `body` with a daemon on `x` that has grabbed its keys; stops it afterwards.
    func withDaemon<R>(_ x: Xvfb, _ body: (DaemonRun) throws -> R) throws -> R {
        let daemon = try DaemonRun(home: home, environment: try environment(x))
        defer { daemon.stop() }
        try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
        return try body(daemon)
    }

    func press(_ x: Xvfb, _ keys: String...) throws {
        let out = try Peer.read(["xdotool", "key", "--delay", "0"] + keys, environment: x.environment, limit: 20)
        #expect(out.status == 0, "xdotool failed")
    }

    func clipboard(_ x: Xvfb) -> String {
        let out = try? Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 10)
        return out.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
    }

    /// Puts `text` on the clipboard with xclip, so a later read tells whether the daemon copied.
    func setStale(_ x: Xvfb, _ text: String = "stale") throws {
        try Peer.own(["xclip", "-i", "-selection", "clipboard"], input: Array(text.utf8), environment: x.environment)
        #expect(eventually { clipboard(x) == text })
    }

    @Test func aKeyPressCopiesTheIdentifierAlsoWithNumLockAndCapsLockOn() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                try setStale(x)
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                // The daemon serves the copy itself: no owner process listens for the next copy.
                #expect(!x.residentOwnerListens(executable: UserDebugHome.binary))
                try press(x, "Num_Lock", "Caps_Lock")
                try setStale(x)
                try press(x, "super+alt+j")
                #expect(eventually { clipboard(x).hasPrefix("{") && clipboard(x).contains("usr_1") }, "\(daemon.text)")
                try setStale(x)
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
            }
        }
    }

    /// The note about Wayland-native windows only where a Wayland session is: not on plain X11.
    @Test func theWaylandNoteIsPrintedOnlyInAWaylandSession() throws {
        try home.file("config/config.json", Self.config)
        let note = "X11 key grabs do not see keys pressed in Wayland-native windows"
        try withXvfb { x in
            for (extra, expected) in [
                ([:], false), (["XDG_SESSION_TYPE": "x11"], false), (["XDG_SESSION_TYPE": "wayland"], true),
                (["WAYLAND_DISPLAY": "wayland-7"], true),
            ] {
                let daemon = try DaemonRun(home: home, environment: try environment(x).merging(extra) { $1 })
                defer { daemon.stop() }
                try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
                #expect(daemon.text.contains(note) == expected, "\(extra): \(daemon.text)")
            }
        }
    }

    /// Without DISPLAY (a systemd unit before import-environment, a session that never starts
    /// graphical-session.target) the error says where to start the daemon instead.
    @Test func withoutADisplayTheErrorNamesWhereToStartTheDaemon() throws {
        try home.file("config/config.json", Self.config)
        let result = try home.run(["daemon"])
        #expect(result.status == 69, "\(result)")
        for fix in [
            "no DISPLAY: the daemon grabs its keys on an X display",
            "systemctl --user import-environment DISPLAY XAUTHORITY",
            "sessions that never reach graphical-session.target (i3, openbox, startx)",
            "exec userdebug daemon in the window manager's config, its autostart or ~/.xinitrc",
        ] {
            #expect(result.err.contains(fix), "\(fix)\n\(result)")
        }
    }

    /// Every key held by another program (another userdebug daemon, under a runtime directory of
    /// its own so the lock does not stop it): an error, 69, naming the keys and no line saying the
    /// other keys work. With --keep-waiting it stays, and SIGHUP grabs the freed keys.
    @Test func whenEveryKeyIsTakenItExits69UnlessKeepWaiting() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            let otherRuntime = home.root.appendingPathComponent("run-other")
            try FileManager.default.createDirectory(
                at: otherRuntime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let other = try environment(x).merging(["XDG_RUNTIME_DIR": otherRuntime.path]) { $1 }
            let holder = try DaemonRun(home: home, environment: other)
            defer { holder.stop() }
            try #require(holder.waitFor("daemon: pid "), "\(holder.text)")

            let refused = try DaemonRun(home: home, environment: try environment(x), arguments: [])
            defer { refused.stop() }
            #expect(refused.waitForExit() == 69, "\(refused.text)")
            #expect(
                refused.text.contains(
                    "none of the 2 hotkeys could be grabbed (Super+Alt+I is taken by another program, Super+Alt+J is taken by another program); free them in the program that holds them"
                ), "\(refused.text)")
            #expect(!refused.text.contains("the other keys work"), "\(refused.text)")

            let waiting = try DaemonRun(
                home: home, environment: try environment(x), arguments: ["--trace", "--keep-waiting"])
            defer { waiting.stop() }
            try #require(waiting.waitFor("daemon: pid "), "\(waiting.text)")
            #expect(waiting.text.contains("none of the 2 hotkeys could be grabbed"), "\(waiting.text)")
            #expect(!waiting.text.contains("the other keys work"), "\(waiting.text)")
            holder.stop()
            waiting.process.kill(SIGHUP)
            #expect(waiting.waitFor("(SIGHUP): 2 hotkeys grabbed"), "\(waiting.text)")
            try setStale(x)
            try press(x, "super+alt+i")
            #expect(eventually { clipboard(x) == "usr_1" }, "\(waiting.text)")
        }
    }

    @Test func aKeyHeldDownRunsItsActionOnce() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            // Autorepeat after 100 ms, 50 per second: holding the key half a second repeats it.
            #expect(try Peer.read(["xset", "r", "rate", "100", "50"], environment: x.environment).status == 0)
            try withDaemon(x) { daemon in
                _ = try Peer.read(["xdotool", "keydown", "--delay", "0", "super+alt+i"], environment: x.environment)
                _ = try Peer.read(["sleep", "0.5"], environment: x.environment)
                _ = try Peer.read(
                    ["xdotool", "keyup", "--delay", "0", "i", "alt", "super"], environment: x.environment)
                try press(x, "super+alt+j")
                // The press after the release is seen, so everything the held key caused is too.
                #expect(daemon.waitFor("Super+Alt+J pressed"), "\(daemon.text)")
                let presses = daemon.text.components(separatedBy: "Super+Alt+I pressed").count - 1
                #expect(presses == 1, "\(daemon.text)")
            }
        }
    }

    /// Issue 25, item 13: 200 back-to-back presses of one key (xdotool, no delay: a press often
    /// carries the server time of the previous release) used to run a handful of actions, each
    /// press at the release's time taken for autorepeat. Every press runs once now.
    @Test func twoHundredBackToBackPressesOfOneKeyRunTwoHundredActions() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                let keys = [String](repeating: "super+alt+i", count: 200)
                let out = try Peer.read(
                    ["xdotool", "key", "--delay", "0"] + keys, environment: x.environment, limit: 60)
                #expect(out.status == 0, "xdotool failed")
                try press(x, "super+alt+j")
                // The J press after them is seen, so every I press before it is too.
                #expect(daemon.waitFor("Super+Alt+J pressed"), "\(daemon.text)")
                let presses = daemon.text.components(separatedBy: "Super+Alt+I pressed").count - 1
                #expect(presses == 200, "\(presses) of 200 presses ran")
            }
        }
    }

    /// Issue 25, item 14: the menu key with no `userdebug-popup` beside the binary nor on PATH
    /// fails with status 69 naming the cause (and a notification); it does not fall back to
    /// `userdebug menu --popup`, which needs the same program. The daemon keeps its other keys.
    @Test func theMenuKeyWithoutThePopupProgramFailsWith69AndTheOtherKeysWork() throws {
        try home.file(
            "config/config.json", #"{"hotkeys": {"Super+Alt+M": "menu", "Super+Alt+I": "copy-id"}}"#)
        let alone = home.root.appendingPathComponent("bin-alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        let binary = alone.appendingPathComponent("userdebug").path
        try copyExecutable(UserDebugHome.binary, to: binary)
        try withXvfb { x in
            var environment = try environment(x)
            environment["PATH"] = "/usr/bin:/bin"
            let daemon = try DaemonRun(home: home, environment: environment, binary: binary)
            defer { daemon.stop() }
            try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
            try press(x, "super+alt+m")
            #expect(daemon.waitFor("cannot start the popup menu"), "\(daemon.text)")
            #expect(daemon.text.contains("status 69"), "\(daemon.text)")
            try setStale(x)
            try press(x, "super+alt+i")
            #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
        }
    }

    @Test func aKeyAnotherProgramGrabbedIsReportedAndTheOthersWork() throws {
        try home.file("config/config.json", Self.config)
        let rc = try home.file("xbindkeysrc", "\"true\"\n  Mod4+Mod1 + i\n")
        try withXvfb { x in
            let xbindkeys = try Spawned.start(
                ["stdbuf", "-oL", "xbindkeys", "-n", "-v", "-f", rc], environment: x.environment, pipeOutput: true)
            defer {
                xbindkeys.kill()
                xbindkeys.wait()
            }
            // It prints this once its grabs are sent.
            while let line = xbindkeys.receiveLine(), !line.contains("starting loop") {}
            // Its grab may still be in flight: a daemon that got the key first is started again.
            var taken = false
            for _ in 0..<20 where !taken {
                let daemon = try DaemonRun(home: home, environment: try environment(x))
                defer { daemon.stop() }
                guard daemon.waitFor("daemon: pid ") else { continue }
                taken = daemon.text.contains("Super+Alt+I is taken by another program")
                guard taken else { continue }
                try setStale(x)
                try press(x, "super+alt+j")
                #expect(eventually { clipboard(x).contains("usr_1") }, "\(daemon.text)")
            }
            #expect(taken)
        }
    }

    @Test func sighupReloadsAChangedBinding() throws {
        // The file is a link to one in another directory: the directory watch does not see a
        // change there, so only SIGHUP can pick it up.
        let real = try home.file("elsewhere/config.json", Self.config)
        try FileManager.default.createDirectory(
            at: home.root.appendingPathComponent("config"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: home.configPath, withDestinationPath: real)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                try Data(#"{"hotkeys": {"Super+Alt+K": "copy-name"}}"#.utf8).write(to: URL(fileURLWithPath: real))
                daemon.process.kill(SIGHUP)
                #expect(daemon.waitFor("(SIGHUP): 1 hotkey grabbed: Super+Alt+K → copy-name"), "\(daemon.text)")
                try setStale(x)
                try press(x, "super+alt+k")
                #expect(eventually { clipboard(x) == "Zoë" }, "\(daemon.text)")
            }
        }
    }

    @Test func aChangedFileIsReloadedAndABrokenOneKeepsTheOldKeys() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                // Replaced, as editors do: written beside it and renamed over it.
                let next = try home.file("config/config.json.new", #"{"hotkeys": {"Super+Alt+K": "copy-name"}}"#)
                #expect(rename(next, home.configPath) == 0)
                #expect(daemon.waitFor("(the file changed): 1 hotkey grabbed: Super+Alt+K"), "\(daemon.text)")
                try setStale(x)
                try press(x, "super+alt+k")
                #expect(eventually { clipboard(x) == "Zoë" }, "\(daemon.text)")
                // Written in place with a key that names no keysym.
                try home.file("config/config.json", "{\n  \"hotkeys\": {\"Super+Alt+Nope\": \"copy-id\"}\n}\n")
                #expect(daemon.waitFor("keeping the previous hotkeys: \(home.configPath):2:15"), "\(daemon.text)")
                try setStale(x)
                try press(x, "super+alt+k")
                #expect(eventually { clipboard(x) == "Zoë" }, "\(daemon.text)")
            }
        }
    }

    @Test func theDaemonLeavesWhenTheXServerGoesAway() throws {
        try home.file("config/config.json", Self.config)
        let x = try Xvfb.start()
        defer { x.stop() }
        let daemon = try DaemonRun(home: home, environment: try environment(x))
        defer { daemon.stop() }
        try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
        x.stop()
        #expect(eventually(timeout: 10) { daemon.exited() != nil }, "\(daemon.text)")
        #expect(daemon.exited() == 69)
        #expect(daemon.text.contains("lost the X server on \(x.display)"))
    }

    @Test func aSecondDaemonOnTheDisplayNamesTheFirstAndExits75() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            try withDaemon(x) { first in
                let second = try runTool(UserDebugHome.binary, ["daemon"], environment: try environment(x))
                #expect(second.status == 75, "\(second)")
                #expect(second.err.contains("userdebug daemon already runs (pid \(first.pid)) on \(x.display)"))
                #expect(first.exited() == nil)
            }
        }
    }

    @Test func checkPrintsTheResolvedBindings() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            let result = try runTool(UserDebugHome.binary, ["daemon", "--check"], environment: try environment(x))
            #expect(result.status == 0, "\(result)")
            #expect(result.out.contains("Super+Alt+I\tSuper+Alt+i keysym 0x69 → copy-id\tkeycodes "), "\(result)")
            #expect(result.out.contains("Super+Alt+J\tSuper+Alt+j keysym 0x6a → dump-json"), "\(result)")
            #expect(result.out.contains("keyboard: checked"), "\(result)")
        }
    }

    @Test func aNameThatIsNotAKeysymOrAnUnknownActionIsAConfigError() throws {
        try home.file("config/config.json", "{\n  \"hotkeys\": {\n    \"Super+Alt+Nope\": \"copy-id\"}\n}\n")
        let bad = try home.run(["daemon", "--check"])
        #expect(bad.status == 78, "\(bad)")
        #expect(bad.err.contains("config.json:3:5: hotkeys.Super+Alt+Nope: \"Nope\" is not a keysym name"), "\(bad)")
        try home.file("config/config.json", "{\"hotkeys\": {\"Super+F5\": \"no-such\"}}")
        let unknown = try home.run(["daemon", "--check"])
        #expect(unknown.status == 78, "\(unknown)")
        #expect(unknown.err.contains("config.json:1:26: hotkeys.Super+F5: unknown action \"no-such\""), "\(unknown)")
        try home.file("config/config.json", "{\"hotkeys\": {\"Meta+F5\": \"copy-id\"}}")
        let modifier = try home.run(["daemon", "--check"])
        #expect(modifier.status == 78, "\(modifier)")
        #expect(modifier.err.contains("\"Meta\" is not a modifier"), "\(modifier)")
    }

    @Test func theMenuKeyOpensThePopupWhoseChoiceReachesTheClipboard() throws {
        try home.file("config/config.json", #"{"hotkeys": {"Super+Alt+M": "menu"}}"#)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                try setStale(x)
                // The daemon starts userdebug-popup (beside it) with its --trace: the popup's
                // trace lands in the daemon's stderr.
                try press(x, "super+alt+m")
                #expect(daemon.waitFor("popup mapped at"), "\(daemon.text)")
                #expect(daemon.waitFor("state {"), "\(daemon.text)")
                try press(x, "Return")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                #expect(daemon.waitFor("will perform"), "\(daemon.text)")
                // Again, dismissed with Esc: the cancel path, and the clipboard keeps the copy.
                try setStale(x, "kept")
                try press(x, "super+alt+m")
                #expect(
                    eventually { daemon.text.components(separatedBy: "popup mapped at").count == 3 }, "\(daemon.text)")
                #expect(eventually { daemon.text.components(separatedBy: "state {").count >= 3 }, "\(daemon.text)")
                try press(x, "Escape")
                #expect(daemon.waitFor("will end (cancelled)"), "\(daemon.text)")
                #expect(clipboard(x) == "kept")
                #expect(daemon.exited() == nil, "the daemon outlives its popups")
            }
        }
    }
}
