import Synchronization
import Testing

@testable import UserDebugKit

/// Deferred elements resolve, fail or time out; a provider that never returns never holds the
/// menu. No test asserts a time: each asserts the outcome.
@Suite struct ActionDeferredTests {
    /// Keeps continuations alive and never resumes them: a provider that ignores cancellation.
    final class Blackhole: Sendable {
        private let kept = Mutex<[CheckedContinuation<Void, Never>]>([])
        func swallow(_ continuation: CheckedContinuation<Void, Never>) { kept.withLock { $0.append(continuation) } }
    }
    static let blackhole = Blackhole()

    static func neverReturns(id: String = "slow", timeout: Double = 0.3) -> MenuElement {
        .deferred(
            DeferredElement(id: id, title: "Slow", timeout: timeout) { _ in
                await withCheckedContinuation { blackhole.swallow($0) }
                return [ActionFixtures.action("never-shown")]
            })
    }

    func resolved(_ elements: [MenuElement]) throws -> MenuSession {
        let menu = try MenuSession.request(
            providers: [ActionProvider(name: "test", elements)], context: { ActionFixtures.context() })
        try menu.display()
        try menu.resolveDeferred()
        return menu
    }

    func state(_ menu: MenuSession, _ id: String) -> DeferredElement? {
        func find(_ elements: [MenuElement]) -> DeferredElement? {
            for element in elements {
                if case .deferred(let deferred) = element, deferred.id == id { return deferred }
                if case .submenu(let submenu) = element, let found = find(submenu.children) { return found }
            }
            return nil
        }
        return find(menu.elements)
    }

    @Test func aPendingElementShowsItsPlaceholder() {
        let element = DeferredElement(id: "backend", title: "From the backend", timeout: 1) { _ in [] }
        #expect(MenuElement.deferred(element).title == "From the backend: loading…")
    }

    @Test func aResolvedElementBringsItsActionsIntoTheMenu() throws {
        let deferred = MenuElement.deferred(
            DeferredElement(id: "fast", title: "Fast", timeout: 30) { context in
                [
                    .action(
                        DebugAction(id: "fast.who", title: "Who") { _ in Payload(text: context.session.user.identifier)
                        })
                ]
            })
        let menu = try resolved([ActionFixtures.action("a"), deferred])
        guard case .resolved = state(menu, "fast")?.state else {
            Issue.record("not resolved")
            return
        }
        var out: [Payload] = []
        try menu.perform("fast.who") { out.append($0) }
        #expect(out == [Payload(text: "usr_1")])
    }

    @Test func aThrowingResolverBecomesAFailedEntry() throws {
        let deferred = MenuElement.deferred(
            DeferredElement(id: "bad", title: "Bad", timeout: 30) { _ in
                throw TestFailure(description: "HTTP 500")
            })
        let menu = try resolved([deferred])
        guard case .failed(let reason) = state(menu, "bad")?.state else {
            Issue.record("not failed")
            return
        }
        #expect(reason == "HTTP 500")
        #expect(menu.elements[0].title == "Bad: failed (HTTP 500)")
    }

    @Test func aResolverThatNeverReturnsTimesOutAndTheOthersStillResolve() throws {
        let fast = MenuElement.deferred(
            DeferredElement(id: "fast", title: "Fast", timeout: 30) { _ in [ActionFixtures.action("fast.a")] })
        let menu = try resolved([Self.neverReturns(), fast])
        guard case .timedOut = state(menu, "slow")?.state else {
            Issue.record("the never-returning element did not time out")
            return
        }
        guard case .resolved = state(menu, "fast")?.state else {
            Issue.record("the fast element did not resolve")
            return
        }
        #expect(menu.elements[0].title.hasPrefix("Slow: timed out"))
        #expect(menu.elements.action(id: "never-shown") == nil)
    }

    @Test func aResolverThatSleepsPastItsTimeoutTimesOut() throws {
        let sleeper = MenuElement.deferred(
            DeferredElement(id: "sleepy", title: "Sleepy", timeout: 0.2) { _ in
                try await Task.sleep(for: .seconds(3600))
                return []
            })
        let menu = try resolved([sleeper])
        guard case .timedOut = state(menu, "sleepy")?.state else {
            Issue.record("did not time out")
            return
        }
    }

