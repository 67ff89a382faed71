import Foundation
import TestSupport
import Testing
import UserDebugKit

/// `userdebug doctor` as the desktop health check, on the real pieces: a private Xvfb, the built
/// daemon, dunst on a private session bus, sway. Each broken state of a first hour: the cause,
/// the fix, the exit status; then the fix, and `doctor` exits 0.
@Suite(.serialized, .desktopTier) struct DoctorTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
    }

    static let config = #"{"hotkeys": {"Super+Alt+I": "copy-id", "Super+Alt+J": "dump-json"}}"#

    /// A desktop where a hotkey has what it needs: Xvfb, dunst on a bus of its own, a runtime
    /// directory of the test's own (the daemon's lock and status), the config's hotkeys.
    struct Desktop {
        let x: Xvfb
        let bus: NotificationBus?
        let runtime: String

        var environment: [String: String] {
            var values = ["DISPLAY": x.display, "XDG_RUNTIME_DIR": runtime]
            if let bus { values["DBUS_SESSION_BUS_ADDRESS"] = bus.address }
            return values
        }
    }

    func withDesktop(notifications: Bool = true, _ body: (Desktop) throws -> Void) throws {
        try home.file("config/config.json", Self.config)
        let runtime = home.root.appendingPathComponent("run")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try withXvfb { x in
            let bus = notifications ? try NotificationBus(x: x, directory: home.root) : nil
            defer { bus?.stop() }
            try body(Desktop(x: x, bus: bus, runtime: runtime.path))
        }
    }

    /// A daemon on the desktop, stopped afterwards, once it has grabbed its keys.
    func withDaemon<R>(
        _ desktop: Desktop, arguments: [String] = ["--trace"], _ body: (DaemonRun) throws -> R
    ) throws -> R {
        let daemon = try DaemonRun(
            home: home, environment: home.environment.merging(desktop.environment) { $1 }, arguments: arguments)
        defer { daemon.stop() }
        try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
        return try body(daemon)
    }

    /// `doctor --json` on the desktop: its exit status and the checks by name.
    func doctor(_ environment: [String: String], binary: String = UserDebugHome.binary) throws -> (
        status: Int32, checks: [String: JSONValue], result: RunResult
    ) {
        let result = try runTool(
            binary, ["doctor", "--json"], environment: home.environment.merging(environment) { $1 })
        let json = try JSONParser().parse(Array(result.stdout))
        var checks: [String: JSONValue] = [:]
        for check in json["checks"]?.arrayValue ?? [] {
            if let name = check["check"]?.stringValue { checks[name] = check }
        }
        #expect(json["status"]?.scalarText == String(result.status), "\(result)")
        return (result.status, checks, result)
    }

    func state(_ check: JSONValue?) -> String { check?["state"]?.stringValue ?? "missing" }

    /// Runs a fix as a user would paste it into a shell.
    func runFix(_ fix: String, _ environment: [String: String], stdin: Data? = nil) throws -> RunResult {
        let bin = URL(fileURLWithPath: UserDebugHome.binary).deletingLastPathComponent().path
        var values = home.environment.merging(environment) { $1 }
        values["PATH"] = bin + ":" + (values["PATH"] ?? "/usr/bin:/bin")
        return try runTool("/bin/sh", ["-c", fix], stdin: stdin, environment: values)
    }

    @Test func everythingInPlaceExits0AndTheTextNamesEachLine() throws {
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try withDesktop { desktop in
            try withDaemon(desktop) { daemon in
                let (status, checks, result) = try doctor(desktop.environment)
                #expect(status == 0, "\(result)")
                // (The popup is not needed here: no key opens the menu, so it is at most a warning.)
                for name in ["config", "session", "desktop", "daemon", "keys", "notifications"] {
                    #expect(state(checks[name]) == "ok", "\(name): \(result)")
                }
                #expect(checks["config"]?["detail"]?.stringValue?.contains("in force: hotkeys") == true, "\(result)")
                #expect(checks["session"]?["detail"]?.stringValue == "'staging' (user usr_1), token present")
                #expect(checks["desktop"]?["detail"]?.stringValue == "X11 (DISPLAY=\(desktop.x.display))")
                #expect(
                    checks["daemon"]?["detail"]?.stringValue?.hasPrefix(
                        "pid \(daemon.pid) on \(desktop.x.display) holds Super+Alt+I → copy-id, Super+Alt+J → dump-json"
                    )
                        == true, "\(result)")
                #expect(!result.out.contains(Samples.canary) && !result.err.contains(Samples.canary))
                let text = try runTool(
                    UserDebugHome.binary, ["doctor"], environment: home.environment.merging(desktop.environment) { $1 })
                #expect(text.status == 0, "\(text)")
                #expect(text.out.hasPrefix("backend: x11\n"), "\(text)")
                #expect(text.out.contains("\nchecks:\n  config: ok — "), "\(text)")
                #expect(text.out.contains("\n  notifications: ok — a notification service answers"), "\(text)")
                #expect(text.out.hasSuffix("hotkeys: everything they need is in place\n"), "\(text)")
            }
        }
    }

    @Test func noSessionIs66AndTheImportItNamesFixesIt() throws {
        try withDesktop { desktop in
            try withDaemon(desktop) { _ in
                let before = try doctor(desktop.environment)
                #expect(before.status == 66, "\(before.result)")
                #expect(state(before.checks["session"]) == "problem")
                let fix = try #require(before.checks["session"]?["fix"]?.stringValue)
                // The sample session, by its path: the fix runs as printed.
                #expect(fix.hasPrefix("userdebug session import /") && fix.hasSuffix("/config/sample-session.json"))
                #expect(before.result.err.contains("session: no store yet"), "\(before.result)")
                let fixed = try runFix("cd '\(home.root.path)' && " + fix, desktop.environment)
                #expect(fixed.status == 0, "\(fixed)")
                let after = try doctor(desktop.environment)
                #expect(after.status == 0, "\(after.result)")
            }
        }
    }

    /// A session whose token is the placeholder of a redacted export (as a logged-out one, it
    /// has none): 66 naming it, and the `session set --token-stdin` it names fixes it.
    @Test func aSessionWithoutATokenIs66AndTokenStdinFixesIt() throws {
        let redacted = Samples.session.replacing(Samples.canary, with: "[redacted]")
        try home.ok(["session", "import", "-"], stdin: redacted)
        try withDesktop { desktop in
            try withDaemon(desktop) { _ in
                let before = try doctor(desktop.environment)
                #expect(before.status == 66, "\(before.result)")
                let detail = before.checks["session"]?["detail"]?.stringValue ?? ""
                #expect(detail.contains("'staging' (user usr_1) has no usable token"), "\(before.result)")
                let fix = try #require(before.checks["session"]?["fix"]?.stringValue)
                #expect(fix == "userdebug session set --session staging --token-stdin")
                let fixed = try runFix(fix, desktop.environment, stdin: Data("tok-new".utf8))
                #expect(fixed.status == 0, "\(fixed)")
                #expect(try doctor(desktop.environment).status == 0)
            }
        }
    }

    /// A broken config: 78 with its place, the rest still checked with the defaults; the `mv`
    /// it names puts it aside, and the defaults (no hotkeys: no daemon needed) pass.
    @Test func aBrokenConfigIs78AndTheRestIsStillChecked() throws {
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try withDesktop { desktop in
            try home.file("config/config.json", "{\n  \"hotkeys\": {\"Super+Alt+I\": 7}\n}\n")
            let before = try doctor(desktop.environment)
            #expect(before.status == 78, "\(before.result)")
            #expect(state(before.checks["config"]) == "problem")
            #expect(before.checks["config"]?["detail"]?.stringValue?.contains("config.json:2:") == true)
            #expect(state(before.checks["session"]) == "ok" && state(before.checks["notifications"]) == "ok")
            let fix = try #require(before.checks["config"]?["fix"]?.stringValue)
            #expect(fix.hasPrefix("mv "), "\(fix)")
            let command = String(fix.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
            #expect(try runFix(command, desktop.environment).status == 0)
            let after = try doctor(desktop.environment)
            #expect(after.status == 0, "\(after.result)")
            #expect(after.checks["config"]?["detail"]?.stringValue?.contains("the defaults are in force") == true)
            #expect(state(after.checks["daemon"]) == "warning", "no hotkeys: no daemon needed")
        }
    }

    /// No daemon: 69 naming the command that starts one; started (held by the test, so it is
    /// stopped), `doctor` exits 0 and names the keys it holds.
    @Test func noDaemonIs69AndStartingItFixesIt() throws {
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try withDesktop { desktop in
            let before = try doctor(desktop.environment)
            #expect(before.status == 69, "\(before.result)")
            #expect(
                before.checks["daemon"]?["detail"]?.stringValue?.hasPrefix("no daemon runs on \(desktop.x.display)")
                    == true, "\(before.result)")
            #expect(before.checks["daemon"]?["fix"]?.stringValue == "setsid -f userdebug daemon")
            #expect(before.checks["keys"]?["detail"]?.stringValue?.contains("free for the daemon to grab") == true)
            let after = try withDaemon(desktop, arguments: []) { _ in try doctor(desktop.environment) }
            #expect(after.status == 0, "\(after.result)")
            // The installed unit is the command named when it is there.
            try home.file(".config/systemd/user/userdebug.service", "[Service]\n")
            let unit = try doctor(desktop.environment)
            #expect(unit.checks["daemon"]?["fix"]?.stringValue == "systemctl --user start userdebug.service")
        }
    }

    /// Keys another program holds (another daemon, under a runtime directory of its own): the
    /// keys line names them, found by a grab of doctor's own; freed and reloaded, exit 0.
    @Test func keysTakenByAnotherProgramAre69AndFreeingThemFixesIt() throws {
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try withDesktop { desktop in
            let otherRuntime = home.root.appendingPathComponent("run-other")
            try FileManager.default.createDirectory(
                at: otherRuntime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var other = desktop.environment
            other["XDG_RUNTIME_DIR"] = otherRuntime.path
            let holder = try DaemonRun(home: home, environment: home.environment.merging(other) { $1 })
            defer { holder.stop() }
            try #require(holder.waitFor("daemon: pid "), "\(holder.text)")

            let alone = try doctor(desktop.environment)
            #expect(alone.status == 69 && state(alone.checks["daemon"]) == "problem", "\(alone.result)")
            #expect(
                alone.checks["keys"]?["detail"]?.stringValue == "Super+Alt+I, Super+Alt+J taken by another program",
                "\(alone.result)")

            try withDaemon(desktop, arguments: ["--keep-waiting"]) { daemon in
                let before = try doctor(desktop.environment)
                #expect(before.status == 69, "\(before.result)")
                #expect(before.checks["daemon"]?["detail"]?.stringValue?.contains("holds no key") == true)
                #expect(state(before.checks["keys"]) == "problem", "\(before.result)")
                let fix = before.checks["keys"]?["fix"]?.stringValue ?? ""
                #expect(fix.contains("and run kill -HUP \(daemon.pid)"), "\(fix)")
                holder.stop()
                #expect(try runFix("kill -HUP \(daemon.pid)", desktop.environment).status == 0)
                #expect(daemon.waitFor("2 hotkeys grabbed: "), "\(daemon.text)")
                #expect(eventually { (try? doctor(desktop.environment).status) == 0 })
            }
        }
    }

    /// No notification service on the session bus: 69 naming dunst; with dunst on the bus, 0.
    @Test func noNotificationServiceIs69AndDunstFixesIt() throws {
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try withDesktop(notifications: false) { desktop in
            try withDaemon(desktop) { _ in
                let none = try doctor(desktop.environment)
                #expect(none.status == 69, "\(none.result)")
                #expect(none.checks["notifications"]?["detail"]?.stringValue?.hasPrefix("no session bus") == true)
                // A bus without a notification service: the bus's own error, in words.
                let runtime = home.root.appendingPathComponent("bus-only")
                try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
                let busFile = runtime.appendingPathComponent("bus.conf").path
                try NotificationBus.busConfig(listen: "unix:tmpdir=/tmp").write(
                    toFile: busFile, atomically: true, encoding: .utf8)
                let bus = try Spawned.start(
                    ["dbus-daemon", "--config-file=\(busFile)", "--print-address=1", "--nofork"],
                    environment: desktop.x.environment, pipeOutput: true)
                defer {
                    bus.kill()
                    _ = bus.wait()
                }
                let address = try #require(bus.receiveLine())
                var environment = desktop.environment
                environment["DBUS_SESSION_BUS_ADDRESS"] = address
                let silent = try doctor(environment)
                #expect(silent.status == 69, "\(silent.result)")
                let detail = silent.checks["notifications"]?["detail"]?.stringValue ?? ""
                #expect(!detail.contains("org.freedesktop.DBus.Error"), "\(detail)")
                #expect(silent.checks["notifications"]?["fix"]?.stringValue?.contains("dunst") == true)
                // The fix: a notification service (dunst, on a bus of the test's own).
                let dunst = try NotificationBus(x: desktop.x, directory: home.root)
                defer { dunst.stop() }
                environment["DBUS_SESSION_BUS_ADDRESS"] = dunst.address
                #expect(try doctor(environment).status == 0)
            }
        }
    }

    /// A menu key without `userdebug-popup` beside userdebug or on PATH: 69; installed beside
    /// it (what Scripts/install.sh does), 0. A popup others may replace: 77 with its chmod.
    @Test func aMenuKeyWithoutThePopupIs69AndInstallingItFixesIt() throws {
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try withDesktop { desktop in
            try home.file("config/config.json", #"{"hotkeys": {"Super+Alt+M": "menu"}}"#)
            let bin = home.root.appendingPathComponent("bin")
            try FileManager.default.createDirectory(
                at: bin, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let copy = bin.appendingPathComponent("userdebug").path
            try copyExecutable(UserDebugHome.binary, to: copy)
            var environment = desktop.environment
            environment["PATH"] = "/usr/bin:/bin"
            try withDaemon(desktop) { _ in
                let before = try doctor(environment, binary: copy)
                #expect(before.status == 69, "\(before.result)")
                #expect(
                    before.checks["popup"]?["detail"]?.stringValue?.hasPrefix(
                        "userdebug-popup is not installed beside userdebug nor on PATH") == true, "\(before.result)")
                let popup = bin.appendingPathComponent("userdebug-popup").path
                let built = URL(fileURLWithPath: UserDebugHome.binary).deletingLastPathComponent()
                try copyExecutable(built.appendingPathComponent("userdebug-popup").path, to: popup)
                let after = try doctor(environment, binary: copy)
                #expect(after.status == 0, "\(after.result)")
                #expect(after.checks["popup"]?["detail"]?.stringValue == popup)
                try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: popup)
                let loose = try doctor(environment, binary: copy)
                #expect(loose.status == 77, "\(loose.result)")
                #expect(loose.checks["popup"]?["fix"]?.stringValue == "chmod go-w \(popup)", "\(loose.result)")
            }
        }
    }

    /// The daemon's status file: 0600, its keys, gone when it leaves; one that is not the
    /// user's alone, or names another pid, is not believed.
    @Test func theDaemonsStatusFileIsPrivateAndCheckedBeforeItIsBelieved() throws {
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try withDesktop { desktop in
            let path = desktop.runtime + "/userdebug-daemon-\(desktop.x.display).status"
            try withDaemon(desktop) { daemon in
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
                let status = try JSONParser().parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                #expect(status["pid"]?.scalarText == String(daemon.pid))
                let keys = status["keys"]?.arrayValue ?? []
                #expect(keys.count == 2 && keys.allSatisfy { $0["problem"] == .null }, "\(status)")
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
                let loose = try doctor(desktop.environment)
                #expect(state(loose.checks["daemon"]) == "warning", "\(loose.result)")
                #expect(loose.checks["daemon"]?["detail"]?.stringValue?.contains("not believed") == true)
                // The fix it names: SIGHUP writes the file anew.
                #expect(loose.checks["daemon"]?["fix"]?.stringValue == "kill -HUP \(daemon.pid)")
                #expect(try runFix("kill -HUP \(daemon.pid)", desktop.environment).status == 0)
                #expect(eventually { (try? doctor(desktop.environment).status) == 0 })
                daemon.process.kill(SIGTERM)
                #expect(daemon.waitForExit() == 0, "\(daemon.text)")
                #expect(!FileManager.default.fileExists(atPath: path), "the status file outlived the daemon")
            }
            // A status file with no daemon holding the lock says nothing.
            let planted = #"{"pid": 1, "display": ":0", "config": "x", "keys": []}"#
            try planted.write(toFile: path, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            let none = try doctor(desktop.environment)
            #expect(
                none.checks["daemon"]?["detail"]?.stringValue?.hasPrefix("no daemon runs") == true, "\(none.result)")
        }
    }
}

