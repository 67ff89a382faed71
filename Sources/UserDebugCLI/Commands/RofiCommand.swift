import UserDebugKit

/// `userdebug rofi`: rofi's script mode (rofi-script(5)). Called without ROFI_RETV (or 0) it
/// prints the menu as rows, each carrying its action id as `info`, deferred sections that
/// failed as non-selectable rows, and sections still loading as `Title (loading)` rows (info
/// `loading ID`); called again with ROFI_RETV=1 and ROFI_INFO, it performs that action to the
/// clipboard and prints nothing, so rofi closes — asking only the section the action comes
/// from — or, for a loading row, lists the menu again once that section has answered.
enum RofiCommand {
    static let spec = CommandSpec(
        path: ["rofi"],
        summary: "rofi script mode: list the debug menu in rofi and run the chosen action.",
        usage: "rofi [ENTRY] [--session NAME] [--trace]",
        discussion: """
            For rofi, not for a terminal: rofi runs it with no argument to list the menu, then with
            ROFI_RETV=1 and ROFI_INFO=ACTION-ID when an entry is chosen, which copies that action's
            payload to the clipboard (a notification tells what was copied). A typed entry
            (ROFI_RETV=2) runs the action whose line or id it is. A backend section still loading
            is a "Title (loading)" row; choosing it lists the menu again once it has answered. A
            choice asks only the backend section its action comes from.
            Example: rofi -show userdebug -modi 'userdebug:userdebug rofi'
            """,
        options: [MenuSources.traceOption],
        maxPositionals: 1
    ) { invocation in
        let retv = invocation.variable("ROFI_RETV").flatMap { Int($0) } ?? 0
        let info = invocation.variable("ROFI_INFO").flatMap { $0.isEmpty ? nil : $0 }
        if retv == 1, let id = info, !id.hasPrefix(loadingInfo) {
            return try ActionRun.perform(id, invocation: invocation, selectionsOnly: true, origin: .key)
        }
        let typed = invocation.arguments.positionals.first
        let section = retv == 1 ? info.map { String($0.dropFirst(loadingInfo.count)) } : nil
        do {
            try listOrRun(
                invocation, typed: retv == 2 || (retv == 1 && info == nil) ? typed : nil, waitingFor: section)
        } catch {
            guard typed == nil else { throw error }
            // rofi shows a failing script as a bare "failed to execute": the error goes into
            // rofi's message line instead (and stderr), and the mode shows no rows.
            let message = ErrorReport.classify(error).1.split(separator: "\n").first.map(String.init) ?? ""
            invocation.diagnostics.error(message)
            try writeAll(Array(rows([], message: message).utf8), to: 1, name: "standard output")
        }
    }

    /// The start of a loading row's `info`: `loading ID` (no action id has a space).
    static let loadingInfo = "loading "

    /// Lists the menu: what is ready within `LauncherCommand.readyWithin`, sections still
    /// loading as rows to choose — and the section `waitingFor` (a loading row chosen) once it
    /// has answered. With `typed` (a custom entry), runs the action it names instead, or lists
    /// again with a message saying it names none.
    private static func listOrRun(_ invocation: Invocation, typed: String?, waitingFor section: String?) throws {
        // The sections still loading once the rows are out are asked again on the next call.
        defer { if invocation.exitsSoon { ProcessRunner.stopAll() } }
        let session = try MenuSession.request(
            providers: MenuSources.allProviders(invocation), context: { try MenuSources.context(invocation) },
            observers: MenuSources.observers(invocation))
        do {
            try session.display()
            try session.startResolving()
            session.waitForDeferred(until: monotonicSeconds() + LauncherCommand.readyWithin)
            if let section { session.waitForDeferred([section], until: .infinity) }
            let renderer = MenuRenderer(session: session.context.session, revealed: invocation.arguments.has("reveal"))
            let entries = LauncherEntries.entries(session.elements, renderer: renderer)
            if let typed,
                let id = LauncherEntries.entry(chosen: typed, in: entries)?.actionID
                    ?? LauncherCommand.loadingSectionAction(typed, in: entries)
            {
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
    /// `info` (and as `meta`, so typing an id finds it), a loading section's row with
    /// `loading ID`, non-selectable rows for entries that run nothing.
    static func rows(_ entries: [LauncherEntry], message: String) -> String {
        var text = "\0prompt\u{1f}userdebug\n\0markup-rows\u{1f}false\n"
        text += "\0message\u{1f}\(markupEscaped(TerminalText.escape(message)))\n"
        for entry in entries {
            if let id = entry.actionID {
                text += "\(entry.line)\0info\u{1f}\(id)\u{1f}meta\u{1f}\(id)\n"
            } else if entry.isLoading, let section = entry.section {
                text += "\(entry.line)\0info\u{1f}\(loadingInfo)\(section)\n"
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
