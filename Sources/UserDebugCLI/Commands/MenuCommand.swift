import UserDebugKit

/// `userdebug menu`: the whole debug menu for the session — built-in actions, the config's
/// actions and the resolved "From the backend" section — as text, or as JSON for scripts.
enum MenuCommand {
    static let spec = CommandSpec(
        path: ["menu"],
        summary: "Show the debug menu: every action's id and title (--json for scripts).",
        usage: "menu [--session NAME] [--json | --popup | --dmenu [--launcher CMD]] [--reveal] [--trace]",
        discussion: """
            Goes through the menu lifecycle (requested, will display, will end: cancelled) and
            resolves deferred sections, each within its timeout: a slow backend shows as "timed
            out", never as a hang. Run an entry with 'userdebug run ID'.
            --popup shows it as a window at the pointer (the userdebug-popup program).
            With --dmenu the menu is shown in a launcher and the chosen entry is copied to the
            clipboard; Esc exits 1. The launcher never waits for a slow backend section: one still
            loading is a "Title (loading)" line, and choosing it shows that section's lines in a
            second launcher.
            Example: userdebug menu --json | jq -r '.. | objects | select(.type? == "action") | .id'
            """,
        options: [.flag("json", "The menu as one JSON document.")] + PopupHost.options + LauncherCommand.options,
        maxPositionals: 0
    ) { invocation in
        // Each of these shows the menu its own way: with two, one would be ignored silently.
        let modes = ["json", "popup", "dmenu"].filter { invocation.arguments.has($0) }
        if modes.count > 1 {
            throw UsageError(
                message: modes.map { "--" + $0 }.joined(separator: " and ") + " cannot be combined: choose one",
                command: ["menu"])
        }
        if invocation.arguments.value("launcher") != nil && !invocation.arguments.has("dmenu") {
            throw UsageError(message: "--launcher goes with --dmenu", command: ["menu"])
        }
        if invocation.arguments.has("popup") { return try PopupHost.exec(invocation) }
        if invocation.arguments.has("dmenu") { return try LauncherCommand.run(invocation) }
        let session = try MenuSession.request(
            providers: MenuSources.allProviders(invocation),
            context: { try MenuSources.context(invocation) },
            observers: MenuSources.observers(invocation))
        do {
            try session.display()
            try session.resolveDeferred()
            let renderer = MenuRenderer(
                session: session.context.session, revealed: invocation.arguments.has("reveal"))
            let payload =
                invocation.arguments.has("json")
                ? Payload(text: renderer.json(session.elements), kind: .json)
                : Payload(text: renderer.text(session.elements))
            try StandardOutputSink(isTerminal: invocation.stdoutKind == .terminal).write(payload)
        } catch {
            session.abandon(because: error)
            throw error
        }
        session.cancel()
    }
}
