import Synchronization
import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's signals: the handlers note which arrived and wake the loop through a
/// `WakeSignal`, whose descriptor the loop polls beside the X connection and the config watch.
final class DaemonSignals: Sendable {
    /// The signals the daemon acts on.
    static let handled: [Int32] = [SIGHUP, SIGTERM, SIGINT, SIGCHLD]

    let wake = WakeSignal()
    private let pending = Atomic<UInt64>(0)

    /// Called from the signal handler: async-signal-safe (an atomic or, one write).
    func note(_ signal: Int32) {
        pending.bitwiseOr(1 << UInt64(signal & 63), ordering: .relaxed)
        wake.signal()
    }

    /// The signals noted since the last call, and forgets them.
    func take() -> Set<Int32> {
        wake.drain()
        let bits = pending.exchange(0, ordering: .relaxed)
        return Set(Self.handled.filter { bits & (1 << UInt64($0)) != 0 })
    }

    /// Installs the handlers (SA_RESTART, so interrupted reads of other code go on).
    func install() {
        for number in Self.handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { daemonSignals.note($0) }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }
}

/// The one instance the handlers reach (a handler cannot capture).
let daemonSignals = DaemonSignals()
