/// The session's user as a provider: copy identifier, copy name, dump JSON, copy token (the one
/// secret). Building the elements touches nothing but the session already in the context;
/// `dump-json` asks for the redactor only when it runs.
public struct UserActionProvider: DebugActionProvider {
    /// The ids this provider offers; config actions may not reuse them.
    public static let actionIDs = ["copy-id", "copy-name", "dump-json", "copy-token"]

    /// `user`.
    public var name: String { "user" }

    /// The provider; it has no settings, and what it offers depends only on the context's session.
    public init() {}

    /// Copy Identifier (`I`), Copy Name (`N`), Dump JSON (`J`) and Copy Token (`T`, a secret); the
    /// first two show their value as the subtitle.
    public func menuElements(in context: ActionContext) throws -> [MenuElement] {
        let user = context.session.user
        return [
            .action(
                DebugAction(id: "copy-id", title: "Copy Identifier", subtitle: user.identifier, keyHint: "I") {
                    context in
                    BuiltinPayloads.identifier(of: context.session)
                }),
            .action(
                DebugAction(id: "copy-name", title: "Copy Name", subtitle: user.name, keyHint: "N") { context in
                    BuiltinPayloads.name(of: context.session)
                }),
            .action(
                DebugAction(id: "dump-json", title: "Dump JSON", keyHint: "J") { context in
                    BuiltinPayloads.userJSON(of: context.session, redactor: try context.redactor())
                }),
            .action(
                DebugAction(id: "copy-token", title: "Copy Token", keyHint: "T", isSecret: true) { context in
                    guard let payload = BuiltinPayloads.token(of: context.session) else {
                        throw ActionError.missing(BuiltinPayloads.noTokenMessage(for: context.session))
                    }
                    return payload
                }),
        ]
    }
}
