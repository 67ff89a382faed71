import UserDebugKit

/// The app's own model, used in every build.
struct Account: Sendable {
    let identifier: String
    let displayName: String
}

let account = Account(identifier: "acct_fixture_42", displayName: "Fixture Account")
print("signed in as \(account.displayName)")

#if DEBUG
    /// The view that shows the account: the object that knows a record, so it offers the debug
    /// actions on it.
    final class FixtureAccountView: DebugMenuInteractionDelegate {
        let account: Account

        init(account: Account) {
            self.account = account
        }

        func debugActions(in context: ActionContext) -> [MenuElement] {
            let identifier = account.identifier
            return [
                .action(
                    DebugAction(id: "fixture-copy-account", title: "Copy Fixture Account Identifier") { _ in
                        Payload(text: identifier)
                    })
            ]
        }
    }

    let view = FixtureAccountView(account: account)
    let interaction = DebugMenuInteraction(delegate: view, providers: [UserActionProvider()])
    let session = Session(name: "fixture", user: User(identifier: account.identifier, name: account.displayName))
    if let menu = try? interaction.open(context: .inMemory(session: session)) {
        try? menu.perform("fixture-copy-account") { payload in print(String(decoding: payload.bytes, as: UTF8.self)) }
    }
#endif
