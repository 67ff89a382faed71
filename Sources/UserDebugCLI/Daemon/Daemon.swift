import UserDebugKit
import X11Clipboard

#if canImport(Glibc)
    import Glibc
#endif

/// The running daemon: its grabs, the last good config, the popups it started; one thread.
final class Daemon {
    /// A binding and its grab; `grab` nil when the key could not be grabbed.
    struct Active {
        let binding: HotkeyBinding
        let grab: X11Keys.Grab?
    }

    let keys: X11Keys
    /// The clipboard owner in this process: the actions' copies to CLIPBOARD go to it.
    let host: X11SelectionHost?
    let display: String
    let configPath: String
    let invocation: Invocation
    private(set) var config: Config
    private(set) var active: [Active] = []
    private var children: Set<Int32> = []
    /// The store's connection, kept from one press to the next.
    private let storeKeeper = StoreKeeper()
    /// The process's environment, read once (it does not change while the daemon runs): each
    /// press's action is given it instead of building the dictionary again.
    private let environment = processEnvironment()
    private let watch: ConfigWatch?
    /// The hotkeys' payloads made ahead of the presses, and the store's directory it watches.
    let prepared = PreparedPayloads()
    let storeWatch: StoreWatch?
    /// Tells the desktop about the daemon's own failures.
    let notice: DaemonNotice
    /// The config error the last failed reload notified, so the same one is not notified again.
    private var lastReloadProblem: String?

    init(keys: X11Keys, host: X11SelectionHost?, display: String, config: Config, invocation: Invocation) {
        self.keys = keys
        self.host = host
        self.display = display
        self.config = config
        self.invocation = invocation
        self.configPath = invocation.paths.configFile
        self.notice = DaemonNotice(invocation: invocation)
        let started = ConfigWatch.start(path: configPath)
        self.watch = started.watch
        if let problem = started.problem { Daemon.log("not watching the config file (\(problem)); SIGHUP reloads it") }
        self.storeWatch = StoreWatch.start(databasePath: invocation.paths.databasePath)
    }

    var tracing: Bool { invocation.arguments.has("trace") }

    /// One stderr line, escaped on a terminal (it can carry recorded data).
    static func log(_ message: String) {
        let line = "userdebug: daemon: " + message
        let text = isatty(2) == 1 ? TerminalText.escape(line) : line
        try? writeAll(Array((text + "\n").utf8), to: 2, name: "standard error")
    }

    /// Releases every grab, then grabs the config's bindings; a key another client holds is
    /// reported by name and the others are grabbed all the same. When not one key could be
    /// grabbed, nothing is said here: the error, `noKeyGrabbed`, is the caller's to report.
    func grabAll() throws(ClipboardError) {
        keys.ungrabAll()
        active = []
        var failures: [(binding: HotkeyBinding, why: String)] = []
        for binding in config.hotkeys {
            do throws(X11Keys.GrabError) {
                let grab = try keys.resolve(binding.key)
                try keys.grab(grab)
                active.append(Active(binding: binding, grab: grab))
                if tracing {
                    Daemon.log("trace: grabbed \(binding.written) (keycodes \(grab.keycodes), mask \(grab.mask))")
                }
            } catch {
                switch error {
                case .taken: failures.append((binding, "is taken by another program"))
                case .unavailable(let reason): failures.append((binding, "cannot be grabbed: \(reason)"))
                case .lost(let reason): throw .noDisplay(reason: reason)
                }
                active.append(Active(binding: binding, grab: nil))
            }
        }
        prepared.schedule(at: monotonicSeconds())
        ungrabbed = failures.map { "\($0.binding.written) \($0.why)" }
        notGrabbed = failures.map { ($0.binding.written, $0.why) }
        publishStatus()
        guard failures.count < config.hotkeys.count else { return }
        for failure in failures {
            let others = failure.why.hasPrefix("is taken") ? "; the other keys work" : ""
            Daemon.log("\(failure.binding.written) \(failure.why)\(others)")
        }
    }

