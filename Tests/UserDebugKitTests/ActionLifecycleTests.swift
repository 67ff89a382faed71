import Testing

@testable import UserDebugKit

/// The lifecycle contract (MenuEvent): each path, in order, `willEnd` exactly once.
@Suite struct ActionLifecycleTests {
    let recorder = EventRecorder()

    func request(_ providers: [any DebugActionProvider]) throws -> MenuSession {
        try MenuSession.request(
            providers: providers, context: { ActionFixtures.context() }, observers: [recorder.observer])
    }

    @Test func performingAnActionIsRequestedDisplayPerformEnd() throws {
        let menu = try request([UserActionProvider()])
        try menu.display()
        var delivered: [Payload] = []
        try menu.perform("copy-id") { delivered.append($0) }
        #expect(delivered == [Payload(text: "usr_1")])
        #expect(
            recorder.events == [
                .requested, .willDisplay(elementCount: 4), .willPerform(actionID: "copy-id"),
                .willEnd(.performed(actionID: "copy-id")),
            ])
    }

    @Test func cancellingAfterDisplayIsRequestedDisplayEnd() throws {
        let menu = try request([UserActionProvider()])
        try menu.display()
        menu.cancel()
        menu.cancel()
        #expect(recorder.events == [.requested, .willDisplay(elementCount: 4), .willEnd(.cancelled)])
    }

    @Test func anEmptyMenuFailsBeforeDisplay() throws {
        #expect(throws: MenuError.self) { try request([ActionProvider(name: "nothing", [])]) }
        #expect(recorder.events == [.requested, .willEnd(.failed(MenuError.empty.description))])
    }

    @Test func aThrowingProviderFailsBeforeDisplayAndIsNamed() throws {
        let broken = ActionProvider(name: "broken") { _ in throw TestFailure(description: "disk on fire") }
        do {
            _ = try request([UserActionProvider(), broken])
            Issue.record("a throwing provider must fail the menu")
        } catch let MenuError.providerFailed(provider, underlying) {
            #expect(provider == "broken")
            #expect("\(underlying)" == "disk on fire")
        }
        #expect(recorder.events.count == 2)
        #expect(recorder.events.first == .requested)
        guard case .willEnd(.failed(let reason)) = recorder.events.last else {
            Issue.record("no willEnd(failed)")
            return
        }
        #expect(reason.contains("broken") && reason.contains("disk on fire"))
    }

    @Test func aContextThatCannotBeMadeFailsBeforeDisplay() throws {
        #expect(throws: TestFailure.self) {
            try MenuSession.request(
                providers: [UserActionProvider()], context: { throw TestFailure(description: "no session") },
                observers: [recorder.observer])
        }
        #expect(recorder.events == [.requested, .willEnd(.failed("no session"))])
    }

    @Test func anActionThatThrowsEndsTheMenuAsFailedAfterWillPerform() throws {
        let session = Session(name: "bare", user: User(identifier: "u"))
        let menu = try MenuSession.request(
            providers: [UserActionProvider()], context: { .inMemory(session: session) }, observers: [recorder.observer])
        try menu.display()
        let message = BuiltinPayloads.noTokenMessage(for: session)
        #expect(message.hasPrefix("session 'bare' has no token: "))
        #expect(throws: ActionError.missing(message)) { try menu.perform("copy-token") { _ in } }
        #expect(
            recorder.events == [
                .requested, .willDisplay(elementCount: 4), .willPerform(actionID: "copy-token"),
                .willEnd(.failed(message)),
            ])
    }

    @Test func anUnknownActionEndsTheMenuWithoutWillPerform() throws {
        let menu = try request([UserActionProvider()])
        try menu.display()
        #expect(throws: MenuError.self) { try menu.perform("nope") { _ in } }
        #expect(recorder.events.count == 3)
        #expect(!recorder.events.contains { if case .willPerform = $0 { return true } else { return false } })
    }

    @Test func performingBeforeDisplayIsRefusedAndEmitsNothing() throws {
        let menu = try request([UserActionProvider()])
        #expect(throws: MenuError.self) { try menu.perform("copy-id") { _ in } }
        #expect(recorder.events == [.requested])
        try menu.display()
        #expect(throws: MenuError.self) { try menu.display() }
    }

    @Test func nothingHappensAfterTheEnd() throws {
        let menu = try request([UserActionProvider()])
        try menu.display()
        try menu.perform("copy-id") { _ in }
        #expect(throws: MenuError.self) { try menu.perform("copy-id") { _ in } }
        menu.cancel()
        #expect(recorder.events.filter { if case .willEnd = $0 { return true } else { return false } }.count == 1)
    }

    @Test func aFailedDeliveryEndsAsFailed() throws {
        let menu = try request([UserActionProvider()])
        try menu.display()
        #expect(throws: TestFailure.self) {
            try menu.perform("copy-id") { _ in throw TestFailure(description: "stdout closed") }
        }
        #expect(recorder.events.last == .willEnd(.failed("stdout closed")))
    }
}
