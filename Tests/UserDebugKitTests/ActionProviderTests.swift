import Testing

@testable import UserDebugKit

/// Providers: composition, the built-in user and response providers, the in-app interaction.
@Suite struct ActionProviderTests {
    func perform(_ id: String, providers: [any DebugActionProvider], context: ActionContext = ActionFixtures.context())
        throws -> Payload
    {
        let menu = try MenuSession.request(providers: providers, context: { context })
        try menu.display()
        var out: [Payload] = []
        try menu.perform(id) { out.append($0) }
        return try #require(out.first)
    }

    @Test func providersComposeInOrder() throws {
        let first = ActionProvider(name: "first", [ActionFixtures.action("a"), ActionFixtures.action("b")])
        let second = ActionProvider(name: "second", [ActionFixtures.action("c")])
        let elements = try ComposedProvider([first, second]).menuElements(in: ActionFixtures.context())
        #expect(elements.map(\.id) == ["a", "b", "c"])
        #expect(ComposedProvider([first, second]).name == "first+second")
    }

    @Test func twoProvidersOfferingTheSameIdAreRefused() throws {
        let one = ActionProvider(name: "one", [ActionFixtures.action("same")])
        let two = ActionProvider(
            name: "two", [.submenu(Submenu(id: "g", title: "G", children: [ActionFixtures.action("same")]))])
        #expect(throws: MenuError.self) {
            try MenuSession.request(providers: [one, two], context: { ActionFixtures.context() })
        }
    }

    /// Small menus are searched pairwise, larger ones through a set: both name every shared id
    /// once, in the order the menu first repeats them.
    @Test(arguments: [3, 31, 32, 33, 100])
    func sharedIdsAreNamedOnceWhateverTheMenusSize(_ count: Int) throws {
        let ids = (0..<count).map { "a\($0)" } + ["a1", "a0", "a1"]
        let provider = ActionProvider(name: "many", ids.map { ActionFixtures.action($0) })
        let error = try #require(throws: MenuError.self) {
            try MenuSession.request(providers: [provider], context: { ActionFixtures.context() })
        }
        guard case .duplicateIDs(let shared) = error else {
            Issue.record("not a duplicate-id error: \(error)")
            return
        }
        #expect(shared == ["a1", "a0"])
        let distinct = ActionProvider(name: "distinct", (0..<count).map { ActionFixtures.action("a\($0)") })
        let menu = try MenuSession.request(providers: [distinct], context: { ActionFixtures.context() })
        #expect(menu.elements.count == count)
    }

    @Test func theUserProviderCopiesIdentifierAndNameAndDumpsRedactedJSON() throws {
        #expect(try perform("copy-id", providers: [UserActionProvider()]) == Payload(text: "usr_1"))
        #expect(try perform("copy-name", providers: [UserActionProvider()]) == Payload(text: "Zoë"))
        let json = try perform("dump-json", providers: [UserActionProvider()])
        #expect(json.kind == .json)
        #expect(!String(decoding: json.bytes, as: UTF8.self).contains("ak-1"))
        let revealed = try perform(
            "dump-json", providers: [UserActionProvider()], context: ActionFixtures.context(reveal: true))
        #expect(String(decoding: revealed.bytes, as: UTF8.self).contains("ak-1"))
    }

    @Test func theTokenIsASecretActionAndItsPayloadIsMarked() throws {
        let elements = try UserActionProvider().menuElements(in: ActionFixtures.context())
        #expect(elements.action(id: "copy-token")?.isSecret == true)
        #expect(elements.allActions.filter(\.isSecret).map(\.id) == ["copy-token"])
        #expect(
            try perform("copy-token", providers: [UserActionProvider()])
                == Payload(text: ActionFixtures.token, isSecret: true))
    }

    @Test func theResponseProviderPrintsTheLastTheLoginAndByStatusClass() throws {
        let provider = ResponseLogProvider()
        #expect(
            String(decoding: try perform("print-response", providers: [provider]).bytes, as: UTF8.self)
                == "{\"error\":\"not found\"}")
        let login = String(decoding: try perform("print-login-response", providers: [provider]).bytes, as: UTF8.self)
        #expect(login.contains("token") && !login.contains(ActionFixtures.token))
        #expect(
            String(decoding: try perform("print-response-4xx", providers: [provider]).bytes, as: UTF8.self).contains(
                "not found"))
        #expect(
            throws: ActionError.missing(
                "no recorded response matches (session 'staging', status 5xx); "
                    + "see what it has: userdebug response list --session staging")
        ) {
            try perform("print-response-5xx", providers: [provider])
        }
        let elements = try provider.menuElements(in: ActionFixtures.context())
        guard case .submenu(let byStatus) = elements.last else {
            Issue.record("no status submenu")
            return
        }
        #expect(
            byStatus.children.map(\.id) == [
                "print-response-1xx", "print-response-2xx", "print-response-3xx", "print-response-4xx",
                "print-response-5xx",
            ])
    }

    @Test func theResponseProviderTakesASelectorAndAPart() throws {
        let provider = ResponseLogProvider(selector: .id(1), part: .headers)
        #expect(
            String(decoding: try perform("print-response", providers: [provider]).bytes, as: UTF8.self).hasPrefix(
                "HTTP 200\n"))
    }

    @Test func builtinIdsAreReservedAgainstConfigActions() {
        for id in UserActionProvider.actionIDs + ResponseLogProvider.actionIDs {
            #expect(ConfigAction.reservedIDs.contains(id))
        }
    }

    final class AccountView: DebugMenuInteractionDelegate {
        func debugActions(in context: ActionContext) -> [MenuElement] {
            [.action(DebugAction(id: "view.copy", title: "Copy From View") { _ in Payload(text: "from the view") })]
        }
    }

    @Test func theInteractionComposesItsDelegateWithProvidersAndHoldsItWeakly() throws {
        let recorder = EventRecorder()
        var view: AccountView? = AccountView()
        let interaction = DebugMenuInteraction(
            delegate: view!, providers: [UserActionProvider()], observers: [recorder.observer])
        let menu = try interaction.open(context: ActionFixtures.context())
        #expect(menu.elements.map(\.id) == ["view.copy", "copy-id", "copy-name", "dump-json", "copy-token"])
        menu.cancel()
        #expect(recorder.events == [.requested, .willDisplay(elementCount: 5), .willEnd(.cancelled)])
        view = nil
        let again = try interaction.open(context: ActionFixtures.context())
        #expect(again.elements.action(id: "view.copy") == nil)
    }
}