    @Test func deferredElementsInsideSubmenusResolve() throws {
        let inner = MenuElement.deferred(
            DeferredElement(id: "inner", title: "Inner", timeout: 30) { _ in [ActionFixtures.action("inner.a")] })
        let menu = try resolved([.submenu(Submenu(id: "group", title: "Group", children: [inner]))])
        #expect(menu.elements.action(id: "inner.a") != nil)
    }

    @Test func aResolverReturningAnotherDeferredElementIsShownAsFailed() throws {
        let nested = MenuElement.deferred(
            DeferredElement(id: "outer", title: "Outer", timeout: 30) { _ in [Self.neverReturns(id: "nested")] })
        let menu = try resolved([nested])
        guard case .failed = state(menu, "outer")?.state else {
            Issue.record("nested deferred not refused")
            return
        }
    }

    @Test func runningAnActionOnlyADeferredElementOffersResolvesItFirst() throws {
        let deferred = MenuElement.deferred(
            DeferredElement(id: "late", title: "Late", timeout: 30) { _ in
                [ActionFixtures.action("late.a", "from later")]
            })
        let menu = try MenuSession.request(
            providers: [ActionProvider(name: "test", [deferred])], context: { ActionFixtures.context() })
        try menu.display()
        var out: [Payload] = []
        try menu.perform("late.a") { out.append($0) }
        #expect(out == [Payload(text: "from later")])
    }

    @Test func runningAnActionOfATimedOutElementIsNoSuchAction() throws {
        let menu = try MenuSession.request(
            providers: [ActionProvider(name: "test", [Self.neverReturns()])], context: { ActionFixtures.context() })
        try menu.display()
        #expect(throws: MenuError.self) { try menu.perform("never-shown") { _ in } }
    }

    /// Opened once by a test, read by resolvers on other threads.
    final class Gate: Sendable {
        private let isOpen = Atomic<Bool>(false)
        func open() { isOpen.store(true, ordering: .releasing) }
        var opened: Bool { isOpen.load(ordering: .acquiring) }
    }

    /// A resolver that returns the action `ID.a` once `gate` is open (waiting at most 60 s).
    static func gated(_ id: String, _ gate: Gate) -> MenuElement {
        .deferred(
            DeferredElement(id: id, title: id, timeout: 60) { _ in
                for _ in 0..<3000 where !gate.opened { try await Task.sleep(for: .milliseconds(20)) }
                return [ActionFixtures.action(id + ".a")]
            })
    }

    /// Whether the deferred element `id` of `elements` (top level) is still pending.
    static func isPending(_ id: String, in elements: [MenuElement]) -> Bool {
        elements.contains { element in
            guard case .deferred(let deferred) = element, deferred.id == id, case .pending = deferred.state else {
                return false
            }
            return true
        }
    }

    @Test func eachElementTakesItsPlaceAsSoonAsItResolvesWhileAnotherStillLoads() throws {
        let gate = Gate()
        let fast = MenuElement.deferred(
            DeferredElement(id: "fast", title: "Fast", timeout: 60) { _ in [ActionFixtures.action("fast.a")] })
        let menu = try MenuSession.request(
            providers: [ActionProvider(name: "test", [fast, Self.gated("slow", gate)])],
            context: { ActionFixtures.context() })
        try menu.display()
        let seen = Mutex<[(fast: Bool, slowPending: Bool)]>([])
        try menu.resolveDeferred(onEach: { [menu] in
            let elements = menu.elements
            seen.withLock { $0.append((elements.action(id: "fast.a") != nil, Self.isPending("slow", in: elements))) }
            gate.open()
        })
        let calls = seen.withLock { $0 }
        #expect(calls.count == 2)
        #expect(calls.first.map { $0.fast && $0.slowPending } == true, "the fast one first, the slow one loading")
        #expect(calls.last.map { $0.fast && !$0.slowPending } == true)
        #expect(menu.elements.action(id: "slow.a") != nil)
    }

