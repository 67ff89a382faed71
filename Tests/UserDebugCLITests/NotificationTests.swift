import Foundation
import TestSupport
import Testing

/// A session bus of our own (`dbus-run-session`) with a real notification daemon (dunst) on
/// an Xvfb; everything it starts is killed by pid at `stop`.
final class NotificationBus: @unchecked Sendable {
    let runner: Spawned
    let address: String
    let x: Xvfb
    let configFile: String
    /// dunst's stderr, shown when it did not do its part.
    let logFile: String

    /// Starts dbus-run-session running a shell that prints the bus address and runs dunst with
    /// a rule that marks critical notifications, so their urgency shows in `dunstctl history`.
    init(x: Xvfb, directory: URL) throws {
        self.x = x
        configFile = directory.appendingPathComponent("dunstrc").path
        logFile = directory.appendingPathComponent("dunst-\(UUID().uuidString).log").path
        let busFile = directory.appendingPathComponent("session-bus.conf").path
        try Self.busConfig(listen: "unix:tmpdir=/tmp").write(toFile: busFile, atomically: true, encoding: .utf8)
        try """
        [global]
            font = Monospace 8
        [critical_mark]
            msg_urgency = critical
            format = "CRITICAL %s"
        """.write(toFile: configFile, atomically: true, encoding: .utf8)
        runner = try Spawned.start(
            [
                "dbus-run-session", "--config-file=\(busFile)", "--", "/bin/sh", "-c",
                "echo \"$DBUS_SESSION_BUS_ADDRESS\"; exec dunst -config \"$0\" 2>\"$1\"", configFile, logFile,
            ],
            environment: x.environment, pipeOutput: true)
        address = runner.receiveLine() ?? ""
        guard address.hasPrefix("unix:") else {
            Self.kill(runner)
            throw TestSupport.FixtureError("dbus-run-session printed no address")
        }
        // dunst owns org.freedesktop.Notifications once `dunstctl` gets an answer from it.
        guard eventually(timeout: 15, { (try? self.dunstctl(["is-paused"]))?.status == 0 }) else {
            Self.kill(runner)
            throw TestSupport.FixtureError("dunst did not come up on \(address)")
        }
    }

    func stop() {
        Self.kill(runner)
    }

