/// Resolves deferred elements concurrently, each against its own deadline, and never waits
/// longer than the largest timeout.
///
/// Each resolver runs in a detached task on a thread of its own (`ResolverThread`); the caller
/// waits for posted outcomes with a monotonic deadline rather than on the tasks. That is
/// the point: a task group would wait for a provider that never returns, and a timer task would
/// need a free cooperative thread, which the caller or a provider blocking in a system call
/// (a hung helper process) may be holding. A late result is dropped and its task cancelled.
enum DeferredResolver {
    /// `elements` with every pending deferred element, at any depth, resolved, failed or
    /// timed out. `progress` gets each element's outcome (by id) as soon as it is known, from
    /// a resolver's thread or the caller's: an answer when it arrives, a timeout at the
    /// element's own deadline. With `only`, the pending elements whose ids it names and no other.
    static func resolve(
        _ elements: [MenuElement], only: Set<String>? = nil, context: ActionContext,
        progress: (@Sendable (String, DeferredElement.State) -> Void)? = nil
    ) -> [MenuElement] {
        var pending: [DeferredElement] = []
        collect(elements, into: &pending)
        if let only { pending = pending.filter { only.contains($0.id) } }
        guard !pending.isEmpty else { return elements }
        let board = ResultBoard(ids: pending.map(\.id), progress: progress)
        let start = monotonicSeconds()
        var tasks: [Task<Void, Never>] = []
        for (index, element) in pending.enumerated() {
            let deadline = start + element.timeout
            let thread = ResolverThread()
            tasks.append(
                Task.detached(executorPreference: thread) {
                    defer { thread.finish() }
                    let outcome: DeferredElement.State
                    do {
                        outcome = .resolved(try await element.resolve(context))
                    } catch is CancellationError {
                        outcome = .timedOut
                    } catch {
                        outcome = .failed(String(describing: error))
                    }
                    board.post(index, outcome, arrivedBy: deadline)
                })
        }
        let states = board.wait(deadlines: pending.map { start + $0.timeout })
        // A task whose element timed out may still run: it is cancelled (one that answered late
        // has finished, and cancelling it changes nothing).
        for (task, state) in zip(tasks, states) {
            if case .timedOut? = state { task.cancel() }
        }
        var byID: [String: DeferredElement.State] = [:]
        for (element, state) in zip(pending, states) { byID[element.id] = state ?? .timedOut }
        return replace(elements, with: byID)
    }

    /// The pending deferred elements of `elements`, at any depth.
    static func pending(in elements: [MenuElement]) -> [DeferredElement] {
        var pending: [DeferredElement] = []
        collect(elements, into: &pending)
        return pending
    }

    private static func collect(_ elements: [MenuElement], into pending: inout [DeferredElement]) {
        for element in elements {
            switch element {
            case .deferred(let deferred):
                if case .pending = deferred.state { pending.append(deferred) }
            case .submenu(let submenu):
                collect(submenu.children, into: &pending)
            case .action:
                break
            }
        }
    }

    /// `elements` with each pending deferred element named in `states` in that state; other
    /// elements as they are.
    static func replace(_ elements: [MenuElement], with states: [String: DeferredElement.State])
        -> [MenuElement]
    {
        elements.map { element in
            switch element {
            case .deferred(let deferred):
                guard case .pending = deferred.state, let state = states[deferred.id] else { return element }
                // One level: elements a resolver returns are shown as they are; a deferred
                // element among them would never load, so it is shown as failed.
                if case .resolved(let children) = state, children.hasPendingDeferred {
                    return .deferred(deferred.with(.failed("it returned another deferred element")))
                }
                return .deferred(deferred.with(state))
            case .submenu(var submenu):
                submenu.children = replace(submenu.children, with: states)
                return .submenu(submenu)
            case .action:
                return element
            }
        }
    }
}

/// Where resolver tasks post their outcomes and the caller waits for them.
private final class ResultBoard: Sendable {
    private let states: ThreadLock<[DeferredElement.State?]>
    private let posted = WakeSignal()
    private let ids: [String]
    private let progress: (@Sendable (String, DeferredElement.State) -> Void)?

    init(ids: [String], progress: (@Sendable (String, DeferredElement.State) -> Void)?) {
        self.ids = ids
        self.progress = progress
        states = ThreadLock(Array(repeating: nil, count: ids.count))
    }

    /// Records an outcome; one that comes after its own deadline counts as timed out.
    func post(_ index: Int, _ state: DeferredElement.State, arrivedBy deadline: Double) {
        let late = monotonicSeconds() > deadline
        settle(index, late ? .timedOut : state)
        posted.signal()
    }

    /// Records the first outcome of element `index` and reports it; a second one is dropped.
    private func settle(_ index: Int, _ state: DeferredElement.State) {
        let first = states.withLock { states in
            guard states[index] == nil else { return false }
            states[index] = state
            return true
        }
        if first { progress?(ids[index], state) }
    }

    /// Waits until every element has its outcome or is past its own deadline (monotonic
    /// seconds), so one element that never answers keeps the wait only until its own timeout;
    /// each element past its deadline is settled as timed out then, not when the last one is.
    func wait(deadlines: [Double]) -> [DeferredElement.State?] {
        while true {
            let current = states.withLock { $0 }
            let now = monotonicSeconds()
            let open = deadlines.indices.filter { current[$0] == nil }
            for index in open where deadlines[index] <= now { settle(index, .timedOut) }
            guard let next = open.map({ deadlines[$0] }).filter({ $0 > now }).min() else {
                return states.withLock { $0 }
            }
            posted.wait(until: next)
        }
    }
}