    @Test func aTimeoutIsReportedAtItsOwnDeadlineNotTheLongestOne() throws {
        let gate = Gate()
        let menu = try MenuSession.request(
            providers: [
                ActionProvider(name: "test", [Self.neverReturns(id: "stuck", timeout: 0.2), Self.gated("late", gate)])
            ],
            context: { ActionFixtures.context() })
        try menu.display()
        let timedOutFirst = Mutex<Bool?>(nil)
        try menu.resolveDeferred(onEach: { [menu] in
            let elements = menu.elements
            timedOutFirst.withLock { first in
                guard first == nil else { return }
                first = elements[0].title.hasPrefix("Slow: timed out") && Self.isPending("late", in: elements)
            }
            gate.open()
        })
        #expect(timedOutFirst.withLock { $0 } == true, "the 0.2 s element timed out while the other still loaded")
        #expect(menu.elements.action(id: "late.a") != nil)
    }
}

/// Sections resolved in the background and one at a time (issue 24 item 7): a host shows what
/// is ready, a choice waits only for its own section, and no section is asked twice.
@Suite struct ActionDeferredOneSectionTests {
    /// A gate a resolver waits at until the test opens it (bounded: 30 s).
    final class Gate: Sendable {
        private let open = Mutex(false)
        func release() { open.withLock { $0 = true } }
        func wait() async {
            for _ in 0..<3000 where !open.withLock({ $0 }) { try? await Task.sleep(nanoseconds: 10_000_000) }
        }
    }

    /// Counts how many times each section was asked.
    final class Calls: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        func add(_ id: String) { counts.withLock { $0[id, default: 0] += 1 } }
        func count(_ id: String) -> Int { counts.withLock { $0[id] ?? 0 } }
    }

    static func section(_ id: String, gate: Gate? = nil, calls: Calls) -> MenuElement {
        .deferred(
            DeferredElement(id: id, title: id, timeout: 60) { _ in
                calls.add(id)
                await gate?.wait()
                return [ActionFixtures.action(id + ".x", id)]
            })
    }

    func state(_ menu: MenuSession, _ id: String) -> DeferredElement.State? {
        for case .deferred(let deferred) in menu.elements where deferred.id == id { return deferred.state }
        return nil
    }

    @Test func performingAnActionOfOneSectionAsksOnlyThatSection() throws {
        let gate = Gate()
        let calls = Calls()
        defer { gate.release() }
        let menu = try MenuSession.request(
            providers: [
                ActionProvider(
                    name: "test",
                    [Self.section("fast", calls: calls), Self.section("slow", gate: gate, calls: calls)])
            ], context: { ActionFixtures.context() })
        try menu.display()
        var payload: String?
        try menu.perform("fast.x") { payload = String(decoding: $0.bytes, as: UTF8.self) }
        #expect(payload == "fast")
        #expect(calls.count("fast") == 1 && calls.count("slow") == 0)
        guard case .pending? = state(menu, "slow") else {
            Issue.record("the slow section was resolved")
            return
        }
    }

    @Test func aSectionResolvingInTheBackgroundIsWaitedForNotAskedAgain() throws {
        let gate = Gate()
        let calls = Calls()
        defer { gate.release() }
        let menu = try MenuSession.request(
            providers: [
                ActionProvider(
                    name: "test",
                    [
                        ActionFixtures.action("ready"), Self.section("fast", calls: calls),
                        Self.section("slow", gate: gate, calls: calls),
                    ])
            ], context: { ActionFixtures.context() })
        try menu.display()
        try menu.startResolving()
        menu.waitForDeferred(["fast"], until: .infinity)
        guard case .resolved? = state(menu, "fast"), case .pending? = state(menu, "slow") else {
            Issue.record(
                "fast: \(String(describing: state(menu, "fast"))), slow: \(String(describing: state(menu, "slow")))")
            return
        }
        gate.release()
        var payload: String?
        try menu.perform("slow.x") { payload = String(decoding: $0.bytes, as: UTF8.self) }
        #expect(payload == "slow")
        #expect(calls.count("fast") == 1 && calls.count("slow") == 1, "each section asked once")
    }
}
