import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// `userdebug setup`: from an installed binary to a working hotkey in one command — the config's
/// `hotkeys`, the keys bound the desktop's own way, one key checked, and a manifest for `--undo`.
enum SetupCommand {
    static let desktopChoices = ["auto"] + SetupDesktop.allCases.map(\.rawValue)

    static let spec = CommandSpec(
        path: ["setup"],
        summary: "Bind the debug keys on this desktop (config, daemon or WM bindings), check one, and say how to undo.",
        usage: "setup [--yes] [--desktop auto|x11|sway|i3|gnome|kde] [--keys KEY=ACTION,...] [--dry-run] [--undo]",
        discussion: """
            Detects the session (XDG_CURRENT_DESKTOP, XDG_SESSION_TYPE, SWAYSOCK/I3SOCK, the
            displays that answer), writes the chosen keys into the config's "hotkeys" (the commented
            default config when there is none; otherwise a merge that keeps your keys and comments,
            or a refusal, exit 78, with the diff it would need), and binds them the desktop's way:
            on an X11 window manager the daemon, enabled as the systemd user unit where a user
            manager runs, else as an XDG autostart entry, and started now; on sway and i3 an include
            file in the WM's config directory, its include line, and a reload; on GNOME custom
            keybindings through gsettings, next to yours; on KDE Plasma its kglobalshortcutsrc
            (kwriteconfig5) and an application entry per key. Then it presses one
            key (xdotool, when installed) or runs the binding's command, reads the clipboard back,
            and prints what it changed, where, and how to undo. A second run changes nothing.
            --undo puts back every file it changed byte for byte (or removes the ones it created)
            from the manifest in the state directory, stops the daemon it started and reloads the
            WM (GNOME: its keybindings reset). On a terminal it shows the plan and asks; elsewhere
            it needs --yes (or --dry-run).
            Default keys: Super+Alt+I copy-id, Super+Alt+J dump-json, Super+Alt+R print-response,
            Super+Alt+M menu. Exit 64 for a bad option, 69 when no desktop is found or a step
            fails, 78 when the config cannot be merged, 77/74 when a file cannot be written.
            Example: userdebug setup --yes --keys Super+Alt+I=copy-id,Super+Alt+M=menu
            """,
        options: [
            .flag("yes", short: "y", "Apply the plan without asking (for scripts)."),
            .value(
                "desktop", "DESKTOP", completes: .words { desktopChoices },
                "auto (default), x11, sway, i3, gnome or kde."
            ).checked {
                value throws(CommandError) in
                guard desktopChoices.contains(value) else {
                    throw CommandError(
                        .usage, "--desktop: expected \(desktopChoices.joined(separator: ", ")), got '\(value)'")
                }
            },
            .value("keys", "KEY=ACTION,...", "The keys to bind, e.g. Super+Alt+I=copy-id,Super+Alt+M=menu.").checked {
                value throws(CommandError) in
                _ = try SetupBinding.parse(value)
            },
            .flag("dry-run", "Show what it would change, and change nothing."),
            .flag("undo", "Remove exactly what setup added: files back byte for byte, the daemon it started stopped."),
        ],
        maxPositionals: 0
    ) { invocation in
        try run(invocation)
    }

    static func manifestDirectory(_ invocation: Invocation) -> String {
        invocation.paths.stateDirectory + "/setup"
    }

    private static func run(_ invocation: Invocation) throws {
        let arguments = invocation.arguments
        if arguments.has("undo") {
            if arguments.value("keys") != nil || arguments.value("desktop") != nil {
                throw UsageError(message: "--undo takes neither --keys nor --desktop", command: ["setup"])
            }
            return try SetupUndo.run(invocation, dryRun: arguments.has("dry-run"))
        }
        let bindings =
            try arguments.value("keys").map { value throws(CommandError) in try SetupBinding.parse(value) }
            ?? SetupBinding.defaults
        let (desktop, why): (SetupDesktop, String)
        if let chosen = arguments.value("desktop"), let named = SetupDesktop(rawValue: chosen) {
            (desktop, why) = (named, "--desktop \(chosen)")
        } else {
            (desktop, why) = try SetupDesktop.detect(invocation)
        }
        let plan: SetupPlan
        do {
            plan = try SetupPlanner.plan(desktop, why: why, bindings: bindings, invocation: invocation)
        } catch let refusal as ConfigMerge.Refusal {
            var message = refusal.reason
            if let proposed = refusal.proposed, let (current, _) = try SetupFiles.read(invocation.paths.configFile) {
                message +=
                    "; the change it needs:\n" + LineDiff.unified(current, proposed, path: invocation.paths.configFile)
            }
            throw CommandError(.config, message)
        }
        try out(plan.text)
        if arguments.has("dry-run") { return }
        if !plan.isEmpty && !arguments.has("yes") {
            guard isatty(0) == 1, invocation.stdoutKind == .terminal else {
                throw UsageError(
                    message: "not on a terminal, so nothing was asked or changed: add --yes to apply this plan "
                        + "(--dry-run shows it)",
                    command: ["setup"])
            }
            try out("Apply? [y/N] ")
            guard answeredYes() else {
                try out("nothing changed\n")
                return
            }
        }
        try apply(plan, invocation)
        try SetupCheck.verify(plan, invocation)
        try out(
            "undo: userdebug setup --undo (puts back what setup changed; manifest: \(manifestDirectory(invocation))/manifest.json)\n"
        )
    }

