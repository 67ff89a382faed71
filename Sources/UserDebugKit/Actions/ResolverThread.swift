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
final class ResolverThread: TaskExecutor, @unchecked Sendable {
    private var jobs: [UnownedJob] = []
    private var finished = false
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// Starts the thread.
    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
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

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(unowned)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// No more work will come once the queue drains: the resolver's task has returned.
    func finish() {
        pthread_mutex_lock(mutex)
        finished = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    private func loop() {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty && !finished { pthread_cond_wait(condition, mutex) }
            if jobs.isEmpty {
                pthread_mutex_unlock(mutex)
                return
            }
            let job = jobs.removeFirst()
            pthread_mutex_unlock(mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
