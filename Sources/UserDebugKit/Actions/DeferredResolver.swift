import Synchronization

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
    /// timed out.
    static func resolve(_ elements: [MenuElement], context: ActionContext) -> [MenuElement] {
        var pending: [DeferredElement] = []
        collect(elements, into: &pending)
        guard !pending.isEmpty else { return elements }
        let board = ResultBoard(count: pending.count)
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
        for (task, state) in zip(tasks, states) where state == nil { task.cancel() }
        var byID: [String: DeferredElement.State] = [:]
        for (element, state) in zip(pending, states) { byID[element.id] = state ?? .timedOut }
        return replace(elements, with: byID)
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

    private static func replace(_ elements: [MenuElement], with states: [String: DeferredElement.State])
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
    private let states: Mutex<[DeferredElement.State?]>
    private let posted = WakeSignal()

    init(count: Int) {
        states = Mutex(Array(repeating: nil, count: count))
    }

    /// Records an outcome; one that comes after its own deadline counts as timed out.
    func post(_ index: Int, _ state: DeferredElement.State, arrivedBy deadline: Double) {
        let late = monotonicSeconds() > deadline
        states.withLock { states in
            if states[index] == nil { states[index] = late ? .timedOut : state }
        }
        posted.signal()
    }

    /// Waits until every element has its outcome or is past its own deadline (monotonic
    /// seconds), so one element that never answers keeps the wait only until its own timeout.
    func wait(deadlines: [Double]) -> [DeferredElement.State?] {
        while true {
            let (current, limit) = states.withLock { states in
                (states, deadlines.indices.filter { states[$0] == nil }.map { deadlines[$0] }.max())
            }
            guard let limit, monotonicSeconds() < limit else { return current }
            posted.wait(until: limit)
        }
    }
}
