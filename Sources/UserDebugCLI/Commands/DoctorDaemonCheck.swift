import UserDebugKit
import X11Clipboard

#if canImport(Glibc)
    import Glibc
#endif

/// `doctor`'s daemon and keys lines: whether a daemon runs on this display (its lock), which
/// keys it holds (its status file), and for each configured key it does not hold, whether
/// another program has it (a grab of our own: BadAccess says so).
struct DoctorDaemonCheck {
    var daemon: DoctorCheck
    var keys: DoctorCheck

    static func gather(_ invocation: Invocation, config: Config, display: String?, timeout: Double) -> DoctorDaemonCheck
    {
        let configPath = invocation.paths.configFile
        guard !config.hotkeys.isEmpty else {
            return DoctorDaemonCheck(
                daemon: .warning(
                    "daemon",
                    "no hotkeys in \(configPath): no daemon is needed (keys bound in the desktop's shortcuts to userdebug commands work without one)"
                ),
                keys: .skipped("keys", "none configured"))
        }
        guard let display else {
            return DoctorDaemonCheck(
                daemon: .problem(
                    "daemon", .unavailable, "DISPLAY is not set: the daemon grabs its keys on an X display",
                    fix:
                        "run it in the X session (for the systemd unit: systemctl --user import-environment DISPLAY XAUTHORITY)"
                ),
                keys: .skipped("keys", "no DISPLAY"))
        }
        let (lockPath, pid) = DaemonLock.holder(
            display: display, runtimeDirectory: invocation.variable("XDG_RUNTIME_DIR"))
        var held: Set<String> = []
        var unknown = false
        let daemon: DoctorCheck
        if let pid {
            switch DaemonStatus.read(path: DaemonStatus.path(lockPath: lockPath), holder: pid) {
            case .success(let status):
                held = Set(status.keys.filter { $0.problem == nil }.map(\.key))
                let list = status.keys.filter { $0.problem == nil }.map { "\($0.key) → \($0.action)" }
                var detail =
                    "pid \(pid) on \(display) holds " + (list.isEmpty ? "no key" : list.joined(separator: ", "))
                if status.configFile != configPath { detail += "; it reads \(status.configFile), not \(configPath)" }
                daemon = .ok("daemon", detail)
            case .failure(let refusal):
                unknown = true
                daemon = .warning(
                    "daemon", "pid \(pid) on \(display) holds the lock, but its keys are unknown: \(refusal.reason)",
                    fix: "kill -HUP \(pid)")
            }
        } else {
            daemon = .problem(
                "daemon", .unavailable,
                "no daemon runs on \(display) (\(config.hotkeys.count) hotkey\(config.hotkeys.count == 1 ? "" : "s") in \(configPath))",
                fix: startCommand(invocation))
        }
        if unknown {
            return DoctorDaemonCheck(
                daemon: daemon, keys: .skipped("keys", "the daemon's keys are unknown (see daemon)"))
        }
        return DoctorDaemonCheck(
            daemon: daemon,
            keys: keys(config, held: held, daemon: pid, display: display, timeout: timeout, configPath: configPath))
    }

    /// The one command that starts the daemon: the systemd unit when it is installed, else a
    /// detached `userdebug daemon`.
    static func startCommand(_ invocation: Invocation) -> String {
        let configHome =
            invocation.variable("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (invocation.variable("HOME") ?? "") + "/.config"
        if access(configHome + "/systemd/user/userdebug.service", F_OK) == 0 {
            return "systemctl --user start userdebug.service"
        }
        return "setsid -f userdebug daemon"
    }

    /// Each configured key the daemon does not hold: grabbed here and released at once; taken
    /// means another program holds it.
    static func keys(
        _ config: Config, held: Set<String>, daemon: Int32?, display: String, timeout: Double, configPath: String
    ) -> DoctorCheck {
        let missing = config.hotkeys.filter { !held.contains($0.written) }
        guard !missing.isEmpty else {
            return .ok(
                "keys",
                "the daemon holds all \(config.hotkeys.count): " + config.hotkeys.map(\.written).joined(separator: ", ")
            )
        }
        let keys: X11Keys
        do throws(ClipboardError) {
            keys = try X11Keys(display: display, timeout: max(timeout, 1))
        } catch {
            return .skipped("keys", "DISPLAY=\(display) does not answer: \(ErrorReport.classify(error).1)")
        }
        var taken: [String] = []
        var absent: [String] = []
        var free: [String] = []
        for binding in missing {
            do throws(X11Keys.GrabError) {
                try keys.grab(try keys.resolve(binding.key))
                keys.ungrabAll()
                free.append(binding.written)
            } catch {
                switch error {
                case .taken: taken.append(binding.written)
                case .unavailable(let reason): absent.append("\(binding.written) (\(reason))")
                case .lost(let reason): return .skipped("keys", "the X server went away: \(reason)")
                }
            }
        }
        if !taken.isEmpty {
            let reload = daemon.map { " and run kill -HUP \($0)" } ?? ""
            return .problem(
                "keys", .unavailable, "\(taken.joined(separator: ", ")) taken by another program",
                fix:
                    "free \(taken.count == 1 ? "it" : "them") where bound (xbindkeys, sxhkd, the desktop's shortcuts)\(reload), or choose other keys in \(configPath)"
            )
        }
        if !absent.isEmpty {
            return .problem(
                "keys", .unavailable, "this keyboard cannot type \(absent.joined(separator: ", "))",
                fix: "choose keys this keyboard has in \(configPath) (userdebug daemon --check resolves each)")
        }
        if let daemon {
            return .problem(
                "keys", .unavailable,
                "\(free.joined(separator: ", ")) free, but the daemon does not hold \(free.count == 1 ? "it" : "them")",
                fix: "kill -HUP \(daemon)")
        }
        return .ok("keys", "\(free.joined(separator: ", ")) free for the daemon to grab")
    }
}
