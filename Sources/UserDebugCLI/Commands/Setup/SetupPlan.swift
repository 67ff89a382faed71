import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// What setup will change on this desktop: the files (only those that differ), the commands it
/// runs after them, whether it starts the daemon, and how it checks a key afterwards.
struct SetupPlan {
    struct FileChange {
        var path: String
        var bytes: [UInt8]
        var mode: mode_t
        var what: String
        var before: (bytes: [UInt8], mode: mode_t)?
    }

    struct Step {
        var argv: [String]
        var what: String
        /// Whether a failure stops setup (a reload that fails is only reported).
        var required = true
    }

    var desktop: SetupDesktop
    var why: String
    var bindings: [SetupBinding]
    var files: [FileChange] = []
    var unchanged: [String] = []
    var steps: [Step] = []
    var undo: [[String]] = []
    /// The display to start the daemon on (nil: none to start, or it runs already).
    var startDaemonOn: String?
    var notes: [String] = []
    /// The command a binding runs (nil: the daemon runs it in its own process).
    var commandOf: (SetupBinding) -> String? = { _ in nil }

    var isEmpty: Bool { files.isEmpty && steps.isEmpty && startDaemonOn == nil }

    mutating func want(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644, _ what: String) throws(CommandError) {
        let before = try SetupFiles.read(path)
        if let before, before.bytes == bytes {
            unchanged.append(path)
            return
        }
        // Another change of the same file in this plan wins (none today); the first is dropped.
        files.removeAll { $0.path == path }
        files.append(FileChange(path: path, bytes: bytes, mode: before?.mode ?? mode, what: what, before: before))
    }

    /// The plan as the user reads it.
    var text: String {
        var out = "desktop: \(desktop.rawValue) (\(why))\n"
        out += "keys: " + bindings.map { "\($0.key) → \($0.action)" }.joined(separator: ", ") + "\n"
        if isEmpty { return out + "nothing to change: everything is already set up\n" }
        for file in files {
            out += "  \(file.before == nil ? "create" : "change") \(file.path): \(file.what)\n"
        }
        for step in steps { out += "  run \(step.argv.map(shellQuoted).joined(separator: " ")): \(step.what)\n" }
        if let display = startDaemonOn { out += "  start `userdebug daemon` on \(display) now\n" }
        for path in unchanged { out += "  already set up: \(path)\n" }
        for note in notes { out += "  note: \(note)\n" }
        return out
    }
}

/// The plans for each desktop.
enum SetupPlanner {
    /// This binary's absolute path, for the commands the desktop runs.
    static var binary: String {
        guard let real = realpath("/proc/self/exe", nil) else { return CommandLine.arguments[0] }
        defer { free(real) }
        return String(cString: real)
    }

    static func plan(
        _ desktop: SetupDesktop, why: String, bindings: [SetupBinding], invocation: Invocation
    ) throws -> SetupPlan {
        var plan = SetupPlan(desktop: desktop, why: why, bindings: bindings)
        let configFile = invocation.paths.configFile
        let existing = try SetupFiles.read(configFile)
        let merged = try ConfigMerge.merge(existing?.bytes, bindings, file: configFile)
        try plan.want(
            configFile, merged, mode: 0o600,
            "the \"hotkeys\" section (\(bindings.count) key\(bindings.count == 1 ? "" : "s"))")
        switch desktop {
        case .x11: try daemon(&plan, invocation)
        case .sway, .i3: try windowManager(&plan, invocation)
        case .gnome: try SetupGnome.plan(&plan, invocation)
        case .kde: try SetupKDE.plan(&plan, invocation)
        }
        return plan
    }

    static func configHome(_ invocation: Invocation) -> String {
        if let value = invocation.variable("XDG_CONFIG_HOME"), value.hasPrefix("/") { return value }
        return (invocation.variable("HOME") ?? "") + "/.config"
    }

    /// X11 window managers: the daemon, enabled as the systemd user unit where a user manager runs
    /// and knows the unit, else an XDG autostart entry, and started now.
    private static func daemon(_ plan: inout SetupPlan, _ invocation: Invocation) throws {
        let display = invocation.variable("DISPLAY") ?? ""
        guard !display.isEmpty else {
            throw CommandError(
                .unavailable, "DISPLAY is not set: the daemon needs the X display; run setup in the X session")
        }
        let environment = invocation.environment
        if run(["systemctl", "--user", "cat", "userdebug.service"], environment) == 0 {
            if run(["systemctl", "--user", "is-enabled", "--quiet", "userdebug.service"], environment) != 0 {
                plan.steps.append(
                    .init(
                        argv: ["systemctl", "--user", "import-environment", "DISPLAY", "XAUTHORITY"],
                        what: "the unit's DISPLAY"))
                plan.steps.append(
                    .init(
                        argv: ["systemctl", "--user", "enable", "--now", "userdebug.service"],
                        what: "the daemon at every login, started now"))
                plan.undo.append(["systemctl", "--user", "disable", "--now", "userdebug.service"])
            } else if run(["systemctl", "--user", "is-active", "--quiet", "userdebug.service"], environment) != 0 {
                plan.steps.append(
                    .init(argv: ["systemctl", "--user", "start", "userdebug.service"], what: "the daemon, now"))
            }
            return
        }
        let bindir = SetupFiles.parent(of: binary)
        let entry = SetupTemplates.autostart.replacingOccurrences(of: "@BINDIR@", with: bindir)
        try plan.want(
            configHome(invocation) + "/autostart/userdebug.desktop", Array(entry.utf8),
            "XDG autostart: `userdebug daemon` at every login (no systemd user manager here)")
        if DaemonProcess.running(display: display, runtimeDirectory: invocation.variable("XDG_RUNTIME_DIR")) == nil {
            plan.startDaemonOn = display
        }
    }

