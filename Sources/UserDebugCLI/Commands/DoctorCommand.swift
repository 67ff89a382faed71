import UserDebugKit
import WaylandClipboard
import X11Clipboard

#if canImport(Glibc)
    import Glibc
#endif

/// `userdebug doctor`: which clipboard backend a copy would use and why — each probe the rule
/// asks, its answer, and the rule's verdict — and what a hotkey needs (`DoctorHealth`), as
/// text, or as JSON for scripts.
enum DoctorCommand {
    static let spec = CommandSpec(
        path: ["doctor"],
        summary: "Check what a hotkey needs, naming the fix for each problem, and show the clipboard route.",
        usage: "doctor [--backend auto|wayland|x11] [--json] [--salvage NEW-STORE]",
        discussion: """
            Answers "why does my key do nothing?". Shows the clipboard route as every command
            applies it: a Wayland compositor with data-control, else the X display (XWayland under
            GNOME and weston), else standard output; --backend and clipboard.backend force one.
            Checks the store with SQLite's integrity check, read-only. Then one line per check,
            each with the command that fixes a problem: config (parses; the sections in force),
            session (a current one with a usable token), desktop (X11, or Wayland and XWayland),
            WAYLAND_DISPLAY unset beside a compositor of yours, the daemon on this display and the
            keys it holds, keys another program holds, a notification service on the session bus,
            userdebug-popup (for a menu key) and the launcher, found and safe to run.
            Exits 0 only when a hotkey has all it needs; else with the first problem's status:
            78 config, 74 damaged store, 66 no session or no token, 69 no display, WAYLAND_DISPLAY
            unset, no daemon, a key taken or not held, no notification service, no popup, 77 a
            popup others may replace.
            --salvage NEW-STORE copies every session and response that can still be read into a
            new store file (which must not exist); point USERDEBUG_HOME at it, or move it into
            place.
            Example: userdebug doctor --json | jq -r '.checks[] | select(.state == "problem") | .fix'
            """,
        options: [
            OutputTarget.backendOption, .flag("json", "The findings as one JSON document."),
            .value(
                "salvage", "NEW-STORE", completes: .file,
                "Copy what is readable of a damaged store into a new store file."),
        ],
        maxPositionals: 0
    ) { invocation in
        if let target = invocation.arguments.value("salvage") { return try salvage(invocation, into: target) }
        let report = try DoctorReport.gather(invocation)
        let payload =
            invocation.arguments.has("json")
            ? Payload(text: JSONWriter(indent: 2).string(report.json), kind: .json) : Payload(text: report.text)
        try StandardOutputSink(isTerminal: invocation.stdoutKind == .terminal).write(payload)
        if let problem = report.health.firstProblem, let status = problem.status {
            // The store's damage is the report itself (the salvage line says what to do).
            if problem.name == "store" { throw PassThroughExit(status: status.rawValue) }
            throw CommandError(
                status, "\(problem.name): \(problem.detail)" + (problem.fix.map { "; fix: \($0)" } ?? ""))
        }
    }

    /// `--salvage NEW-STORE`: the readable rows into a new store, and what was kept on stderr.
    private static func salvage(_ invocation: Invocation, into target: String) throws {
        let path = invocation.paths.databasePath
        var status = stat()
        if lstat(target, &status) == 0 {
            throw CommandError(
                .noPermission, "\(target) exists; --salvage writes a new store file and replaces nothing")
        }
        let report = try SessionStore.salvage(from: path, into: target)
        invocation.diagnostics.notice(
            "kept \(report.sessions) sessions and \(report.responses) responses of \(path) in \(target);"
                + " \(report.unreadable) rows or places could not be read."
                + " Use it with USERDEBUG_HOME, or move it over the store once no program has the store open")
    }
}

/// The store's part of the report.
struct StoreFinding {
    var path: String
    var diagnosis: SessionStore.Diagnosis

    var text: String {
        switch diagnosis {
        case .missing: return "\(path) — none yet"
        case .intact: return "\(path) — ok (integrity check passed)"
        case .damaged(let problems):
            return "\(path) — DAMAGED: " + problems.joined(separator: "; ")
                + "\n  keep what is readable: userdebug doctor --salvage NEW.sqlite3 (the store is left as it is)"
        }
    }

