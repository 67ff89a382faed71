#if canImport(Glibc)
    import Glibc
#endif

/// Resolves deferred elements concurrently, each against its own deadline, and never waits
/// longer than the largest timeout.
///
/// Each resolver runs in a detached task on a thread of its own (`ResolverThread`); the caller
/// waits on a condition variable with a monotonic deadline rather than on the tasks. That is
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
private final class ResultBoard: @unchecked Sendable {
    private var states: [DeferredElement.State?]
    // Allocated, not stored inline: pthread objects must not move, and Swift does not promise
    // a stable address for a stored property passed with `&`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(count: Int) {
        states = Array(repeating: nil, count: count)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Monotonic, so a clock change cannot stretch or cut the wait.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Records an outcome; one that comes after its own deadline counts as timed out.
    func post(_ index: Int, _ state: DeferredElement.State, arrivedBy deadline: Double) {
        let late = monotonicSeconds() > deadline
        pthread_mutex_lock(mutex)
        if states[index] == nil {
            states[index] = late ? .timedOut : state
        }
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until every element has its outcome or is past its own deadline (monotonic
    /// seconds), so one element that never answers keeps the wait only until its own timeout.
    func wait(deadlines: [Double]) -> [DeferredElement.State?] {
        pthread_mutex_lock(mutex)
        while true {
            let open = deadlines.indices.filter { states[$0] == nil }.map { deadlines[$0] }
            guard let limit = open.max(), monotonicSeconds() < limit else { break }
            var until = timespec()
            until.tv_sec = Int(limit.rounded(.down))
            until.tv_nsec = Int((limit - limit.rounded(.down)) * 1e9)
            _ = pthread_cond_timedwait(condition, mutex, &until)
        }
        let result = states
        pthread_mutex_unlock(mutex)
        return result
    }
}