    /// A session bus that activates nothing: Debian's session bus would start a dunst of its
    /// own (dunst's D-Bus service file) for the first call to the service, racing ours.
    static func busConfig(listen: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(listen)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
          </policy>
        </busconfig>
        """
    }

    /// Ends dunst (the runner's command) so dbus-run-session stops its dbus-daemon, reaps both and
    /// exits; whatever is left after a deadline is killed by pid. The runner is reaped.
    private static func kill(_ runner: Spawned) {
        let children = descendants(of: runner.pid)
        for pid in children where command(of: pid) == "dunst" { Glibc.kill(pid, SIGTERM) }
        if !eventually(timeout: 10, { processExited(runner.pid) }) {
            for pid in descendants(of: runner.pid) { Glibc.kill(pid, SIGKILL) }
            runner.kill()
        }
        runner.wait()
        // dbus-run-session ends its dbus-daemon without waiting for it; one still there is ours
        // (checked by name, so a pid reused since is left alone).
        for pid in children where !processExited(pid) && ["dbus-daemon", "dunst"].contains(command(of: pid)) {
            Glibc.kill(pid, SIGKILL)
        }
    }

    private static func command(of pid: pid_t) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    private static func descendants(of root: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { children[parent, default: []].append(pid) }
        }
        var found: [pid_t] = []
        var queue = [root]
        while let next = queue.popLast() {
            let direct = children[next] ?? []
            found += direct
            queue += direct
        }
        return found
    }

    /// The environment a program on this desktop gets: display and bus.
    var environment: [String: String] {
        ["DISPLAY": x.display, "DBUS_SESSION_BUS_ADDRESS": address]
    }

    func dunstctl(_ arguments: [String]) throws -> Peer.Output {
        try Peer.read(["dunstctl"] + arguments, environment: x.environment.merging(environment) { $1 }, limit: 20)
    }

    /// Every notification received so far (in no promised order): summary, body and the
    /// formatted message. A marker sent last with dunstify says when dunst has shown all the
    /// earlier ones: they are closed into the history until the marker is there.
    func received() throws -> [(summary: String, body: String, message: String)] {
        let marker = "marker-\(UUID().uuidString)"
        let sent = try Peer.read(
            ["dunstify", "-a", "test", marker], environment: x.environment.merging(environment) { $1 }, limit: 20)
        var list: [(summary: String, body: String, message: String)] = []
        let complete = eventually(timeout: 20) {
            _ = try? dunstctl(["close-all"])
            guard let history = try? dunstctl(["history"]),
                let json = try? JSONSerialization.jsonObject(with: Data(history.bytes)) as? [String: Any],
                let data = (json["data"] as? [[[String: Any]]])?.first
            else { return false }
            func text(_ entry: [String: Any], _ key: String) -> String {
                (entry[key] as? [String: Any])?["data"] as? String ?? ""
            }
            list = data.map { (text($0, "summary"), text($0, "body"), text($0, "message")) }
            return list.contains { $0.summary == marker }
        }
        if !complete {
            let history = String(decoding: (try? dunstctl(["history"]))?.bytes ?? [], as: UTF8.self)
            let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            Issue.record(
                "dunst never showed the marker (dunstify exit \(sent.status)); history: \(history); log: \(log)")
        }
        return list.filter { !$0.summary.hasPrefix("marker-") }
    }
}

/// Notifications after an action started from a key, received by a real dunst.
@Suite(.serialized, .desktopTier) struct NotificationTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    /// Runs `userdebug ARGS` as a hotkey tool does: stdout to /dev/null, stderr to a file (neither
    /// a terminal). Its status and stderr.
    func runAsHotkey(_ arguments: [String], home: UserDebugHome, environment: [String: String]) throws -> RunResult {
        let errors = home.root.appendingPathComponent("stderr-\(UUID().uuidString)").path
        let result = try runTool(
            "/bin/sh", ["-c", "exec \"$@\" >/dev/null 2>\"$0\"", errors, UserDebugHome.binary] + arguments,
            environment: home.environment.merging(environment) { $1 })
        let stderr = (try? Data(contentsOf: URL(fileURLWithPath: errors))) ?? Data()
        return RunResult(status: result.status, stdout: result.stdout, stderr: stderr)
    }

    func withBus(_ body: (NotificationBus) throws -> Void) throws {
        try withXvfb { x in
            let bus = try NotificationBus(x: x, directory: home.root)
            defer { bus.stop() }
            try body(bus)
        }
    }

    /// The timeout dunst gave each notification in its history (microseconds; 0: never expires),
    /// the newest of a summary shown twice (the history lists the newest first).
    func timeouts(_ bus: NotificationBus) throws -> [String: Int] {
        _ = try bus.received()
        let history = try bus.dunstctl(["history"])
        let json = try JSONSerialization.jsonObject(with: Data(history.bytes)) as? [String: Any]
        var found: [String: Int] = [:]
        for entry in (json?["data"] as? [[[String: Any]]])?.first ?? [] {
            let summary = (entry["summary"] as? [String: Any])?["data"] as? String ?? ""
            if found[summary] == nil { found[summary] = (entry["timeout"] as? [String: Any])?["data"] as? Int }
        }
        return found
    }

    /// A failure's critical notification expires (30 s unless configured; null: when dismissed),
    /// where dunst's default keeps critical ones until dismissed (issue 28 item 5).
    @Test func aFailureNotificationExpiresAfterTheConfiguredTimeout() throws {
        let empty = try UserDebugHome()
        try withBus { bus in
            for (config, expected) in [
                (nil, 30_000_000), (#"{"notifications": {"failureTimeoutSeconds": 7}}"#, 7_000_000),
                (#"{"notifications": {"failureTimeoutSeconds": null}}"#, 0),
            ] {
                if let config { try empty.file("config/config.json", config) }
                let failed = try runAsHotkey(
                    ["copy-id", "--to", "clipboard"], home: empty, environment: bus.environment)
                #expect(failed.status == 66, "\(failed)")
                let found = try timeouts(bus)
                let failure = found.first { $0.key.hasPrefix("No store yet at ") }
                #expect(failure?.value == expected, "\(config ?? "default"): \(found)")
            }
        }
    }

    @Test func successAndFailureReachDunstAndNeitherCarriesTheToken() throws {
        try withBus { bus in
            #expect(
                try runAsHotkey(["copy-id", "--to", "clipboard"], home: home, environment: bus.environment).status == 0)
            #expect(
                try runAsHotkey(["copy-token", "--to", "clipboard"], home: home, environment: bus.environment).status
                    == 0)
            let empty = try UserDebugHome()
            let failed = try runAsHotkey(["copy-id", "--to", "clipboard"], home: empty, environment: bus.environment)
            #expect(failed.status == 66)
            let received = try bus.received()
            #expect(received.count == 3, "\(received)")
            let copied = received.first { $0.summary == "Copied user id usr_1" }
            #expect(copied?.body == "to CLIPBOARD" && copied?.message.hasPrefix("CRITICAL") == false, "\(received)")
            #expect(received.contains { $0.summary == "Copied the token (clears in 30 s)" })
            let failure = try #require(received.first { $0.summary.hasPrefix("No store yet at ") }, "\(received)")
            #expect(
                failure.body.hasPrefix("Record a session first, the sample one: userdebug session import /")
                    && failure.body.contains("/config/sample-session.json"), "\(failure)")
            #expect(failure.message.hasPrefix("CRITICAL "), "\(failure)")
            for notification in received {
                #expect(!"\(notification)".contains(Samples.canary))
            }
        }
    }

    /// A failing action whose error text would carry the token (its command echoes its stdin to
    /// stderr): the critical notification says it failed, without the token.
    @Test func aFailureThatQuotesTheTokenNotifiesWithoutIt() throws {
        try home.file(
            "config/config.json",
            #"{"actions": [{"id": "leak", "title": "Leak", "template": "{{session.token}}", "secret": true, "command": ["/bin/sh", "-c", "cat >&2; exit 3"]}]}"#
        )
        try withBus { bus in
            let result = try runAsHotkey(
                ["run", "leak", "--to", "clipboard"], home: home, environment: bus.environment)
            #expect(result.status == 69, "\(result)")
            let received = try bus.received()
            #expect(received.count == 1, "\(received)")
            #expect(!"\(received)".contains(Samples.canary) && !result.err.contains(Samples.canary))
        }
    }

    /// A config action whose title quotes the session's token: the success notification names
    /// the action without the token, as the menu shows its title.
    @Test func aTitleHoldingTheTokenIsNotifiedWithoutIt() throws {
        try home.file(
            "config/config.json",
            #"{"actions": [{"id": "greet", "title": "Greet \#(Samples.canary)", "template": "hello"}]}"#)
        try withBus { bus in
            let result = try runAsHotkey(
                ["run", "greet", "--to", "clipboard"], home: home, environment: bus.environment)
            #expect(result.status == 0, "\(result)")
            let received = try bus.received()
            #expect(received.map(\.summary) == ["Copied “Greet [redacted]” hello"], "\(received)")
            #expect(!"\(received)".contains(Samples.canary))
        }
    }

    /// A recorded user name with a line separator and a BiDi override: the one-line summary
    /// shows neither (a notification would break the line or reverse the text after it).
    @Test func aNameWithLayoutControlsStaysOneReadableLine() throws {
        let hostile = try UserDebugHome()
        try hostile.ok(
            ["session", "import", "-"],
            stdin: Samples.session.replacingOccurrences(of: "Zoë", with: #"Zoë\u2028\u202Eevil\u2066"#))
        try withBus { bus in
            let result = try runAsHotkey(
                ["run", "copy-name", "--to", "clipboard"], home: hostile, environment: bus.environment)
            #expect(result.status == 0, "\(result)")
            let received = try bus.received()
            #expect(received.map(\.summary) == ["Copied user name Zoë  evil"], "\(received)")
        }
    }

    @Test func neverSendsNoneAndATerminalOrAPipeIsNotAKey() throws {
        try withBus { bus in
            try home.file("config/config.json", #"{"notifications": "never"}"#)
            #expect(
                try runAsHotkey(["copy-id", "--to", "clipboard"], home: home, environment: bus.environment).status == 0)
            try home.file("config/config.json", #"{"notifications": "auto"}"#)
            // Piped stdout: a script reads the result; no notification.
            #expect(try home.run(["copy-id"], extraEnvironment: bus.environment).out == "usr_1\n")
            #expect(try bus.received().isEmpty)
            try home.file("config/config.json", #"{"notifications": "always"}"#)
            #expect(try home.run(["copy-id"], extraEnvironment: bus.environment).status == 0)
            #expect(try bus.received().map(\.summary) == ["Wrote user id usr_1"])
        }
    }

    @Test func launchersNotifyWhatTheyCopied() throws {
        try withBus { bus in
            var environment = bus.environment
            environment["ROFI_RETV"] = "1"
            environment["ROFI_INFO"] = "copy-name"
            let rofi = try home.run(["rofi"], extraEnvironment: environment)
            #expect(rofi.status == 0, "\(rofi)")
            let dmenu = try home.run(
                ["menu", "--dmenu", "--launcher", "echo nothing"], extraEnvironment: bus.environment)
            #expect(dmenu.status == 1)
            #expect(try bus.received().map(\.summary) == ["Copied user name Zoë"], "\(rofi)")
        }
    }

    /// The hotkey daemon's keys: a copy is told, and a key whose action fails (the store moved
    /// away) is a critical notification, never silence; neither carries the token.
    @Test func theDaemonsKeysNotifyTheirSuccessAndTheirFailure() throws {
        try home.file("config/config.json", #"{"hotkeys": {"Super+Alt+I": "copy-id", "Super+Alt+T": "copy-token"}}"#)
        try withBus { bus in
            let runtime = home.root.appendingPathComponent("run")
            try FileManager.default.createDirectory(
                at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let environment = home.environment.merging(bus.environment) { $1 }
                .merging(["XDG_RUNTIME_DIR": runtime.path]) { $1 }
            let daemon = try DaemonRun(home: home, environment: environment)
            defer { daemon.stop() }
            try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
            let press = { (keys: String) in
                _ = try Peer.read(["xdotool", "key", "--delay", "0", keys], environment: bus.x.environment, limit: 20)
            }
            func received() -> [(summary: String, body: String, message: String)] { (try? bus.received()) ?? [] }
            try press("super+alt+i")
            #expect(eventually { received().contains { $0.summary == "Copied user id usr_1" } }, "\(daemon.text)")
            try press("super+alt+t")
            #expect(
                eventually { received().contains { $0.summary == "Copied the token (clears in 30 s)" } },
                "\(daemon.text)")
            let data = home.root.appendingPathComponent("data")
            try FileManager.default.moveItem(at: data, to: home.root.appendingPathComponent("data.moved"))
            try press("super+alt+i")
            #expect(
                eventually {
                    received().contains { $0.summary.hasPrefix("No store yet at ") && $0.message.hasPrefix("CRITICAL") }
                }, "\(received()) \(daemon.text)")
            for notification in received() {
                #expect(!"\(notification)".contains(Samples.canary))
            }
            #expect(daemon.exited() == nil, "a failing key does not end the daemon")
        }
    }

    /// A runtime directory of the test's own (the daemon's lock), named `name`, mode 0700.
    func runtime(_ name: String) throws -> String {
        let directory = home.root.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return directory.path
    }

    /// Starts `userdebug daemon` as an autostart entry does: no terminal, stdin, stdout and stderr
    /// on /dev/null. Its exit status; nil when it still ran after 10 s (it is killed then).
    func startAsAutostart(environment: [String: String]) throws -> Int32? {
        let daemon = try DaemonRun(home: home, environment: environment, arguments: [], autostart: true)
        defer { daemon.stop() }
        return daemon.waitForExit()
    }

    /// Each way a daemon started as autostart can fail to start sends one critical notification
    /// naming the fix: a config error, no DISPLAY, the lock held, every key taken.
    @Test func aDaemonThatCannotStartSaysSoOnTheDesktop() throws {
        try withBus { bus in
            let desktop = home.environment.merging(bus.environment) { $1 }
                .merging(["XDG_RUNTIME_DIR": try runtime("run")]) { $1 }
            func received() -> [(summary: String, body: String, message: String)] { (try? bus.received()) ?? [] }

            try home.file("config/config.json", "{\n  \"hotkeys\": {\"Super+Alt+Nope\": \"copy-id\"}\n}\n")
            #expect(try startAsAutostart(environment: desktop) == 78)
            var withoutDisplay = desktop
            withoutDisplay["DISPLAY"] = nil
            try home.file("config/config.json", #"{"hotkeys": {"Super+Alt+I": "copy-id", "Super+Alt+J": "dump-json"}}"#)
            #expect(try startAsAutostart(environment: withoutDisplay) == 69)

            let first = try DaemonRun(home: home, environment: desktop)
            defer { first.stop() }
            try #require(first.waitFor("daemon: pid "), "\(first.text)")
            #expect(try startAsAutostart(environment: desktop) == 75)
            // Under another runtime directory the lock is another one: the keys are what is taken.
            let elsewhere = desktop.merging(["XDG_RUNTIME_DIR": try runtime("run-other")]) { $1 }
            #expect(try startAsAutostart(environment: elsewhere) == 69)

            let all = received()
            #expect(all.count == 4, "one notification per failed start: \(all)")
            let expected: [(summary: String, body: String)] = [
                (
                    "Hotkey daemon not started: \(home.configPath):2:15: hotkeys.Super+Alt+Nope: \"Nope\" is not a keysym name",
                    "Fix the config file, then start the daemon again: 'userdebug daemon --check' shows where"
                ),
                (
                    "Hotkey daemon not started: no DISPLAY: the daemon grabs its keys on an X display",
                    "Start it from the X session: for the systemd unit, systemctl --user import-environment DISPLAY XAUTHORITY first"
                ),
                (
                    "Hotkey daemon not started: userdebug daemon already runs (pid \(first.pid)) on \(bus.x.display)",
                    "Start it one way only: the autostart entry (~/.config/autostart/userdebug.desktop) or the systemd unit (userdebug.service), not both"
                ),
                (
                    "Hotkey daemon not started: none of the 2 hotkeys could be grabbed (Super+Alt+I is taken by another program, Super+Alt+J is taken by another program)",
                    "Free them in the program that holds them (xbindkeys, sxhkd, the desktop's shortcuts)"
                ),
            ]
            for (summary, body) in expected {
                let match = all.first { $0.summary.hasPrefix(summary) }
                #expect(match != nil, "no \(summary) in \(all)")
                #expect(match?.body.hasPrefix(body) == true, "\(body) in \(String(describing: match))")
                #expect(match?.message.hasPrefix("CRITICAL") == true, "\(String(describing: match))")
            }
            #expect(first.exited() == nil)
        }
    }

    /// A broken edit while the daemon runs: the keys stay, and the desktop is told once.
    @Test func aBrokenEditWhileTheDaemonRunsIsNotifiedOnce() throws {
        try home.file("config/config.json", #"{"hotkeys": {"Super+Alt+I": "copy-id"}}"#)
        try withBus { bus in
            let desktop = home.environment.merging(bus.environment) { $1 }
                .merging(["XDG_RUNTIME_DIR": try runtime("run")]) { $1 }
            let daemon = try DaemonRun(home: home, environment: desktop)
            defer { daemon.stop() }
            try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
            let broken = "{\n  \"hotkeys\": {\"Super+Alt+Nope\": \"copy-id\"}\n}\n"
            try home.file("config/config.json", broken)
            #expect(daemon.waitFor("keeping the previous hotkeys"), "\(daemon.text)")
            // The same broken file written again: said on stderr, not notified again.
            try home.file("config/config.json", broken)
            #expect(
                eventually { daemon.text.components(separatedBy: "keeping the previous hotkeys").count >= 3 },
                "\(daemon.text)")
            let received = try bus.received()
            #expect(received.count == 1, "\(received)")
            let notice = received.first
            #expect(
                notice?.summary.hasPrefix(
                    "Hotkey daemon kept its previous keys: \(home.configPath):2:15: hotkeys.Super+Alt+Nope: \"Nope\" is not a keysym name"
                ) == true, "\(received)")
            #expect(notice?.body == "Fix the config file: the daemon reads it again when it changes", "\(received)")
            #expect(notice?.message.hasPrefix("CRITICAL") == true, "\(received)")
            #expect(daemon.exited() == nil)
        }
    }

    @Test func withoutABusStderrAloneTellsAndNothingWaits() throws {
        let runtime = home.root.appendingPathComponent("runtime").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let empty = try UserDebugHome()
        try empty.file("config/config.json", #"{"notifications": "always"}"#)
        let noBus = ["XDG_RUNTIME_DIR": runtime]
        let failed = try runAsHotkey(["copy-id", "--to", "clipboard"], home: empty, environment: noBus)
        #expect(failed.status == 66)
        #expect(failed.err.contains("no store yet") && failed.err.contains("notification not shown: no session bus"))
        // A bus address where nothing listens: refused at once, said on stderr.
        let deadAddress = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(runtime)/nothing-here"]
        let refused = try runAsHotkey(["copy-id", "--to", "clipboard"], home: empty, environment: deadAddress)
        #expect(refused.status == 66 && refused.err.contains("the session bus is unreachable"), "\(refused)")
    }

    /// A bus on an abstract socket with no notification service: connected, authenticated and
    /// answered (ServiceUnknown), which stderr says in words, not as the D-Bus error's name; the
    /// action's own result is untouched.
    @Test func aBusWithoutTheServiceAnswersAnErrorThatStderrShows() throws {
        let configFile = try home.file(
            "bus.conf", NotificationBus.busConfig(listen: "unix:abstract=/tmp/userdebug-test-\(UUID().uuidString)"))
        let daemon = try Spawned.start(
            ["dbus-daemon", "--config-file=\(configFile)", "--nofork", "--print-address=1"],
            environment: home.environment, pipeOutput: true)
        defer {
            daemon.kill()
            daemon.wait()
        }
        let address = daemon.receiveLine() ?? ""
        #expect(address.hasPrefix("unix:abstract="), "\(address)")
        try home.file("config/config.json", #"{"notifications": "always"}"#)
        let result = try home.run(
            ["copy-id", "--to", "stdout"], extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": address])
        #expect(result.status == 0 && result.out == "usr_1\n", "\(result)")
        #expect(
            result.err.contains("notification not shown: no notification service is running on the session bus"),
            "\(result)")
        #expect(!result.err.contains("org.freedesktop.DBus"), "no raw D-Bus error name: \(result)")
    }
}
