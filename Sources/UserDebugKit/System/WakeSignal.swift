#if canImport(Glibc)
    import Glibc
#endif

/// Wakes a thread blocked in `wait` from other threads: the waiting half of a monitor whose
/// state sits in a `Synchronization.Mutex`, which has no condition variable. A self-pipe: a wake
/// sent before the wait is kept in the pipe, not lost, and poll's timeout runs on the monotonic
/// clock, so a change of the wall clock neither stretches nor cuts a wait.
///
/// For one waiting thread at a time. Waits may end early (a wake left over from before, a
/// signal): the waiter checks its state under the mutex in a loop.
package final class WakeSignal: Sendable {
    /// The pipe's ends, both non-blocking; -1 when no pipe could be made (no descriptor left),
    /// in which case `wait` sleeps in short slices instead.
    private let readEnd: Int32
    private let writeEnd: Int32

    /// A signal with no wake pending.
    package init() {
        guard let ends = try? FileDescriptor.pipe() else {
            (readEnd, writeEnd) = (-1, -1)
            return
        }
        for end in [ends.read.rawValue, ends.write.rawValue] {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        (readEnd, writeEnd) = (ends.read.rawValue, ends.write.rawValue)
    }

    deinit {
        if readEnd >= 0 {
            close(readEnd)
            close(writeEnd)
        }
    }

    /// Wakes the waiter, or the next `wait` when nobody waits yet. Never blocks: a full pipe
    /// already holds a wake.
    package func signal() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        while write(writeEnd, &byte, 1) < 0 && errno == EINTR {}
    }

    /// The descriptor that turns readable when a wake is pending (-1 without a pipe), for a waiter
    /// that polls it beside other descriptors and then calls `drain`.
    package var descriptor: Int32 { readEnd }

    /// Takes every pending wake without waiting.
    package func drain() {
        guard readEnd >= 0 else { return }
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { buffer in
            while read(readEnd, buffer.baseAddress, buffer.count) > 0 {}
        }
    }

    /// Returns once woken (taking every pending wake) or once the monotonic clock
    /// (`monotonicSeconds`) has reached `deadline`, whichever comes first; at once when the
    /// deadline has passed.
    package func wait(until deadline: Double = .infinity) {
        let left = deadline - monotonicSeconds()
        guard left > 0 else { return }
        // Rounded up, so a wait does not end just before the deadline and spin.
        let milliseconds = left == .infinity ? -1 : Int32(min(left * 1000, 60_000).rounded(.up))
        guard readEnd >= 0 else {
            _ = poll(nil, 0, milliseconds < 0 ? 10 : min(milliseconds, 10))
            return
        }
        var readable = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        guard poll(&readable, 1, milliseconds) > 0 else { return }
        drain()
    }
}
