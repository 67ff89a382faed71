/// One menu, from request to end, emitting `MenuEvent`s in the documented order (see
/// `MenuEvent`). The host drives it: `request` → `display` → (`resolveDeferred`) → `perform`
/// or `cancel`. Steps taken out of order throw `MenuError.outOfOrder` instead of emitting events
/// out of order, and `willEnd` is emitted exactly once.
///
/// Nothing here starts a thread or a task except `resolveDeferred`, so a menu that only runs a
/// synchronous action (`copy-id` from a hotkey) stays single-threaded until its output is out.
public final class MenuSession: Sendable {
    private enum Stage { case built, displayed, ended }

    private struct State {
        var tree: [MenuElement]
        var stage: Stage
        /// The deferred sections (ids) a resolver is working on, so a second request for one
        /// waits for its answer instead of asking the backend again.
        var loading: Set<String> = []
    }

    /// The elements, with deferred ones as resolved so far.
    public var elements: [MenuElement] { state.withLock { $0.tree } }
    /// What the actions work on.
    public let context: ActionContext

    private let state: ThreadLock<State>
    /// Signalled each time a deferred section has its outcome.
    private let settled = WakeSignal()
    private let observers: [MenuObserver]

    private init(elements: [MenuElement], context: ActionContext, observers: [MenuObserver]) {
        self.state = ThreadLock(State(tree: elements, stage: .built))
        self.context = context
        self.observers = observers
    }

    /// Asks `providers` for their elements (`requested`). When the context cannot be made, a
    /// provider throws, ids clash or the menu is empty, the menu ends (`willEnd(.failed)`) and
    /// the error is thrown: the failed-before-display path.
    public static func request(
        providers: [any DebugActionProvider],
        context makeContext: () throws -> ActionContext,
        observers: [MenuObserver] = []
    ) throws -> MenuSession {
        observers.forEach { $0.receive(.requested) }
        do {
            let context = try makeContext()
            let elements = try ComposedProvider(providers).menuElements(in: context)
            guard !elements.isEmpty else { throw MenuError.empty }
            let duplicates = elements.duplicateIDs
            guard duplicates.isEmpty else { throw MenuError.duplicateIDs(duplicates) }
            return MenuSession(elements: elements, context: context, observers: observers)
        } catch {
            observers.forEach { $0.receive(.willEnd(.failed(String(describing: error)))) }
            throw error
        }
    }

    /// The menu is about to be shown (`willDisplay`), deferred elements with their placeholders.
    public func display() throws {
        let count: Int = try state.withLock { (state) throws(MenuError) in
            guard state.stage == .built else { throw .outOfOrder("display after \(state.stage)") }
            state.stage = .displayed
            return state.tree.count
        }
        emit(.willDisplay(elementCount: count))
    }

    /// Resolves every pending deferred element, each within its own timeout; returns when all
    /// have resolved, failed or timed out. Only a displayed menu resolves (UIKit loads deferred
    /// elements once the menu is up).
    public func resolveDeferred() throws {
        try resolveDeferred(onEach: nil)
    }

    /// Resolves every pending deferred element as `resolveDeferred()` does, and puts each in its
    /// place in `elements` as soon as its own outcome is known, then calls `onEach` (on another
    /// thread): a host that shows the menu while it resolves (the popup) reads `elements` there,
    /// so a fast section fills in while a slow one still shows its placeholder.
    ///
    /// With `only`, just the pending sections whose ids it names: `run backend.me.field.plan`
    /// asks `backend.me` and no other backend. A section another call is already resolving is
    /// not asked again: this call waits for that answer.
    public func resolveDeferred(only ids: Set<String>? = nil, onEach: (@Sendable () -> Void)?) throws {
        let (tree, started, waited) = try begin(ids)
        run(tree, started, onEach: onEach)
        waitForDeferred(waited, until: .infinity)
    }

    /// Starts resolving every pending deferred element on a thread of its own and returns at
    /// once: a launcher shows what is ready, then `waitForDeferred` for the section it needs.
    /// `onEach` as for `resolveDeferred(onEach:)`.
    public func startResolving(onEach: (@Sendable () -> Void)? = nil) throws {
        let (tree, started, _) = try begin(nil)
        guard !started.isEmpty else { return }
        let thread = ResolverThread()
        Task.detached(executorPreference: thread) { [self] in
            defer { thread.finish() }
            self.run(tree, started, onEach: onEach)
        }
    }

    /// Waits until each pending deferred section `ids` names (every one when nil) has its
    /// outcome, or until `deadline` (monotonic seconds, `monotonicSeconds`). Only sections being
    /// resolved (`startResolving`) are waited for: a wait never starts a request, and never
    /// outlasts the largest timeout of what it waits for (by a second) even when `deadline` is
    /// `.infinity`.
    public func waitForDeferred(_ ids: Set<String>? = nil, until deadline: Double) {
        let limit = min(
            deadline,
            monotonicSeconds() + 1
                + (DeferredResolver.pending(in: elements).filter { ids?.contains($0.id) ?? true }.map(\.timeout).max()
                    ?? 0))
        while true {
            let open = state.withLock { state in
                DeferredResolver.pending(in: state.tree).contains {
                    state.loading.contains($0.id) && (ids?.contains($0.id) ?? true)
                }
            }
            guard open, monotonicSeconds() < limit else { return }
            // A short slice: the signal has one reader, and another thread may wait as well.
            settled.wait(until: min(limit, monotonicSeconds() + 0.05))
        }
    }

