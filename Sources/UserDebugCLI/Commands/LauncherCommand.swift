import UserDebugKit

/// `userdebug menu --dmenu [--launcher CMD]`: the menu as lines on a dmenu-style launcher's
/// stdin; the line it prints back is performed to the clipboard, through the same path as
/// `userdebug run` (secrets marked and cleared, the outcome notified).
enum LauncherCommand {
    static let options: [OptionSpec] = [
        .flag("dmenu", "Show the menu in a launcher (dmenu, rofi, fuzzel, wofi, bemenu) and run the choice."),
        .value(
            "launcher", "CMD", completes: .words { candidates.map { $0[0] } },
            "The launcher to run with --dmenu, split at spaces (default: menu.launcher, else the first found)."),
    ]

    /// The launchers tried in order when neither `--launcher` nor `menu.launcher` names one,
    /// each with the arguments that make it read a list on stdin and print the choice.
    static let candidates: [[String]] = [
        ["dmenu", "-i", "-l", "20", "-p", "userdebug"],
        ["rofi", "-dmenu", "-i", "-p", "userdebug"],
        ["fuzzel", "--dmenu", "--prompt", "userdebug: "],
        ["wofi", "--dmenu", "--insensitive", "--prompt", "userdebug"],
        ["bemenu", "-i", "-l", "20", "-p", "userdebug"],
    ]

    /// The exit status when the launcher closed without a choice (Esc), as dmenu's own.
    static let nothingChosen: Int32 = 1

    /// How long a deferred section may take and still be in the first list (seconds); a slower
    /// one is a `Title (loading)` line. The launcher is never kept waiting for more.
    static let readyWithin = 0.05

    /// Shows the menu in the launcher and runs the choice.
    ///
    /// dmenu-style launchers (dmenu, rofi -dmenu, fuzzel, wofi, bemenu) draw only once their
    /// stdin is closed, so the list cannot grow while it is shown: the deferred sections start
    /// loading, the lines ready after `readyWithin` go to the launcher with one
    /// `Title (loading)` line per section still loading, and stdin is closed. Choosing such a
    /// line waits for that section and shows its lines in a second launcher; choosing an action
    /// runs it at once, waiting for nothing it does not come from.
    static func run(_ invocation: Invocation) throws {
        // A section still loading when we are done is not waited for: its curl goes with us.
        defer { if invocation.exitsSoon { ProcessRunner.stopAll() } }
        var session: MenuSession?
        do {
            let argv = try launcher(invocation)
            let menu = try MenuSession.request(
                providers: MenuSources.allProviders(invocation), context: { try MenuSources.context(invocation) },
                observers: MenuSources.observers(invocation))
            session = menu
            try menu.display()
            try menu.startResolving()
            menu.waitForDeferred(until: monotonicSeconds() + readyWithin)
            let renderer = MenuRenderer(session: menu.context.session, revealed: invocation.arguments.has("reveal"))
            var entries = LauncherEntries.entries(menu.elements, renderer: renderer)
            while true {
                let input = entries.map { $0.line + "\n" }.joined()
                let chosen = try choose(argv, input: Array(input.utf8), invocation: invocation)
                let entry = chosen.flatMap { LauncherEntries.entry(chosen: $0, in: entries) }
                if let entry, entry.isLoading, let section = entry.section {
                    // The second pass: that section's lines once it has answered (or failed).
                    menu.waitForDeferred([section], until: .infinity)
                    entries = LauncherEntries.entries(menu.elements, renderer: renderer).filter {
                        $0.section == section
                    }
                    continue
                }
                if let id = entry?.actionID ?? chosen.flatMap({ loadingSectionAction($0, in: entries) }) {
                    let router = OutputRouter(invocation: invocation, selectionsOnly: true)
                    return try ActionRun.deliver(id, from: menu, router: router, origin: .key)
                }
                if let chosen {
                    invocation.diagnostics.notice("'\(TerminalText.escape(chosen))' runs no action; nothing done")
                }
                menu.cancel()
                throw PassThroughExit(status: nothingChosen)
            }
        } catch let exit as PassThroughExit {
            throw exit
        } catch {
            session?.abandon(because: error)
            Notifier.of(invocation, origin: .key, token: session?.context.session.token).notify(outcome: .failed(error))
            throw error
        }
    }

