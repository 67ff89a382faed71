/// One menu, from request to end, emitting `MenuEvent`s in the documented order (see
/// `MenuEvent`). The host drives it: `request` → `display` → (`resolveDeferred`) → `perform`
/// or `cancel`. Steps taken out of order throw `MenuError.outOfOrder` instead of emitting events
/// out of order, and `willEnd` is emitted exactly once.
///
/// Nothing here starts a thread or a task except `resolveDeferred`, so a menu that only runs a
/// synchronous action (`copy-id` from a hotkey) stays single-threaded until its output is out.
public final class MenuSession: Sendable {
    private enum Stage { case built, displayed, ended }

    /// The elements, with deferred ones as resolved so far.
    public var elements: [MenuElement] { state.withLock { $0.tree } }
    /// What the actions work on.
    public let context: ActionContext

    private let state: ThreadLock<(tree: [MenuElement], stage: Stage)>
    private let observers: [MenuObserver]

    private init(elements: [MenuElement], context: ActionContext, observers: [MenuObserver]) {
        self.state = ThreadLock((elements, .built))
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
    public func resolveDeferred(onEach: (@Sendable () -> Void)?) throws {
        let pending: [MenuElement] = try state.withLock { (state) throws(MenuError) in
            guard state.stage == .displayed else { throw .outOfOrder("resolveDeferred while \(state.stage)") }
            return state.tree
        }
        let resolved = DeferredResolver.resolve(pending, context: context) { [self] id, outcome in
            self.state.withLock { $0.tree = DeferredResolver.replace($0.tree, with: [id: outcome]) }
            onEach?()
        }
        state.withLock { $0.tree = resolved }
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
            try resolveDeferred()
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