    /// Marks the pending sections `ids` names (all when nil) that nobody resolves yet as
    /// loading; returns the tree, those sections, and every wanted one (to wait for).
    private func begin(_ ids: Set<String>?) throws -> ([MenuElement], Set<String>, Set<String>) {
        try state.withLock { (state) throws(MenuError) in
            guard state.stage == .displayed else { throw .outOfOrder("resolveDeferred while \(state.stage)") }
            let wanted = Set(DeferredResolver.pending(in: state.tree).map(\.id).filter { ids?.contains($0) ?? true })
            let started = wanted.subtracting(state.loading)
            state.loading.formUnion(started)
            return (state.tree, started, wanted)
        }
    }

    /// Resolves the sections `ids` of `tree`, putting each outcome in place as it comes.
    private func run(_ tree: [MenuElement], _ ids: Set<String>, onEach: (@Sendable () -> Void)?) {
        guard !ids.isEmpty else { return }
        let settle: @Sendable ([String: DeferredElement.State]) -> Void = { [self] outcomes in
            self.state.withLock { state in
                state.tree = DeferredResolver.replace(state.tree, with: outcomes)
                state.loading.subtract(outcomes.keys)
            }
            self.settled.signal()
        }
        _ = DeferredResolver.resolve(tree, only: ids, context: context) { id, outcome in
            settle([id: outcome])
            onEach?()
        }
        // Each outcome was reported as it came; none is left loading (a defensive sweep).
        let leftover = state.withLock { $0.loading.intersection(ids) }
        if !leftover.isEmpty { settle(Dictionary(uniqueKeysWithValues: leftover.map { ($0, .timedOut) })) }
    }

    /// Runs the action `id` and hands its payload to `deliver` (`willPerform`, then
    /// `willEnd(.performed)`). An id not in the menu is looked for again after resolving the
    /// deferred elements, so `run` reaches actions that only a backend answer creates. Any
    /// failure ends the menu with `willEnd(.failed)` and is thrown.
    public func perform(_ id: String, deliver: (Payload) throws -> Void) throws {
        try state.withLock { (state) throws(MenuError) in
            guard state.stage == .displayed else { throw .outOfOrder("perform while \(state.stage)") }
        }
        if elements.action(id: id) == nil, elements.hasPendingDeferred {
            // Only the section the id belongs to (`backend.me` for `backend.me.field.plan`);
            // an id of no pending section may come from any, so then all.
            let owner = DeferredResolver.pending(in: elements).map(\.id).filter { id.hasPrefix($0 + ".") }
                .max { $0.count < $1.count }
            try resolveDeferred(only: owner.map { [$0] }, onEach: nil)
        }
        guard let action = elements.action(id: id) else {
            let error =
                Self.unavailableSection(for: id, in: elements)
                ?? MenuError.noSuchAction(id: id, available: elements.allActions.map(\.id))
            end(.failed(error.description))
            throw error
        }
        emit(.willPerform(actionID: id))
        do {
            try deliver(try action.perform(in: context))
        } catch {
            end(.failed(String(describing: error)))
            throw error
        }
        end(.performed(actionID: id))
    }

    /// The error of the failed or timed-out deferred section whose actions `id` names
    /// (`backend.body` and the `backend` section), nil when there is none.
    private static func unavailableSection(for id: String, in elements: [MenuElement]) -> MenuError? {
        // The section with the longest id that prefixes `id`: `backend.orders.body` is of
        // `backend.orders`, not of `backend`.
        let found = deferredSections(elements).filter { id.hasPrefix($0.id + ".") }.max { $0.id.count < $1.id.count }
        guard let section = found else { return nil }
        switch section.state {
        case .failed(let reason):
            return .sectionUnavailable(id: id, section: section.title, reason: reason, timedOut: false)
        case .timedOut:
            let reason = "timed out after \(formatSeconds(section.timeout)) s"
            return .sectionUnavailable(id: id, section: section.title, reason: reason, timedOut: true)
        case .pending, .resolved: return nil
        }
    }

    /// Every deferred element of `elements`, at any depth.
    private static func deferredSections(_ elements: [MenuElement]) -> [DeferredElement] {
        elements.flatMap { element -> [DeferredElement] in
            if case .deferred(let section) = element { return [section] + deferredSections(element.children) }
            return deferredSections(element.children)
        }
    }

    /// Dismisses the menu without running anything (`willEnd(.cancelled)`); nothing when it
    /// has already ended.
    public func cancel() {
        end(.cancelled)
    }

    /// Ends the menu because showing it failed after display (its output could not be
    /// written): `willEnd(.failed)`; nothing when it has already ended.
    public func abandon(because error: any Error) {
        end(.failed(String(describing: error)))
    }

    private func end(_ outcome: MenuOutcome) {
        let first: Bool = state.withLock { state in
            defer { state.stage = .ended }
            return state.stage != .ended
        }
        if first { emit(.willEnd(outcome)) }
    }

    private func emit(_ event: MenuEvent) {
        for observer in observers { observer.receive(event) }
    }
}
