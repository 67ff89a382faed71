import DesktopNotify
import UserDebugKit
import WaylandClipboard
import X11Clipboard

#if canImport(Glibc)
    import Glibc
#endif

/// One line of `doctor`'s health check: what was asked, what it found and, for a problem, the
/// one command that fixes it and the exit status it gives.
struct DoctorCheck: Equatable {
    enum State: String {
        /// In place.
        case ok
        /// A hotkey cannot do its work until it is fixed: `doctor` exits with `status`.
        case problem
        /// Worth knowing, not in a hotkey's way: the exit status stays 0.
        case warning
        /// Not asked (nothing to ask, or a problem above makes the answer meaningless).
        case skipped
    }

    var name: String
    var state: State
    var detail: String
    var fix: String? = nil
    var status: ExitStatus? = nil

    static func ok(_ name: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, state: .ok, detail: detail)
    }

    static func problem(_ name: String, _ status: ExitStatus, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, state: .problem, detail: detail, fix: fix, status: status)
    }

    static func warning(_ name: String, _ detail: String, fix: String? = nil) -> DoctorCheck {
        DoctorCheck(name: name, state: .warning, detail: detail, fix: fix)
    }

    static func skipped(_ name: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, state: .skipped, detail: detail)
    }

    /// `daemon: PROBLEM — no daemon runs on :5` and, indented below, `fix: COMMAND`.
    var text: String {
        let mark =
            switch state {
            case .ok: "ok"
            case .problem: "PROBLEM (exit \(status?.rawValue ?? 1))"
            case .warning: "warning"
            case .skipped: "not checked"
            }
        return "\(name): \(mark) — \(detail)" + (fix.map { "\n  fix: \($0)" } ?? "")
    }

    var json: JSONValue {
        .object(
            JSONObject([
                "check": .string(name), "state": .string(state.rawValue), "detail": .string(detail),
                "fix": fix.map(JSONValue.string) ?? .null,
                "status": status.map { .number(String($0.rawValue)) } ?? .null,
            ]))
    }
}

/// The health checks: what a hotkey needs, in the order a first hour meets it. The first problem
/// gives `doctor`'s exit status.
struct DoctorHealth {
    var checks: [DoctorCheck]

    /// The first problem, whose status `doctor` exits with; nil when a hotkey has all it needs.
    var firstProblem: DoctorCheck? { checks.first { $0.state == .problem } }

    /// The config's line, and the config the other checks use (the defaults when it is broken,
    /// so that the rest is still checked).
    static func config(_ invocation: Invocation) -> (DoctorCheck, Config) {
        let path = invocation.paths.configFile
        do throws(ConfigError) {
            let config = try invocation.configWithHotkeys()
            let sections = sectionsInForce(path)
            let detail =
                sections.isEmpty
                ? "\(path) — none (or empty): the defaults are in force"
                : "\(path) parses; in force: \(sections.joined(separator: ", ")) (the defaults for the rest)"
            return (.ok("config", detail), config)
        } catch {
            invocation.use(config: .defaults)
            let check = DoctorCheck.problem(
                "config", .config, error.description,
                fix:
                    "mv \(shellQuoted(path)) \(shellQuoted(path + ".broken")) (the defaults apply; correct it and move it back)"
            )
            return (check, .defaults)
        }
    }

    /// The top-level sections the config file sets (it parsed, so each is known).
    static func sectionsInForce(_ path: String) -> [String] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        var used = 0
        while used < bytes.count {
            let count = bytes[used...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            used += count
        }
        guard let value = try? JSONParser(allowsComments: true).parse(Array(bytes[..<used])),
            let object = value.objectValue
        else { return [] }
        return object.members.map(\.key).filter { $0 != "$schema" }
    }