    /// sway and i3: an include file of bindings in the WM's config directory, the include line in
    /// its config, and a reload.
    private static func windowManager(_ plan: inout SetupPlan, _ invocation: Invocation) throws {
        let sway = plan.desktop == .sway
        let name = sway ? "sway" : "i3"
        let directory = configHome(invocation) + "/" + name
        let include = directory + "/userdebug.config"
        let exec = sway ? "exec" : "exec --no-startup-id"
        var text = """
            # userdebug's keys, written by `userdebug setup` (`userdebug setup --undo` removes this file and
            # the include line). Every command says --to clipboard: \(name)'s own output may be a log file.

            """
        for binding in plan.bindings {
            text += "bindsym \(KeySpelling.i3(binding.key)) \(exec) \(command(for: binding))\n"
        }
        try plan.want(include, Array(text.utf8), "\(plan.bindings.count) bindsym lines")
        let home = invocation.variable("HOME") ?? ""
        let candidates =
            sway ? [home + "/.sway/config", directory + "/config"] : [home + "/.i3/config", directory + "/config"]
        let main = candidates.first(where: SetupFiles.exists) ?? directory + "/config"
        let line = "include \(include)"
        var bytes = try SetupFiles.read(main)?.bytes
        if bytes == nil {
            // No config of the user's: the system's, which the WM would read, with the include.
            bytes = try SetupFiles.read("/etc/\(name)/config")?.bytes ?? []
        }
        var current = bytes ?? []
        let lines = String(decoding: current, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters }
        if !lines.contains(line) {
            if let last = current.last, last != 0x0A { current.append(0x0A) }
            current += Array("# userdebug setup: its key bindings\n\(line)\n".utf8)
        }
        try plan.want(main, current, "the line `\(line)`")
        let reload = sway ? ["swaymsg", "reload"] : ["i3-msg", "reload"]
        if !plan.files.isEmpty {
            plan.steps.append(.init(argv: reload, what: "\(name) reads its config again", required: false))
        }
        plan.undo.append(reload)
        plan.commandOf = { command(for: $0) }
    }

    /// The command a desktop runs for `binding`: the full path (a desktop's PATH may lack it).
    static func command(for binding: SetupBinding) -> String {
        let program = shellQuoted(binary)
        if binding.action == HotkeyBinding.menuAction { return "\(program) menu --dmenu" }
        return "\(program) run \(shellQuoted(binding.action)) --to clipboard"
    }

    /// Runs `argv` (a name looked up in PATH) with output thrown away: its exit status, or nil when
    /// it could not run.
    @discardableResult
    static func run(_ argv: [String], _ environment: [String: String], timeout: Double = 10) -> Int32? {
        guard let result = try? ProcessRunner(timeout: timeout).run(argv, environment: environment) else { return nil }
        return result.termination.shellStatus
    }
}

extension Substring {
    fileprivate var trimmingCharacters: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// A running `userdebug daemon` of this user, found by its lock file (`DaemonLock`).
enum DaemonProcess {
    /// The directories the lock may be in, in `DaemonLock`'s order.
    static func lockPaths(display: String, runtimeDirectory: String?) -> [String] {
        let name = "/userdebug-daemon-" + DaemonLock.fileName(display) + ".lock"
        var paths: [String] = []
        if let runtimeDirectory, runtimeDirectory.hasPrefix("/") { paths.append(runtimeDirectory + name) }
        paths.append("/tmp/userdebug-\(getuid())" + name)
        return paths
    }

    /// The pid of the daemon holding the lock for `display`, or nil when none does.
    static func running(display: String, runtimeDirectory: String?) -> Int32? {
        for path in lockPaths(display: display, runtimeDirectory: runtimeDirectory) {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard flock(fd, LOCK_SH | LOCK_NB) != 0 else {
                flock(fd, LOCK_UN)
                continue
            }
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            return Int32(String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first ?? "")
        }
        return nil
    }
}
