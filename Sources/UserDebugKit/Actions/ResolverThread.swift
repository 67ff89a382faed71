#if canImport(Glibc)
    import Glibc
#endif

/// A task executor with a thread of its own, for one deferred resolver.
///
/// Resolvers must not depend on the cooperative pool: a host that resolves a menu from a pool
/// thread (a test, an async app) blocks that thread while it waits, and on a 2-core machine the
/// pool has two threads — the resolvers would never get one, and every deferred element would
/// time out. A resolver that blocks its thread (a hung helper process) harms only itself. The
/// thread ends once the resolver's task has finished and no job is left.
final class ResolverThread: TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var finished = false
    }

    /// What the thread does next.
    private enum Next {
        case run(UnownedJob)
        case wait
        case end
    }

    private let queue = ThreadLock(Queue())
    private let wake = WakeSignal()

    /// Starts the thread.
    init() {
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { raw in
                let executor = Unmanaged<ResolverThread>.fromOpaque(raw!).takeRetainedValue()
                executor.loop()
                return nil
            }, box.toOpaque())
        if started == 0 {
            pthread_detach(thread)
        } else {
            box.release()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.jobs.append(unowned) }
        wake.signal()
    }

    /// No more work will come once the queue drains: the resolver's task has returned.
    func finish() {
        queue.withLock { $0.finished = true }
        wake.signal()
    }

    private func loop() {
        while true {
            let next = queue.withLock { queue -> Next in
                if !queue.jobs.isEmpty { return .run(queue.jobs.removeFirst()) }
                return queue.finished ? .end : .wait
            }
            switch next {
            case .run(let job): job.runSynchronously(on: asUnownedTaskExecutor())
            case .wait: wake.wait()
            case .end: return
            }
        }
    }
}
