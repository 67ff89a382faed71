#if canImport(Glibc)
    import Glibc
#endif

/// A value guarded by a pthread mutex, for state that threads of our own share (a resolver's job
/// queue, a menu's tree while its deferred entries resolve).
///
/// `Synchronization.Mutex` would do, but on Linux it locks through raw futex calls, which
/// ThreadSanitizer does not see: two accesses it orders look unordered, and the TSan run of the
/// test command reported a race in a resolver's queue that the mutex did guard. TSan follows
/// `pthread_mutex_lock`, so with this lock its reports are real ones.
package final class ThreadLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