    var json: JSONValue {
        let state: String
        var problems: [String] = []
        switch diagnosis {
        case .missing: state = "none"
        case .intact: state = "ok"
        case .damaged(let found):
            state = "damaged"
            problems = found
        }
        return .object(
            JSONObject([
                "path": .string(path), "state": .string(state), "problems": .array(problems.map(JSONValue.string)),
            ]))
    }
}

/// What asking `DISPLAY` found.
enum X11Finding: Sendable, Equatable {
    /// `DISPLAY` is unset or empty.
    case notSet
    /// No X server answered in time.
    case notAnswering(String)
    /// The X server answered; whether CLIPBOARD has an owner (nil: the owner did not answer).
    case answers(clipboardOwned: Bool?)

    /// Asks `display` within `timeout` seconds: a read of CLIPBOARD's TARGETS, which connects,
    /// completes the X setup and finds the owner, through the X11 backend's public reader.
    static func probe(_ display: String?, timeout: Double) -> X11Finding {
        guard let display, !display.isEmpty else { return .notSet }
        let reader = X11Clipboard(display: display, policy: OwnerPolicy(callerExitsSoon: true))
        do throws(ClipboardError) {
            _ = try reader.paste(selection: .clipboard, target: "TARGETS", timeout: timeout)
            return .answers(clipboardOwned: true)
        } catch .noDisplay(let reason) {
            return .notAnswering(reason)
        } catch .noContent {
            return .answers(clipboardOwned: false)
        } catch {
            return .answers(clipboardOwned: nil)
        }
    }

    /// The finding in words, after `DISPLAY=NAME`.
    var description: String {
        switch self {
        case .notSet: "not set"
        case .notAnswering(let reason): "does not answer (\(reason))"
        case .answers(true): "answers; CLIPBOARD has an owner"
        case .answers(false): "answers; CLIPBOARD has no owner"
        case .answers(nil): "answers; the CLIPBOARD owner did not answer in time"
        }
    }
}

/// Everything `doctor` found and concluded.
struct DoctorReport {
    var preference: ClipboardBackendPreference
    var source: BackendChoice.Source
    var waylandDisplay: String?
    /// Whether `waylandDisplay` is the socket of ours found with `WAYLAND_DISPLAY` unset.
    var waylandFound = false
    var wayland: WaylandFinding
    var display: String?
    var x11: X11Finding
    var choice: BackendChoice
    var configFile: String
    var store: StoreFinding
    /// The connect timeout the probes were given.
    var timeout: Double
    /// The health checks, in order (`DoctorHealth`).
    var health = DoctorHealth(checks: [])

    /// Asks both display servers (whatever the rule would skip) and applies the rule to the
    /// answers; then checks what a hotkey needs. A broken config is a finding, and the rest is
    /// checked with the defaults.
    static func gather(_ invocation: Invocation) throws -> DoctorReport {
        let (configCheck, config) = DoctorHealth.config(invocation)
        let (preference, source) = try BackendChoice.preference(invocation)
        let timeout = config.clipboard.connectTimeout
        let endpoint = invocation.waylandEndpoint
        let wayland = endpoint.probe(timeout: timeout)
        let display = invocation.variable("DISPLAY").flatMap { $0.isEmpty ? nil : $0 }
        let choice = BackendChoice.choose(
            preference, from: source, waylandDisplay: endpoint.display, discovered: endpoint.discovery != nil
        ) { wayland }
        var report = DoctorReport(
            preference: preference, source: source, waylandDisplay: endpoint.display,
            waylandFound: endpoint.discovery != nil && endpoint.display != nil, wayland: wayland,
            display: display, x11: X11Finding.probe(display, timeout: timeout), choice: choice,
            configFile: invocation.paths.configFile,
            store: StoreFinding(
                path: invocation.paths.databasePath,
                diagnosis: try SessionStore.diagnose(path: invocation.paths.databasePath)),
            timeout: timeout)
        var checks = [configCheck]
        if case .damaged(let problems) = report.store.diagnosis {
            checks.append(
                .problem(
                    "store", .ioError, problems.joined(separator: "; "), fix: "userdebug doctor --salvage NEW.sqlite3"))
        }
        checks.append(DoctorHealth.session(invocation, store: report.store))
        checks += DoctorHealth.display(report, config: config)
        let daemon = DoctorDaemonCheck.gather(invocation, config: config, display: display, timeout: timeout)
        checks += [daemon.daemon, daemon.keys]
        checks.append(DoctorHealth.notifications(invocation, config: config, timeout: timeout))
        checks.append(DoctorHealth.popup(invocation, config: config))
        checks.append(DoctorHealth.launcher(invocation))
        checks.append(DoctorHealth.clear(invocation))
        report.health = DoctorHealth(checks: checks)
        return report
    }