    /// Where the daemon tells `doctor` which keys it holds (`DaemonStatus`); nil: nowhere.
    var statusFile: String?
    /// Whether a failure to write `statusFile` was logged (once is enough).
    private var statusProblemLogged = false

    /// The last grab's keys that were not grabbed (as written) and why.
    private var notGrabbed: [(key: String, why: String)] = []

    /// Writes `statusFile` after a grab or a reload: each binding, and why one is not grabbed.
    private func publishStatus() {
        guard let statusFile else { return }
        let keys = config.hotkeys.map { binding in
            DaemonStatus.Key(
                key: binding.written, action: binding.action,
                problem: notGrabbed.first { $0.key == binding.written }?.why)
        }
        let status = DaemonStatus(pid: getpid(), display: display, configFile: configPath, keys: keys)
        if let problem = status.write(to: statusFile), !statusProblemLogged {
            statusProblemLogged = true
            Daemon.log("doctor will not see the keys: \(problem)")
        }
    }

    /// Why each key that is not grabbed is not (`Super+Alt+I is taken by another program`).
    private(set) var ungrabbed: [String] = []

    /// The error when the config has hotkeys and not one could be grabbed; nil otherwise.
    /// `waiting`: the daemon goes on (`--keep-waiting`, or a reload), so the fix names no restart.
    func noKeyGrabbed(waiting: Bool) -> CommandError? {
        guard !config.hotkeys.isEmpty, active.allSatisfy({ $0.grab == nil }) else { return nil }
        let count = config.hotkeys.count == 1 ? "the hotkey" : "none of the \(config.hotkeys.count) hotkeys"
        let then =
            waiting
            ? "; the daemon grabs them when the config file changes or on SIGHUP"
            : ", then start the daemon again (or start it with --keep-waiting)"
        // Keys another program holds are freed there; keys the keyboard lacks are replaced.
        let taken = ungrabbed.allSatisfy { $0.hasSuffix(" is taken by another program") }
        let fix =
            taken
            ? "free them in the program that holds them (xbindkeys, sxhkd, the desktop's shortcuts)"
                + " or choose other keys in \(configPath)"
            : "choose keys this keyboard has in \(configPath) ('userdebug daemon --check' resolves each)"
        let keys = ungrabbed.joined(separator: ", ")
        return CommandError(.unavailable, "\(count) could be grabbed (\(keys)); \(fix)\(then)")
    }

    /// After a keyboard map change: grabs again only when a binding's keycodes or mask moved (a
    /// press arriving between releasing and making the grabs again would be lost).
    private func regrabIfMoved() throws(ClipboardError) {
        let moved = active.contains { entry in
            guard let grab = entry.grab else { return false }
            return (try? keys.resolve(entry.binding.key)) != grab
        }
        if tracing {
            Daemon.log("trace: the keyboard map changed; \(moved ? "grabbing again" : "the grabs still hold")")
        }
        if moved { try grabAll() }
    }

