/// The config file's `actions` as a provider (see `ConfigAction` for what one does).
public struct ConfigActionProvider: DebugActionProvider {
    /// The actions, in menu order.
    public var actions: [ConfigAction]

    /// `config`.
    public var name: String { "config" }

    /// A provider for `actions` as they are; the config loader has checked them already.
    public init(actions: [ConfigAction]) {
        self.actions = actions
    }

    /// One menu action per config action.
    public func menuElements(in context: ActionContext) throws -> [MenuElement] {
        actions.enumerated().map { index, action in
            .action(
                DebugAction(
                    id: action.id, title: action.title, subtitle: action.subtitle, keyHint: action.keyHint,
                    isSecret: action.isSecret
                ) { context in
                    try Self.produce(action, in: context, key: "actions[\(index)]")
                })
        }
    }

    /// The template's text, or the command's stdout with the template on its stdin. `key` names
    /// the action in errors (`actions[2]`). The program is found and checked (`TrustedProgram`),
    /// no argument may hold the session's token, and no value filled into one may start it with
    /// `-` or hold a control character (`ActionTemplate.renderArgument`), before anything runs.
    static func produce(_ action: ConfigAction, in context: ActionContext, key: String? = nil) throws -> Payload {
        let text = try action.template?.render(in: context) ?? ""
        guard let command = action.command else {
            return Payload(text: text, isSecret: action.isSecret)
        }
        let key = key ?? "action \"\(action.id)\""
        var argv: [String] = []
        for (position, argument) in command.enumerated() {
            do {
                argv.append(try argument.renderArgument(in: context))
            } catch let problem as ActionTemplate.ArgumentValueProblem {
                throw ActionError.unsafeArgument(
                    action: action.id, key: key + ".command[\(position)]", placeholder: problem.placeholder.description,
                    reason: problem.reason)
            }
        }
        try refuseTokenInArguments(argv, key: key, token: context.session.token)
        let program = try TrustedProgram.resolve(argv[0], key: key + ".command[0]")
        let result: ProcessRunner.Result
        do {
            result = try ProcessRunner(timeout: action.timeoutSeconds).run(
                [program] + argv.dropFirst(), environment: context.environment, stdin: Array(text.utf8))
        } catch {
            switch error {
            case .notStarted(let reason): throw ActionError.commandNotStarted(command: argv[0], reason: reason)
            case .timedOut: throw ActionError.commandTimedOut(command: argv[0], seconds: action.timeoutSeconds)
            case .outputTooLarge:
                throw ActionError.outputTooLarge(command: argv[0], limit: ProcessRunner(timeout: 0).outputLimit)
            }
        }
        if let failure = ActionError.failure(of: argv[0], result, in: context) { throw failure }
        let isText = String(validating: result.stdout, as: UTF8.self) != nil
        return Payload(bytes: result.stdout, kind: isText ? .text : .binary, isSecret: action.isSecret)
    }

    /// The config check keeps placeholders that can carry a secret out of arguments; this catches
    /// the token in one that may not (a user's name field the app filled with it), literally or
    /// encoded (base64, hex, percent-encoded, escaped: issue 25, item 6): every local user can
    /// read a process's arguments.
    private static func refuseTokenInArguments(_ argv: [String], key: String, token: String?) throws(ActionError) {
        guard let token, !token.isEmpty else { return }
        let check = SecretPayloads.EncodedTokenCheck(token: token)
        for (position, argument) in argv.enumerated().dropFirst()
        where argument.contains(token) || check.holdsToken(Array(argument.utf8)) {
            throw ActionError.unsafeConfig(
                key: key + ".command[\(position)]",
                reason:
                    "this argument would hold the session's token, and arguments are visible to every local user; nothing was run (pass the value in \"template\", which the command reads on stdin)"
            )
        }
    }
}
