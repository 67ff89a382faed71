import UserDebugKit

/// `userdebug rofi`: rofi's script mode (rofi-script(5)). Called without ROFI_RETV (or 0) it
/// prints the menu as rows, each carrying its action id as `info`, deferred sections that did
/// not resolve as non-selectable rows; called again with ROFI_RETV=1 and ROFI_INFO, it performs
/// that action to the clipboard and prints nothing, so rofi closes.
enum RofiCommand {
    static let spec = CommandSpec(
        path: ["rofi"],
        summary: "rofi script mode: list the debug menu in rofi and run the chosen action.",
        usage: "rofi [ENTRY] [--session NAME] [--trace]",
        discussion: """
            For rofi, not for a terminal: rofi runs it with no argument to list the menu, then with
            ROFI_RETV=1 and ROFI_INFO=ACTION-ID when an entry is chosen, which copies that action's
            payload to the clipboard (a notification tells what was copied). A typed entry
            (ROFI_RETV=2) runs the action whose line or id it is.
            Example: rofi -show userdebug -modi 'userdebug:userdebug rofi'
            """,
        options: [MenuSources.traceOption],
        maxPositionals: 1
    ) { invocation in
        let retv = invocation.variable("ROFI_RETV").flatMap { Int($0) } ?? 0
        let info = invocation.variable("ROFI_INFO").flatMap { $0.isEmpty ? nil : $0 }
        if retv == 1, let id = info {
            return try ActionRun.perform(id, invocation: invocation, selectionsOnly: true, origin: .key)
        }
        let typed = invocation.arguments.positionals.first
        do {
            try listOrRun(invocation, typed: retv == 2 || (retv == 1 && info == nil) ? typed : nil)
        } catch {
            guard typed == nil else { throw error }
            // rofi shows a failing script as a bare "failed to execute": the error goes into
            // rofi's message line instead (and stderr), and the mode shows no rows.
            let message = ErrorReport.classify(error).1.split(separator: "\n").first.map(String.init) ?? ""
            invocation.diagnostics.error(message)
            try writeAll(Array(rows([], message: message).utf8), to: 1, name: "standard output")
        }
    }

    /// Lists the menu; with `typed` (a custom entry), runs the action it names instead, or
    /// lists again with a message saying it names none.
    private static func listOrRun(_ invocation: Invocation, typed: String?) throws {
        let session = try MenuSession.request(
            providers: MenuSources.allProviders(invocation), context: { try MenuSources.context(invocation) },
            observers: MenuSources.observers(invocation))
        do {
            try session.display()
            try session.resolveDeferred()
            let renderer = MenuRenderer(session: session.context.session, revealed: invocation.arguments.has("reveal"))
            let entries = LauncherEntries.entries(session.elements, renderer: renderer)
            if let typed, let id = LauncherEntries.entry(chosen: typed, in: entries)?.actionID {
                let router = OutputRouter(invocation: invocation, selectionsOnly: true)
                return try ActionRun.deliver(id, from: session, router: router, origin: .key)
            }
            var message =
                "Session \(renderer.clean(session.context.session.name)) · user "
                + renderer.clean(session.context.session.user.identifier)
            if let typed { message = "No entry ‘\(typed)’. " + message }
            let text = rows(entries, message: message)
            try writeAll(Array(text.utf8), to: 1, name: "standard output")
        } catch {
            session.abandon(because: error)
            throw error
        }
        session.cancel()
    }

    /// The script's output: the prompt and message, then one row per entry with its id as
    /// `info` (and as `meta`, so typing an id finds it), non-selectable rows for entries that
    /// run nothing.
    static func rows(_ entries: [LauncherEntry], message: String) -> String {
        var text = "\0prompt\u{1f}userdebug\n\0markup-rows\u{1f}false\n"
        text += "\0message\u{1f}\(markupEscaped(TerminalText.escape(message)))\n"
        for entry in entries {
            if let id = entry.actionID {
                text += "\(entry.line)\0info\u{1f}\(id)\u{1f}meta\u{1f}\(id)\n"
            } else {
                text += "\(entry.line)\0nonselectable\u{1f}true\n"
            }
        }
        return text
    }

    /// rofi shows the message as Pango markup.
    private static func markupEscaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}