    /// Runs until SIGTERM/SIGINT (nil; the clipboard handed to an owner process first) or the X
    /// server goes away (the reason). One thread: key presses, the clipboard's requestors, signals
    /// and the config file are served by one poll, which waits no longer than the clipboard's
    /// next timer.
    func loop() -> String? {
        let optional = [watch?.descriptor ?? -1, host?.descriptor ?? -1, storeWatch?.descriptor ?? -1]
        let descriptors = [keys.descriptor, daemonSignals.wake.descriptor] + optional
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            if let lost = handleKeys() { return lost }
            var next: Double?
            do throws(ClipboardError) { next = try host?.service() } catch { return ErrorReport.classify(error).1 }
            // Payloads are made when no key is waiting (a press queued meanwhile is handled first).
            if let storeWatch, fds[4].revents != 0, storeWatch.drain() {
                prepared.generation += 1
                prepared.schedule(at: monotonicSeconds())
            }
            fds[4].revents = 0
            var keysWaiting = [pollfd(fd: keys.descriptor, events: Int16(POLLIN), revents: 0)]
            if prepared.due != nil, poll(&keysWaiting, 1, 0) == 0 { prepareDue(now: monotonicSeconds()) }
            if let due = prepared.due { next = max(min(next ?? .infinity, due - monotonicSeconds()), 0.001) }
            let timeout = next.map { Int32(min(($0 * 1000).rounded(.up), 60_000)) } ?? -1
            if poll(&fds, nfds_t(fds.count), timeout) < 0 && errno != EINTR {
                return "poll failed: " + String(cString: strerror(errno))
            }
            let signals = daemonSignals.take()
            if signals.contains(SIGTERM) || signals.contains(SIGINT) {
                Daemon.log("leaving (\(signals.contains(SIGTERM) ? "SIGTERM" : "SIGINT"))")
                handOver()
                return nil
            }
            if signals.contains(SIGCHLD) { reap() }
            var why: String? = signals.contains(SIGHUP) ? "SIGHUP" : nil
            if let watch, fds[2].revents != 0, watch.drain() { why = why ?? "the file changed" }
            if let why, let lost = reload(because: why) { return lost }
        }
    }

    /// Before leaving: what the daemon's clipboard holds goes to a detached owner process (bounded
    /// by the connect timeout), so it survives the daemon.
    private func handOver() {
        guard let host else { return }
        do throws(ClipboardError) {
            _ = try host.service()  // a copy that took the selection from us since
            guard host.owns else { return }
            var policy = OwnerPolicy()
            if let reuse = config.clipboardOwner.reuseOwner { policy.reuseOwner = reuse }
            if let owner = try host.handOver(options: config.clipboard, policy: policy) {
                Daemon.log("the clipboard is served by pid \(owner.pid) from now on")
            }
        } catch {
            Daemon.log("the clipboard could not be handed over: \(ErrorReport.classify(error).1)")
        }
    }

    /// Every queued key event; the reason when the X server went away.
    private func handleKeys() -> String? {
        do throws(ClipboardError) {
            while let event = try keys.next() {
                switch event {
                case .press(let press):
                    guard let hit = active.first(where: { $0.grab?.matches(press) == true }) else { continue }
                    host?.eventTime = press.time
                    if !servePrepared(hit.binding) {
                        perform(hit.binding)
                        // Made again for the next press (the store's directory may be a new one).
                        storeWatch?.rewatch()
                        prepared.generation += 1
                        prepared.schedule(at: monotonicSeconds())
                    }
                    host?.eventTime = 0
                case .mappingChanged:
                    try regrabIfMoved()
                }
            }
            return nil
        } catch {
            return ErrorReport.classify(error).1
        }
    }

    /// Reads the config again; a broken one keeps the bindings in force and says why, on stderr
    /// and on the desktop (once per problem: an editor may write the same broken file twice).
    /// Keys that were not grabbed are tried again.
    private func reload(because why: String) -> String? {
        let fresh: Config
        do throws(ConfigError) {
            fresh = try Config.load(path: configPath)
        } catch {
            Daemon.log("not reloaded (\(why)); keeping the previous hotkeys: \(error)")
            if lastReloadProblem != error.description {
                lastReloadProblem = error.description
                notice.notify(error, .reloadFailed)
            }
            return nil
        }
        lastReloadProblem = nil
        let retry = fresh.hotkeys != config.hotkeys || active.contains { $0.grab == nil }
        config = fresh
        storeKeeper.drop()
        prepared.clear()
        prepared.schedule(at: monotonicSeconds())
        if retry {
            do throws(ClipboardError) { try grabAll() } catch { return ErrorReport.classify(error).1 }
        }
        if !retry { publishStatus() }
        Daemon.log("reloaded \(configPath) (\(why)): \(summary)")
        if retry, let none = noKeyGrabbed(waiting: true) {
            Daemon.log(none.message)
            notice.notify(none, .noKeys)
        }
        return nil
    }

    /// `3 hotkeys: Super+Alt+I → copy-id, …`.
    var summary: String {
        let grabbed = active.filter { $0.grab != nil }
        let list = grabbed.map { "\($0.binding.written) → \($0.binding.action)" }.joined(separator: ", ")
        let count = "\(grabbed.count) hotkey\(grabbed.count == 1 ? "" : "s") grabbed"
        return list.isEmpty ? count : count + ": " + list
    }

    /// Runs a binding's action in this process, always to the clipboard, or opens the popup menu.
    private func perform(_ binding: HotkeyBinding) {
        if tracing { Daemon.log("trace: \(binding.written) pressed → \(binding.action)") }
        if binding.action == HotkeyBinding.menuAction { return openMenu(binding) }
        do {
            let run = try pressInvocation()
            try ActionRun.perform(binding.action, invocation: run, origin: .key)
            finished(binding, nil)
        } catch {
            finished(binding, error)
        }
    }

    /// The invocation a key's action runs in: `run ACTION --to clipboard` with the daemon's
    /// `--trace`, `--reveal`, `--quiet` and `--session`, its config, owner and store connection.
    func pressInvocation() throws -> Invocation {
        var arguments = ["--to", "clipboard"]
        for flag in ["trace", "reveal", "quiet"] where invocation.arguments.has(flag) {
            arguments.append("--" + flag)
        }
        if let session = invocation.arguments.value("session") { arguments += ["--session", session] }
        let parsed = try ParsedArguments.parse(
            Tokenizer.split(arguments), arguments: arguments, spec: RunCommand.spec)
        let run = Invocation(arguments: parsed, environment: environment)
        run.exitsSoon = false
        run.selectionHost = host
        run.storeKeeper = storeKeeper
        run.use(config: config)
        return run
    }

    /// The outcome of a key's action: the one place it is known.
    private func finished(_ binding: HotkeyBinding, _ error: (any Error)?) {
        // The desktop notification of the outcome is sent by `ActionRun.perform` (origin .key)
        // or by `openMenu`; this is the daemon's own log line.
        guard let error else { return }
        let (status, message) = ErrorReport.classify(error)
        Daemon.log("\(binding.written) → \(binding.action) failed (status \(status.rawValue)): \(message)")
    }

    /// Starts the popup menu without waiting for it: `userdebug-popup` beside this executable,
    /// else in PATH; a desktop notification when it is neither.
    private func openMenu(_ binding: HotkeyBinding) {
        var options = ChildProcess.Options()
        options.defaultSignals = .all
        options.input = .null
        do {
            let child = try ChildProcess.spawn(try popupCommand(), environment: processEnvironment(), options: options)
            children.insert(child.pid)
            finished(binding, nil)
        } catch {
            let failure = CommandError(.unavailable, "cannot start the popup menu: \(ErrorReport.classify(error).1)")
            Notifier.of(invocation, origin: .key, token: nil).notify(outcome: .failed(failure))
            finished(binding, failure)
        }
    }

    /// `userdebug-popup` (beside this executable, else in PATH) with the daemon's `--session`,
    /// `--reveal` and `--trace`.
    func popupCommand() throws -> [String] {
        var argv = [try PopupHost.locate(searchPath: invocation.variable("PATH") ?? "/usr/local/bin:/usr/bin:/bin")]
        if let session = invocation.arguments.value("session") { argv += ["--session", session] }
        for flag in ["reveal", "trace"] where invocation.arguments.has(flag) { argv.append("--" + flag) }
        return argv
    }

    /// Reaps the popups that ended (only ours: the clipboard's own children are its to wait for).
    private func reap() {
        for pid in children {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { children.remove(pid) }
        }
    }
}