/// `doctor` under sway: a Wayland session with XWayland, and WAYLAND_DISPLAY unset there.
@Suite(.serialized, .desktopTier) struct DoctorSwayTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func doctor(_ sway: Sway, _ environment: [String: String]) throws -> [String: JSONValue] {
        try doctorRun(sway, environment).checks
    }

    /// `doctor --json` as sway's user: its exit status and its checks by name.
    func doctorRun(_ sway: Sway, _ environment: [String: String]) throws -> (
        status: Int32, checks: [String: JSONValue]
    ) {
        let chown = try runTool("/bin/chown", ["-R", "\(sway.account.uid):\(sway.account.gid)", home.root.path])
        try #require(chown.status == 0, "\(chown)")
        let result = try runTool(
            "/usr/bin/setpriv",
            Array(TestUser.runningAs(sway.account).dropFirst()) + [UserDebugHome.binary, "doctor", "--json"],
            environment: home.environment.merging(environment) { $1 })
        let json = try JSONParser().parse(Array(result.stdout))
        var checks: [String: JSONValue] = [:]
        for check in json["checks"]?.arrayValue ?? [] {
            if let name = check["check"]?.stringValue { checks[name] = check }
        }
        return (result.status, checks)
    }

    @Test func waylandDisplayUnsetOnSwayIsAProblemAndExportingItFixesIt() throws {
        // Keys bound by sway itself (no daemon's hotkeys) and no notifications: what remains for
        // doctor to find on this stand is the Wayland connection, so the fix brings it to 0.
        try home.file("config/config.json", #"{"notifications": "never"}"#)
        try withSway { sway in
            let unset = ["DISPLAY": sway.xDisplay, "XDG_RUNTIME_DIR": sway.runtimeDir]
            let before = try doctor(sway, unset)
            #expect(before["wayland"]?["state"]?.stringValue == "problem", "\(before)")
            #expect(before["wayland"]?["status"]?.scalarText == "69")
            #expect(
                before["wayland"]?["fix"]?.stringValue?.hasPrefix("export WAYLAND_DISPLAY=\(sway.socket)") == true,
                "\(before)")
            var set = unset
            set["WAYLAND_DISPLAY"] = sway.socket
            #expect(try doctorRun(sway, unset).status == 69)
            let (status, after) = try doctorRun(sway, set)
            #expect(after["wayland"] == nil, "\(after)")
            #expect(status == 0, "after the fix doctor finds nothing: \(after)")
            #expect(
                after["desktop"]?["detail"]?.stringValue
                    == "Wayland (\(sway.socket)) with XWayland on DISPLAY=\(sway.xDisplay)", "\(after)")
        }
    }
}

extension UserDebugHome {
    /// `userdebug doctor ARGUMENTS` where its health checks are expected to end with `status`
    /// (the report is on stdout whatever they find): for the tests that read the report's
    /// clipboard route on a desktop without a notification service or a display.
    @discardableResult
    func doctor(
        _ arguments: [String] = [], status: Int32, extraEnvironment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try run(["doctor"] + arguments, extraEnvironment: extraEnvironment)
        #expect(result.status == status, "userdebug doctor: \(result)", sourceLocation: sourceLocation)
        return result
    }
}