    /// The current session: there is one, and it has a token (a logged-out one copies ids but
    /// every request with its token fails).
    static func session(_ invocation: Invocation, store: StoreFinding) -> DoctorCheck {
        // The fixes of FirstHourState's table, with their real arguments (the sample's path).
        let importFix = FirstHourState.noStore(path: store.path, sample: FirstHourHints.sampleSession()).command
        switch store.diagnosis {
        case .missing:
            return .problem("session", .noInput, "no store yet (\(store.path)), so no session", fix: importFix)
        case .damaged:
            return .skipped("session", "the store is damaged (see store)")
        case .intact:
            break
        }
        do {
            let reader = try invocation.storeForReading()
            guard let current = try reader.currentSession() else {
                let names = try reader.sessions().map(\.name)
                guard let first = names.first else {
                    return .problem("session", .noInput, "no session recorded", fix: importFix)
                }
                return .problem(
                    "session", .noInput,
                    "no current session (recorded: \(names.count == 1 ? first : "\(names.count), the first \(first)"))",
                    fix: FirstHourState.noCurrentSession(sessions: names, sample: nil).command)
            }
            let labels = invocation.noticeLabels(current)
            guard current.usableToken != nil else {
                return .problem(
                    "session", .noInput,
                    "'\(labels.name)' (user \(labels.user)) has no usable token: logged out, or imported from a redacted export; requests with it fail (HTTP 401)",
                    fix: BuiltinPayloads.recordTokenHint(for: current.name).replacing(
                        "record a real login, or pipe the token to: ", with: ""))
            }
            return .ok("session", "'\(labels.name)' (user \(labels.user)), token present")
        } catch {
            let (status, message) = ErrorReport.classify(error)
            return .problem("session", status, message, fix: "userdebug doctor --salvage NEW.sqlite3")
        }
    }