    private static func answeredYes() -> Bool {
        var byte: UInt8 = 0
        var line: [UInt8] = []
        while read(0, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self).lowercased()
        return text == "y" || text == "yes"
    }

    static func out(_ text: String) throws {
        try writeAll(Array(text.utf8), to: 1, name: "standard output")
    }

    /// Writes the files (the manifest first records their bytes before), runs the steps, starts
    /// the daemon.
    private static func apply(_ plan: SetupPlan, _ invocation: Invocation) throws {
        if plan.isEmpty { return }
        let directory = manifestDirectory(invocation)
        var manifest = try SetupManifest.load(directory) ?? SetupManifest(directory: directory)
        for file in plan.files { try manifest.record(file.path, writing: file.bytes, before: file.before) }
        for argv in plan.undo { manifest.addUndo(argv) }
        if let display = plan.startDaemonOn { manifest.daemonDisplay = display }
        // The manifest is saved before anything changes: an interrupted setup can still be undone.
        try manifest.save()
        for file in plan.files {
            try SetupFiles.write(file.path, file.bytes, mode: file.mode)
            try out("\(file.before == nil ? "created" : "changed") \(file.path)\n")
        }
        let environment = invocation.environment
        for step in plan.steps {
            let status = SetupPlanner.run(step.argv, environment)
            let command = step.argv.map(shellQuoted).joined(separator: " ")
            if status == 0 {
                try out("ran \(command)\n")
            } else if step.required {
                throw CommandError(
                    .unavailable,
                    "\(command) failed (\(status.map { "exit \($0)" } ?? "could not start")); "
                        + "what setup changed so far is undone by: userdebug setup --undo")
            } else {
                invocation.diagnostics.notice("\(command) failed (\(status.map { "exit \($0)" } ?? "could not start"))")
            }
        }
        if let display = plan.startDaemonOn {
            let pid = try DaemonStart.start(display: display, invocation: invocation)
            try out("started userdebug daemon (pid \(pid)) on \(display)\n")
        }
    }
}

/// Starting the daemon as an autostart entry would, and waiting until it has grabbed its keys.
enum DaemonStart {
    static func start(display: String, invocation: Invocation) throws -> Int32 {
        let log = invocation.paths.stateDirectory + "/setup/daemon.log"
        try SetupFiles.makeDirectories(SetupFiles.parent(of: log))
        let fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CommandError(.ioError, "cannot write \(log): \(SetupFiles.describe(errno))") }
        // The daemon outlives setup: it must hold none of setup's descriptors (whoever started
        // setup may wait for a pipe or socket it handed over to close).
        markDescriptorsCloseOnExec()
        var options = ChildProcess.Options()
        options.ownProcessGroup = true
        options.input = .null
        options.output = .null
        options.error = .descriptor(FileDescriptor(fd))
        options.defaultSignals = .all
        let child: ChildProcess
        do throws(SystemError) {
            child = try ChildProcess.spawn(
                [SetupPlanner.binary, "daemon"], environment: invocation.environment, options: options)
        } catch {
            close(fd)
            throw CommandError(.unavailable, "cannot start userdebug daemon: \(error)")
        }
        close(fd)
        // Grabbed, or gone: its first line says which (10 s at most).
        let deadline = monotonicSeconds() + 10
        while monotonicSeconds() < deadline {
            var status: Int32 = 0
            if waitpid(child.pid, &status, WNOHANG) == child.pid {
                let said = (try? SetupFiles.read(log)).flatMap { $0 }.map { String(decoding: $0.bytes, as: UTF8.self) }
                throw CommandError(
                    .unavailable,
                    "userdebug daemon exited (status \(ChildProcess.Termination(waitStatus: status).shellStatus)): "
                        + (said ?? "").trimmingNewlines + "; undo what setup changed: userdebug setup --undo")
            }
            if let (bytes, _) = try SetupFiles.read(log), String(decoding: bytes, as: UTF8.self).contains("grabbed") {
                return child.pid
            }
            usleep(20_000)
        }
        throw CommandError(
            .temporaryFailure, "userdebug daemon (pid \(child.pid)) did not grab its keys in 10 s; see \(log)")
    }
}

/// Sets close-on-exec on every descriptor above 2 that this process has open.
private func markDescriptorsCloseOnExec() {
    guard let directory = opendir("/proc/self/fd") else { return }
    defer { closedir(directory) }
    let own = dirfd(directory)
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        guard let fd = Int32(name), fd > 2, fd != own else { continue }
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
    }
}

extension String {
    var trimmingNewlines: String {
        var text = Substring(self)
        while text.last == "\n" { text = text.dropLast() }
        return String(text)
    }
}
