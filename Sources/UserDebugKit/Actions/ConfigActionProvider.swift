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
        actions.map { action in
            .action(
                DebugAction(
                    id: action.id, title: action.title, subtitle: action.subtitle, keyHint: action.keyHint,
                    isSecret: action.isSecret
                ) { context in
                    try Self.produce(action, in: context)
                })
        }
    }

    /// The template's text, or the command's stdout with the template on its stdin.
    static func produce(_ action: ConfigAction, in context: ActionContext) throws -> Payload {
        let text = try action.template?.render(in: context) ?? ""
        guard let command = action.command else {
            return Payload(text: text, isSecret: action.isSecret)
        }
        let argv = try command.map { try $0.render(in: context) }
        let result: ProcessRunner.Result
        do {
            result = try ProcessRunner(timeout: action.timeoutSeconds).run(
                argv, environment: context.environment, stdin: Array(text.utf8))
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
}
