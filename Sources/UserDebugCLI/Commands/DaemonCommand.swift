import UserDebugKit
import X11Clipboard

#if canImport(Glibc)
    import Glibc
#endif

/// `userdebug daemon`: grabs the config's hotkeys on the X display and runs their actions in this
/// process (no process per key press), and serves the clipboard itself (`X11SelectionHost`).
enum DaemonCommand {
    static let waylandNote =
        "X11 key grabs do not see keys pressed in Wayland-native windows; bind them the compositor's way: "
        + "userdebug setup (sway: an include file, menu --dmenu on Super+Alt+M; GNOME: custom keybindings)"

    static let spec = CommandSpec(
        path: ["daemon"],
        summary: "Grab the config's hotkeys on the X display and run their actions (one process, no fork per key).",
        usage: "daemon [--check] [--trace] [--keep-waiting] [--session NAME] [--reveal]",
        discussion: """
            Reads "hotkeys" from the config ({"Super+Alt+I": "copy-id", "Super+Alt+M": "menu"}):
            modifiers Super, Alt, Ctrl, Shift, Hyper and a keysym name, case-insensitive. Each key
            runs its action to the clipboard ("menu" opens the popup menu); keys work with CapsLock,
            NumLock and ScrollLock on. A key another program holds is reported, the others work;
            when not one key can be grabbed it exits 69 (--keep-waiting: it stays for a change).
            SIGHUP or a change of the file reloads it (a broken file keeps the old keys). One daemon
            per display: a second one exits 75. It leaves on SIGTERM/SIGINT, or when the X server
            goes away (status 69). A start or reload that fails is also a critical desktop
            notification. --session, --reveal and --quiet apply to every action it runs.
            It serves the clipboard itself; leaving on a signal, it hands the last value to an
            owner process, so the clipboard keeps it.
            \(waylandNote).
            Example: userdebug daemon --check
            """,
        options: [
            .flag("check", "Print the bindings it would grab (keysyms, modifiers, actions) and exit."),
            .flag("trace", "Print each grab, key press and the lifecycle of the actions it runs on stderr."),
            .flag(
                "keep-waiting",
                "When no hotkey can be grabbed (all taken), keep running: a config change or SIGHUP grabs again."),
        ],
        maxPositionals: 0
    ) { invocation in
        if invocation.arguments.has("check") { return try check(invocation) }
        try start(invocation)
    }

    /// `--check`: the bindings, resolved against the display's keyboard when one answers.
    static func check(_ invocation: Invocation) throws {
        let config = try invocation.configWithHotkeys()
        var text = ""
        if config.hotkeys.isEmpty { text += "no hotkeys in \(invocation.paths.configFile)\n" }
        var keys: X11Keys? = nil
        var keyboard = "not checked"
        if !config.hotkeys.isEmpty {
            do throws(ClipboardError) {
                keys = try X11Keys(display: invocation.variable("DISPLAY"), timeout: config.clipboard.connectTimeout)
                keyboard = "checked"
            } catch {
                keyboard = "not checked: " + ErrorReport.classify(error).1
            }
        }
        for binding in config.hotkeys {
            let key = binding.key
            var line = "\(binding.written)\t\(key) keysym 0x\(String(key.keysym, radix: 16)) → \(binding.action)"
            if let keys {
                do throws(X11Keys.GrabError) {
                    let grab = try keys.resolve(key)
                    line += "\tkeycodes \(grab.keycodes.map(String.init).joined(separator: ",")) mask 0x"
                    line += String(grab.mask, radix: 16)
                } catch {
                    line += "\tcannot be grabbed: \(error)"
                }
            }
            text += line + "\n"
        }
        if !config.hotkeys.isEmpty { text += "keyboard: \(keyboard)\n" }
        try writeAll(Array(text.utf8), to: 1, name: "standard output")
    }

    /// The fix for a daemon started without DISPLAY: where the session's environment reaches it.
    static let noDisplay =
        "no DISPLAY: the daemon grabs its keys on an X display; start it from the X session:"
        + " for the systemd unit, systemctl --user import-environment DISPLAY XAUTHORITY first;"
        + " in sessions that never reach graphical-session.target (i3, openbox, startx),"
        + " exec userdebug daemon in the window manager's config, its autostart or ~/.xinitrc"

    /// A Wayland session without an X display: the compositor binds the keys, not the daemon.
    static let noDisplayOnWayland =
        "no DISPLAY in this Wayland session, and the daemon grabs its keys on an X display; here the compositor"
        + " binds them: userdebug setup (sway: an include file with menu --dmenu on Super+Alt+M;"
        + " GNOME: custom keybindings; KDE: its shortcuts)"

    /// Takes the lock, connects, grabs, and runs until a signal or the X server ends it. A start
    /// that fails is also a desktop notification: started by an autostart entry, nobody reads
    /// its stderr.
    static func start(_ invocation: Invocation) throws {
        let (daemon, lock): (Daemon, DaemonLock)
        do {
            (daemon, lock) = try prepare(invocation)
        } catch {
            DaemonNotice(invocation: invocation).notify(error, .startFailed)
            throw error
        }
        let lost = daemon.loop()
        if let status = daemon.statusFile { unlink(status) }
        withExtendedLifetime(lock) {}
        if let lost { throw CommandError(.unavailable, "daemon: lost the X server on \(daemon.display): \(lost)") }
    }

    /// Everything up to the loop: the config, the lock, the X connections, the grabs.
    private static func prepare(_ invocation: Invocation) throws -> (Daemon, DaemonLock) {
        let config = try invocation.configWithHotkeys()
        guard let display = invocation.variable("DISPLAY"), !display.isEmpty else {
            throw CommandError(.unavailable, inWaylandSession(invocation) ? noDisplayOnWayland : noDisplay)
        }
        let lock = try DaemonLock.acquire(display: display, runtimeDirectory: invocation.variable("XDG_RUNTIME_DIR"))
        if let notice = lock.notice { Daemon.log(notice) }
        let keys = try X11Keys(display: display, timeout: max(config.clipboard.connectTimeout, 2))
        // USERDEBUG_DISABLE=hosted-owner: every copy goes to a detached owner, as from the CLI.
        let host =
            DisabledMechanisms.isOff(.hostedOwner)
            ? nil : try X11SelectionHost(display: display, timeout: max(config.clipboard.connectTimeout, 2))
        daemonSignals.install()
        let daemon = Daemon(keys: keys, host: host, display: display, config: config, invocation: invocation)
        daemon.statusFile = DaemonStatus.path(lockPath: lock.path)
        try daemon.grabAll()
        let waiting = invocation.arguments.has("keep-waiting")
        if let none = daemon.noKeyGrabbed(waiting: waiting) {
            guard waiting else {
                if let status = daemon.statusFile { unlink(status) }
                throw none
            }
            Daemon.log(none.message)
            daemon.notice.notify(none, .noKeys)
        }
        Daemon.log("pid \(getpid()) on \(display), \(daemon.configPath): \(daemon.summary)")
        if inWaylandSession(invocation) { Daemon.log("note: \(waylandNote)") }
        return (daemon, lock)
    }

    /// A Wayland session is present, where X11 grabs miss the keys of Wayland-native windows.
    static func inWaylandSession(_ invocation: Invocation) -> Bool {
        !(invocation.variable("WAYLAND_DISPLAY") ?? "").isEmpty || invocation.variable("XDG_SESSION_TYPE") == "wayland"
    }
}
