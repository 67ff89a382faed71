import UserDebugKit

/// `userdebug run ACTION-ID`: any action, built-in or from config, through the same menu
/// lifecycle as `menu`; `copy-id`, `dump-json`, `print-response` and `copy-token` are shortcuts
/// for it.
enum RunCommand {
    static let spec = CommandSpec(
        path: ["run"],
        summary: "Run a debug action by id: a built-in one or one from the config (see 'userdebug menu').",
        usage: "run ACTION-ID [--session NAME] [--to TARGET] [--reveal] [--trace]",
        discussion: """
            The payload goes where --to says, like every action. Built-in ids: copy-id, copy-name,
            dump-json, copy-token, print-response, print-login-response, print-response-2xx … -5xx;
            actions from the backend section (backend.body, backend.field.NAME) resolve first.
            Example: userdebug run copy-name --to stdout
            """,
        options: ActionCommands.outputOptions + [MenuSources.traceOption],
        maxPositionals: 1,
        argument: .dynamic(.actions)
    ) { invocation in
        guard let id = invocation.arguments.positionals.first else {
            throw UsageError(message: "'run' needs an ACTION-ID; 'userdebug menu' lists them", command: ["run"])
        }
        try ActionRun.perform(id, invocation: invocation)
    }
}

/// Runs one action through a `MenuSession` and routes its payload, for `run` and the shortcuts.
enum ActionRun {
    /// The built-in ids: their providers need no config file, so running one of them builds no
    /// config or backend section (delivering the payload still reads the file's `output` and
    /// `clipboard` settings).
    static let builtinIDs = UserActionProvider.actionIDs + ResponseLogProvider.actionIDs

    /// Requests a menu, displays it (headless), performs `id`, delivers the payload through
    /// `OutputRouter`. Single-threaded unless `id` is only found after resolving deferred
    /// elements. Its outcome, success or failure, goes to the `Notifier` (a notification when
    /// a hotkey tool ran us).
    /// `selectionsOnly` and `origin .key`: for launchers, whose stdout is not the user's.
    static func perform(
        _ id: String, invocation: Invocation, responses: ResponseLogProvider = ResponseLogProvider(),
        selectionsOnly: Bool = false, origin: Notifier.Origin = .commandLine
    ) throws {
        var token: String?
        do {
            let providers: [any DebugActionProvider] =
                builtinIDs.contains(id)
                ? [UserActionProvider(), responses]
                : MenuSources.allProviders(invocation, responses: responses)
            let session = try MenuSession.request(
                providers: providers, context: { try MenuSources.context(invocation) },
                observers: MenuSources.observers(invocation))
            token = session.context.session.token
            try session.display()
            let router = OutputRouter(invocation: invocation, selectionsOnly: selectionsOnly)
            try deliver(id, from: session, router: router, origin: origin)
        } catch {
            Notifier.of(invocation, origin: origin, token: token).notify(outcome: .failed(error))
            throw error
        }
    }

    /// Performs `id` in the displayed `session`, sends its payload through `router` and tells
    /// the `Notifier` of the success (the caller reports a failure: it knows more of it).
    static func deliver(_ id: String, from session: MenuSession, router: OutputRouter, origin: Notifier.Origin) throws {
        let invocation = router.invocation
        var delivered: (payload: Payload, selections: [String])?
        try session.perform(id) { payload in
            delivered = (payload, try router.deliver(payload))
        }
        let action = session.elements.action(id: id)
        if action?.needsReveal == true, !invocation.arguments.has("reveal") {
            invocation.diagnostics.notice("\(id) is a secret: wrote the placeholder; --reveal gives the value")
        }
        guard let delivered else { return }
        let notifier = Notifier.of(invocation, origin: origin, token: session.context.session.token)
        guard notifier.isActive else { return }
        let delivery = Delivery(
            actionID: id, title: action?.title ?? id, payload: delivered.payload, selections: delivered.selections,
            clearSecretAfter: (try? invocation.config())?.clipboard.clearSecretAfter)
        notifier.notify(outcome: .delivered(delivery))
    }
}

/// Where menus get their context, providers and observers from in the CLI.
enum MenuSources {
    static let traceOption = OptionSpec.flag("trace", "Print the menu's lifecycle events on stderr.")

    /// The session from `--session` or the current one; the redactors (the config's policy) and
    /// responses are reached only when an action asks.
    static func context(_ invocation: Invocation) throws -> ActionContext {
        let session = try invocation.session(fromCopy: true)
        return ActionContext(
            session: session,
            environment: invocation.environmentSource,
            redactor: { try invocation.redactor(for: session) },
            classifier: {
                let secrets = [session.token].compactMap { $0 }.filter { !$0.isEmpty }
                return Redactor(policy: try invocation.config().redactionPolicy, knownSecrets: secrets)
            },
            responses: { selector in try invocation.storeForReading().response(selector) }
        )
    }

    /// Built-ins, then the config's actions, then the backend section. The config is read inside
    /// the providers, so a bad file fails the menu after `requested` (and `--trace` shows it).
    static func allProviders(_ invocation: Invocation, responses: ResponseLogProvider = ResponseLogProvider())
        -> [any DebugActionProvider]
    {
        [
            UserActionProvider(),
            responses,
            ActionProvider(name: "config") { context in
                try ConfigActionProvider(actions: invocation.config().actions).menuElements(in: context)
            },
            ActionProvider(name: "backend") { context in
                let config = try invocation.config()
                return try ([config.backend] + config.backendSections).flatMap { settings in
                    try BackendProvider(settings: settings).menuElements(in: context)
                }
            },
        ]
    }

    /// With `--trace`, one stderr line per lifecycle event; otherwise none.
    static func observers(_ invocation: Invocation) -> [MenuObserver] {
        guard invocation.arguments.has("trace") else { return [] }
        let isTerminal = invocation.diagnostics.isTerminal
        return [
            MenuObserver { event in
                // Events can carry messages built from recorded data; a terminal gets them escaped.
                let line = "userdebug: trace: \(event)"
                try? writeAll(
                    Array(((isTerminal ? TerminalText.escape(line) : line) + "\n").utf8), to: 2, name: "standard error")
            }
        ]
    }
}
