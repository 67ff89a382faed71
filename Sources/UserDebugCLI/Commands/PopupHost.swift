package import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// What the popup executable (`userdebug-popup`) takes from the command line's code: the
/// arguments as `userdebug menu --popup` takes them, the menu from the same providers, titles
/// cleaned by `MenuRenderer`, the payload delivered by `OutputRouter` and errors mapped by
/// `ErrorReport`, so the popup runs an action exactly as `userdebug run` does.
package final class PopupHost: @unchecked Sendable {
    /// The options `userdebug-popup` (and `userdebug menu --popup`) accept besides the global ones.
    static let options: [OptionSpec] = [
        .flag("popup", "Show the menu as a popup window at the pointer (the userdebug-popup program)."),
        MenuSources.traceOption,
    ]

    /// The menu, requested and displayed.
    package let session: MenuSession
    /// The popup's look: the config's `menu.popup` section.
    package let settings: Config.Popup
    /// `--trace`: lifecycle events and the popup's state lines go to stderr.
    package let tracing: Bool
    /// `$DISPLAY`.
    package let display: String?
    private let invocation: Invocation
    private let renderer: MenuRenderer

    private init(session: MenuSession, invocation: Invocation) throws {
        self.session = session
        self.invocation = invocation
        self.settings = try invocation.config().popup
        self.tracing = invocation.arguments.has("trace")
        self.display = invocation.variable("DISPLAY")
        self.renderer = MenuRenderer(session: session.context.session, revealed: invocation.arguments.has("reveal"))
    }

    /// Runs `userdebug-popup ARGUMENTS`: requests and displays the menu, hands it to `show` (which
    /// shows it and returns the chosen action's id, or nil when the user dismissed it), then
    /// performs that action with its payload on the clipboard, or cancels. Returns the exit
    /// status, with the error on stderr as `userdebug` writes it.
    package static func run(_ arguments: [String], show: (PopupHost) throws -> String?) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let diagnostics = Diagnostics(quiet: false, isTerminal: isatty(2) == 1)
        do {
            let spec = CommandSpec(
                path: ["menu"], summary: "", usage: "menu --popup [--session NAME] [--reveal] [--trace]",
                discussion: "", options: options, maxPositionals: 0, run: { _ in })
            let parsed = try ParsedArguments.parse(Tokenizer.split(arguments), arguments: arguments, spec: spec)
            let invocation = Invocation(arguments: parsed, environment: nil)
            do {
                try present(invocation, show: show)
            } catch {
                // A failure of the popup or of the chosen entry is told to the desktop: the popup
                // was opened from a key, with no terminal to read stderr.
                Notifier.of(invocation, origin: .key, token: try? MenuSources.context(invocation).session.token)
                    .notify(outcome: .failed(error))
                throw error
            }
            return ExitStatus.ok.rawValue
        } catch {
            let (status, message) = ErrorReport.classify(error)
            diagnostics.error(message)
            return status.rawValue
        }
    }

    private static func present(_ invocation: Invocation, show: (PopupHost) throws -> String?) throws {
        let session = try MenuSession.request(
            providers: MenuSources.allProviders(invocation),
            context: { try MenuSources.context(invocation) },
            observers: MenuSources.observers(invocation))
        let chosen: String?
        do {
            let host = try PopupHost(session: session, invocation: invocation)
            try session.display()
            chosen = try show(host)
        } catch {
            session.abandon(because: error)
            throw error
        }
        guard let chosen else { return session.cancel() }
        // Performs it, copies the payload to the selections `output.selection` names (never
        // stdout: the popup's is nobody's), says so in a notification, and notes a placeholder.
        try ActionRun.deliver(
            chosen, from: session, router: OutputRouter(invocation: invocation, selectionsOnly: true), origin: .key)
    }

    /// `text` on one line, the session's token and JWT-shaped values replaced unless `--reveal`:
    /// what the terminal menu shows for a title.
    package func clean(_ text: String) -> String {
        renderer.clean(text)
    }

    /// The subtitle the terminal menu shows for `action`: none for a secret action, cleaned.
    package func subtitle(of action: DebugAction) -> String? {
        renderer.subtitle(of: action)
    }

    /// One line on stderr, as `--trace` writes lifecycle events (`userdebug: trace: …`).
    package func trace(_ line: String) {
        guard tracing else { return }
        let text = "userdebug: trace: \(line)"
        try? writeAll(
            Array(((invocation.diagnostics.isTerminal ? TerminalText.escape(text) : text) + "\n").utf8), to: 2,
            name: "standard error")
    }

    /// An error for a popup that cannot be shown (no display, a grab another program holds):
    /// exit status 69, as for a clipboard without a display.
    package static func unavailable(_ message: String) -> any Error {
        CommandError(.unavailable, message)
    }
}

extension PopupHost {
    /// The popup program's name: installed beside `userdebug`.
    static let programName = "userdebug-popup"

    /// `userdebug menu --popup …`: replaces this process with `userdebug-popup` and the same
    /// options, found beside this executable, else on PATH; exit status 69 when it is neither.
    static func exec(_ invocation: Invocation) throws {
        if (invocation.variable("DISPLAY") ?? "").isEmpty && DaemonCommand.inWaylandSession(invocation) {
            throw CommandError(
                .unavailable,
                "the popup is an X11 window and this Wayland session has no X display (DISPLAY unset: no XWayland);"
                    + " use a launcher: userdebug menu --dmenu (userdebug setup binds it to Super+Alt+M on sway)")
        }
        var arguments = [programName]
        if let name = invocation.arguments.value("session") { arguments += ["--session", name] }
        for flag in ["reveal", "trace", "quiet"] where invocation.arguments.has(flag) { arguments.append("--" + flag) }
        let path = try locate(searchPath: invocation.variable("PATH") ?? "")
        let cStrings = arguments.map { strdup($0) } + [nil]
        execv(path, cStrings)
        let reason = String(cString: strerror(errno))
        throw CommandError(.unavailable, "cannot run \(path): \(reason)")
    }

    /// The popup program to run: beside this executable, else the first on `searchPath` (PATH).
    /// - Throws: `CommandError` (exit status 69) naming the program when it is neither.
    static func locate(searchPath: String) throws -> String {
        guard let found = find(searchPath: searchPath) else {
            let state = FirstHourState.popupNotInstalled(program: programName, prefix: FirstHourHints.installPrefix())
            throw CommandError(.unavailable, state.message)
        }
        // It runs the chosen action with the session at hand: whoever may replace it gets the
        // token, so it gets the check that a config's programs get (issue 25, item 5).
        if let problem = FileTrust.programProblem(at: found) {
            throw CommandError(.noPermission, "refusing to run \(found): \(problem)")
        }
        return found
    }

    /// The popup program beside this executable, else the first on `searchPath`; nil when
    /// neither exists. Not checked for trust: `locate` does that (`doctor` reports it apart).
    static func find(searchPath: String) -> String? {
        ([besideSelf()].compactMap { $0 } + onPath(searchPath)).first { access($0, X_OK) == 0 }
    }

    private static func besideSelf() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[...slash]) + programName
    }

    private static func onPath(_ path: String) -> [String] {
        path.split(separator: ":").filter { $0.hasPrefix("/") }.map { $0 + "/" + programName }
    }
}