    /// The kind of desktop session: X11, or Wayland with XWayland (or none) on `DISPLAY`; a
    /// compositor of ours found while `WAYLAND_DISPLAY` is unset is a problem of its own.
    static func display(_ report: DoctorReport, config: Config) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        var x11Answers = false
        if case .answers = report.x11 { x11Answers = true }
        let waylandAnswers: Bool
        switch report.wayland {
        case .notSet, .notAnswering: waylandAnswers = false
        case .noDataControl, .noSeat, .dataControl: waylandAnswers = true
        }
        if waylandAnswers, let socket = report.waylandDisplay {
            var detail = "Wayland (\(socket))"
            if let display = report.display, x11Answers {
                let xwayland = X11Clipboard(display: display).isXWayland(timeout: report.timeout)
                detail +=
                    xwayland == true
                    ? " with XWayland on DISPLAY=\(display)" : " with an X server on DISPLAY=\(display)"
            } else {
                detail += ", no X display (DISPLAY \(report.display == nil ? "not set" : "does not answer"))"
            }
            checks.append(.ok("desktop", detail))
            if report.waylandFound {
                checks.append(
                    .problem(
                        "wayland", .unavailable,
                        "WAYLAND_DISPLAY is not set, but your compositor answers on \(socket): programs started from here (the popup, a launcher) take the X11 path",
                        fix:
                            "export WAYLAND_DISPLAY=\(socket) (for the systemd unit: systemctl --user import-environment WAYLAND_DISPLAY)"
                    ))
            }
            if !config.hotkeys.isEmpty {
                checks.append(
                    .warning(
                        "wayland-keys", DaemonCommand.waylandNote,
                        fix:
                            "bind the keys in the compositor too, e.g. sway: "
                            + "bindsym Mod4+Mod1+i exec userdebug copy-id --to clipboard"
                    ))
            }
        } else if x11Answers, let display = report.display {
            checks.append(.ok("desktop", "X11 (DISPLAY=\(display))"))
        } else {
            checks.append(
                .problem(
                    "desktop", .unavailable,
                    "no display answers (DISPLAY \(report.display.map { "\($0) \(report.x11.description)" } ?? "not set"), WAYLAND_DISPLAY \(report.waylandDisplay.map { "\($0) \(report.wayland.description)" } ?? "not set"))",
                    fix:
                        "run it in the desktop session (for the systemd unit: systemctl --user import-environment DISPLAY XAUTHORITY WAYLAND_DISPLAY)"
                ))
        }
        return checks
    }

    /// The desktop's notification service on the session bus (not needed with notifications off).
    static func notifications(_ invocation: Invocation, config: Config, timeout: Double) -> DoctorCheck {
        if config.notifications == .never { return .skipped("notifications", "\"never\" in the config") }
        let fix =
            FileTrust.locateProgram("dunst") != nil
            ? "setsid -f dunst (or the desktop's own notification service)"
            : "sudo apt install dunst, then: setsid -f dunst"
        guard let address = NotificationService.busAddress({ invocation.variable($0) }) else {
            return .problem(
                "notifications", .unavailable,
                "no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): a key's outcome is shown nowhere",
                fix:
                    "run it in the desktop session (for the systemd unit: systemctl --user import-environment DBUS_SESSION_BUS_ADDRESS)"
            )
        }
        do throws(DBusFailure) {
            try NotificationService.ping(address: address, deadline: max(timeout, 1))
            return .ok("notifications", "a notification service answers on the session bus")
        } catch {
            return .problem(
                "notifications", .unavailable, "\(error): a key's outcome is shown nowhere", fix: fix)
        }
    }

    /// `userdebug-popup`, needed when a key opens the menu; found and safe to run.
    static func popup(_ invocation: Invocation, config: Config) -> DoctorCheck {
        let needed = config.hotkeys.contains { $0.action == HotkeyBinding.menuAction }
        guard let path = PopupHost.find(searchPath: invocation.variable("PATH") ?? "/usr/local/bin:/usr/bin:/bin")
        else {
            let detail = "\(PopupHost.programName) is not installed beside userdebug nor on PATH"
            let prefix = FirstHourHints.installPrefix().map { "PREFIX=\(ShellWord.quoted($0)) " } ?? ""
            let fix =
                "\(prefix)Scripts/install.sh (installs it beside userdebug), or a launcher: userdebug menu --dmenu"
            return needed
                ? .problem("popup", .unavailable, detail + "; the menu key opens nothing", fix: fix)
                : .warning("popup", detail + " (no key opens the menu)", fix: fix)
        }
        if let problem = FileTrust.programProblem(at: path) {
            let detail = "\(path): \(problem.path) \(problem.reason)"
            return needed
                ? .problem("popup", .noPermission, detail, fix: problem.fix)
                : .warning("popup", detail, fix: problem.fix)
        }
        return .ok("popup", path + (needed ? "" : " (no key opens the menu)"))
    }

    /// The launcher `userdebug menu` would run (dmenu, rofi…): not on a hotkey's path, so a
    /// missing or untrusted one is a warning.
    static func launcher(_ invocation: Invocation) -> DoctorCheck {
        let argv: [String]
        do {
            argv = try LauncherCommand.launcher(invocation)
        } catch {
            return .warning(
                "launcher", ErrorReport.classify(error).1 + " (only userdebug menu needs one)",
                fix: "sudo apt install rofi")
        }
        guard let path = FileTrust.locateProgram(argv[0]) else { return .warning("launcher", "\(argv[0]) not found") }
        if let problem = FileTrust.programProblem(at: path) {
            return .warning("launcher", "\(path): \(problem.path) \(problem.reason)", fix: problem.fix)
        }
        return .ok("launcher", path)
    }

    /// The last secret's clear, as its owner read the clipboard back (`ClearReport`): a program
    /// that put the token back is a warning (a hotkey still works; the token stays readable).
    static func clear(_ invocation: Invocation) -> DoctorCheck {
        guard let last = ClearReport.read(ClearReport.path(stateDirectory: invocation.paths.stateDirectory)) else {
            return .ok("clear", "no cleared token was seen put back on the clipboard")
        }
        return .warning(
            "clear", last.sentence,
            fix: "quit or pause \(last.processName ?? "the clipboard manager that restores it") (its history keeps the"
                + " token), or copy the token with --to stdout")
    }

    static func shellQuoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                "/._-+:@%=,".unicodeScalars.contains($0) || ("a"..."z").contains($0) || ("A"..."Z").contains($0)
                    || ("0"..."9").contains($0)
            }
        return plain ? text : "'" + text.replacing("'", with: #"'\''"#) + "'"
    }
}