    /// `typed` when it is the id of an action of a section still loading (typed in by hand):
    /// performing it waits for that section only.
    static func loadingSectionAction(_ typed: String, in entries: [LauncherEntry]) -> String? {
        entries.contains { $0.isLoading && $0.section.map { typed.hasPrefix($0 + ".") } == true } ? typed : nil
    }

    /// The launcher's argv: `--launcher`, else `menu.launcher`, else the first candidate in
    /// PATH (on Wayland the Wayland-native ones first).
    /// - Throws: exit 69 when it is not installed.
    static func launcher(_ invocation: Invocation) throws -> [String] {
        if let text = invocation.arguments.value("launcher") {
            let argv = Config.splitCommand(text)
            guard !argv.isEmpty else { throw CommandError(.usage, "--launcher needs a command, got '\(text)'") }
            return try installed(argv, from: "--launcher")
        }
        if let configured = try invocation.config().menu.launcher {
            return try installed(configured, from: "menu.launcher")
        }
        let wayland = invocation.variable("WAYLAND_DISPLAY").map { !$0.isEmpty } ?? false
        let order = wayland ? Array(candidates[2...]) + candidates[..<2] : candidates
        guard let found = order.first(where: { FileTrust.locateProgram($0[0]) != nil }) else {
            throw CommandError(
                .unavailable,
                "no launcher found: install dmenu, rofi, fuzzel, wofi or bemenu, or name one with --launcher or menu.launcher"
            )
        }
        return try trusted(found, from: "PATH", status: .noPermission)
    }

    private static func installed(_ argv: [String], from source: String) throws -> [String] {
        guard FileTrust.locateProgram(argv[0]) != nil else {
            throw CommandError(.unavailable, "the launcher '\(argv[0])' (\(source)) is not installed or not in PATH")
        }
        return try trusted(argv, from: source, status: source == "menu.launcher" ? .config : .noPermission)
    }

    /// `argv` with its program as found on PATH, refused (`status`) when someone else could
    /// change it: the launcher chooses the action that runs with the session, so whoever may
    /// replace it chooses for you (issue 25, item 5; the check a config's `command` gets).
    private static func trusted(_ argv: [String], from source: String, status: ExitStatus) throws -> [String] {
        guard let path = FileTrust.locateProgram(argv[0]) else { return argv }
        if let problem = FileTrust.programProblem(at: path) {
            throw CommandError(status, "refusing to run the launcher \(path) (\(source)): \(problem)")
        }
        return [path] + argv.dropFirst()
    }

    /// Runs the launcher with `input` on its stdin; its first line of output, or nil when it
    /// closed without a choice (status 1, or nothing printed).
    private static func choose(_ argv: [String], input: [UInt8], invocation: Invocation) throws -> String? {
        let result: ProcessRunner.Result
        do throws(ProcessRunner.Failure) {
            // A person chooses: an hour at most, so a forgotten launcher does not live forever.
            result = try ProcessRunner(timeout: 3600, outputLimit: 1 << 20).run(
                argv, environment: invocation.environment, stdin: input)
        } catch {
            throw CommandError(.unavailable, "the launcher '\(argv[0])' did not run: \(error)")
        }
        switch result.termination {
        case .exited(0):
            let output = String(decoding: result.stdout, as: UTF8.self)
            let line = output.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return line.isEmpty ? nil : line
        case .exited(1):
            return nil
        default:
            let stderr = String(decoding: result.stderr, as: UTF8.self).split(separator: "\n").last.map(String.init)
            throw CommandError(
                .unavailable,
                "the launcher '\(argv[0])' failed (status \(result.termination.shellStatus))"
                    + (stderr.map { ": " + TerminalText.escape($0) } ?? ""))
        }
    }
}
