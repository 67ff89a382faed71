import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's own failures on the desktop: a start that fails, a reload that fails, no key that
/// works. Started by an autostart entry its stderr is /dev/null, so each is also a critical
/// notification (as a key's failing action is); not when stderr is a terminal under `auto`:
/// whoever started it there reads stderr.
struct DaemonNotice {
    /// What the failure means for the keys, and what to do when the error does not say.
    enum Kind {
        /// The daemon exits: a config error, no display, the lock held, no key grabbed.
        case startFailed
        /// A changed config file is broken: the previous keys stay in force.
        case reloadFailed
        /// It runs (`--keep-waiting`, or after a reload), but not one key is grabbed.
        case noKeys

        var headline: String {
            switch self {
            case .startFailed: return "Hotkey daemon not started"
            case .reloadFailed: return "Hotkey daemon kept its previous keys"
            case .noKeys: return "Hotkey daemon has no keys"
            }
        }

        var advice: String {
            switch self {
            case .startFailed:
                return "Fix the config file, then start the daemon again: 'userdebug daemon --check' shows where"
            case .reloadFailed, .noKeys:
                return "Fix the config file: the daemon reads it again when it changes"
            }
        }
    }

    let invocation: Invocation

    /// Sends the notification of `error` (a config error, a `CommandError`, a clipboard error).
    func notify(_ error: any Error, _ kind: Kind) {
        let origin: Notifier.Origin = isatty(2) == 1 ? .commandLine : .key
        Notifier.of(invocation, origin: origin, token: nil)
            .notify(failure: error, headline: kind.headline, advice: kind.advice)
    }
}