    /// What a copy does: `wayland`, `x11`, or `stdout` (no clipboard: `--to auto` falls back to
    /// standard output, `--to clipboard` exits 69).
    var verdict: String {
        switch choice.route {
        case .wayland: "wayland"
        case .x11: if case .answers = x11 { "x11" } else { "stdout" }
        case .unavailable: "stdout"
        }
    }

    /// The verdict's reason, with the X display's answer when X11 decides it, and the limit of
    /// the XWayland route where it applies.
    var reason: String {
        var text = choice.reason
        if choice.route == .x11 {
            text += display.map { "; DISPLAY=\($0) \(x11.description)" } ?? "; DISPLAY is not set"
        }
        if verdict == "stdout" { text += "; --to auto writes to standard output, --to clipboard exits 69" }
        if choice.route == .x11, case .dataControl = wayland {
            text +=
                "; each X11 copy is read back through data-control and fails unless Wayland clients see it"
                + " (sway takes X11 copies only while an X11 window has focus)"
        }
        return text
    }

    var text: String {
        """
        backend: \(verdict)
        reason: \(reason)
        preference: \(preference.rawValue) (\(source.rawValue))
        WAYLAND_DISPLAY: \(waylandFound ? "not set; found " : "")\(waylandDisplay.map { "\($0) — " } ?? "")\(wayland.description)
        DISPLAY: \(display.map { "\($0) — " } ?? "")\(x11.description)
        config: \(configFile)
        store: \(store.text)
        \(healthText)
        """
    }

    /// The health lines (the store's is above), then the verdict.
    var healthText: String {
        let lines = health.checks.filter { $0.name != "store" }.map { "  " + $0.text.replacing("\n", with: "\n  ") }
        let verdict =
            health.firstProblem.map { "first problem: \($0.name) (exit \($0.status?.rawValue ?? 1))" }
            ?? "hotkeys: everything they need is in place"
        return (["checks:"] + lines + [verdict]).joined(separator: "\n")
    }

    var json: JSONValue {
        var dataControl = JSONValue.null
        if case .dataControl(let interface, let version) = wayland {
            dataControl = .object(JSONObject(["interface": .string(interface), "version": .number("\(version)")]))
        }
        var owned = JSONValue.null
        if case .answers(let value?) = x11 { owned = .bool(value) }
        var waylandAnswers = dataControl != .null
        if case .noDataControl = wayland { waylandAnswers = true }
        var x11Answers = false
        if case .answers = x11 { x11Answers = true }
        return .object(
            JSONObject([
                "backend": .string(verdict), "reason": .string(reason), "preference": .string(preference.rawValue),
                "preferenceFrom": .string(source.rawValue),
                "wayland": .object(
                    JSONObject([
                        "display": waylandDisplay.map(JSONValue.string) ?? .null, "answers": .bool(waylandAnswers),
                        "dataControl": dataControl, "detail": .string(wayland.description),
                    ])),
                "x11": .object(
                    JSONObject([
                        "display": display.map(JSONValue.string) ?? .null, "answers": .bool(x11Answers),
                        "clipboardOwned": owned, "detail": .string(x11.description),
                    ])),
                "config": .string(configFile), "store": store.json,
                "checks": .array(health.checks.map(\.json)),
                "status": .number(String(health.firstProblem?.status?.rawValue ?? 0)),
            ]))
    }
}
