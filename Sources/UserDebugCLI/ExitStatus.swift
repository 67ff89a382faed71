import UserDebugKit

/// The process exit statuses (sysexits.h), the one contract scripts rely on.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The command did what it was asked; a notice on stderr (such as a fallback from the
    /// clipboard to stdout) does not change that.
    case ok = 0
    /// The command line was wrong (unknown command or option, missing value).
    case usage = 64
    /// The input data was wrong (malformed JSON, missing identifier, too large, not UTF-8), or a
    /// recorded value a config command's argument would hold starts with `-` or holds a control
    /// character.
    case dataError = 65
    /// Nothing to show: no such session or response, no store yet, a missing input file, a value
    /// an action needs (no token), or a menu without actions.
    case noInput = 66
    /// A required program or service is unavailable: no display answers when the clipboard was
    /// asked for (or a forced `--backend wayland` finds no compositor with data-control), a copy
    /// did not become the selection (or, made through XWayland, did not reach Wayland clients),
    /// a program cannot be started (curl, an action's command), an action's command fails, or
    /// `run` asks for an action of a deferred section that failed (the backend's error); the
    /// daemon has no DISPLAY, could grab not one of its hotkeys, or lost its X server.
    case unavailable = 69
    /// A bug: an invariant did not hold.
    case software = 70
    /// Reading or writing failed: stdout closed, disk full, the store is corrupt or not a database.
    case ioError = 74
    /// The store stayed locked by another writer past the busy timeout, or an action's command
    /// (or the deferred section `run` needed) ran past its timeout; trying again may work.
    case temporaryFailure = 75
    /// The store or a file cannot be written (read-only, permission denied), or is refused because
    /// someone else could change it: another owner, or writable by group or others (the store,
    /// its directories, the state directory, a --body-file).
    case noPermission = 77
    /// The config file is wrong, or someone else could change it; the message names the file and,
    /// where it can, the line, column and setting. A program it names that someone else could
    /// change, or a command argument that would carry a secret, is refused with this too.
    case config = 78
}

/// A command line that could not be understood.
struct UsageError: Error, Sendable {
    var message: String
    var command: [String]
}

/// An error raised by a command with its exit status and message.
struct CommandError: Error, Sendable {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// The one place that turns an error into a message and an exit status.
enum ErrorReport {
    static func classify(_ error: any Error) -> (ExitStatus, String) {
        switch error {
        case let error as CommandError:
            return (error.status, error.message)
        case let error as UsageError:
            let help =
                error.command.isEmpty ? "userdebug --help" : "userdebug \(error.command.joined(separator: " ")) --help"
            return (.usage, "\(error.message)\n(see '\(help)')")
        case StoreError.missing(let path):
            return (.noInput, FirstHourState.noStore(path: path, sample: FirstHourHints.sampleSession()).message)
        case let error as StoreError:
            return (status(for: error), error.description)
        case let error as ConfigError:
            // The file's content is at fault (a place or a setting): fix it or move it aside.
            guard error.line != nil || error.key != nil else { return (.config, error.description) }
            return FirstHourHints.configBroken(error)
        case let error as ClipboardError:
            return clipboard(error)
        case let error as ClipboardRouteError:
            return route(error)
        case let error as MenuError:
            return menu(error)
        case let error as ActionError:
            return (action(error), error.description)
        case let error as CurlCommandError:
            return (.dataError, error.description)
        default:
            return (.software, "unexpected error: \(error)")
        }
    }

    static func status(for error: StoreError) -> ExitStatus {
        switch error {
        case .missing, .noSuchSession, .noCurrentSession: return .noInput
        case .notADatabase, .corrupt, .isDirectory, .incompatible, .io, .sqlite: return .ioError
        case .busy: return .temporaryFailure
        case .readOnly, .permissionDenied, .untrusted: return .noPermission
        case .invalidResponse: return .dataError
        case .recordTooLarge: return .dataError
        }
    }

    static func menu(_ error: MenuError) -> (ExitStatus, String) {
        switch error {
        // A provider's own error keeps its status: a bad config file is still 78.
        case .providerFailed(_, let underlying): return classify(underlying)
        case .noSuchAction(let id, let available):
            let section = BackendProvider.sectionID + "."
            let hint =
                id.hasPrefix(section) && !available.contains(where: { $0.hasPrefix(section) })
                ? "\nthe config has no backend section, so there are no \(section)* actions: "
                    + "add \"backend\": {\"path\": \"/me\"} (docs/usage.md: Actions from config)" : ""
            return (.usage, "\(error)\(hint)\n(see 'userdebug menu')")
        case .sectionUnavailable(_, _, _, let timedOut):
            return (timedOut ? .temporaryFailure : .unavailable, error.description)
        case .empty: return (.noInput, error.description)
        case .duplicateIDs, .outOfOrder: return (.software, error.description)
        }
    }

    static func action(_ error: ActionError) -> ExitStatus {
        switch error {
        case .missing: return .noInput
        case .unsafeConfig: return .config
        case .commandNotStarted, .commandFailed, .commandKilled: return .unavailable
        case .commandTimedOut: return .temporaryFailure
        case .outputTooLarge, .unsafeArgument: return .dataError
        }
    }

    static func clipboard(_ error: ClipboardError) -> (ExitStatus, String) {
        switch error {
        case .noDisplay(let reason): return (.unavailable, "no X display answers: \(reason)")
        case .ownershipNotConfirmed(let reason):
            return (.unavailable, "could not take the X selection (another client took it at once): \(reason)")
        case .timedOut(let what): return (.unavailable, "the clipboard did not answer in time: \(what)")
        case .tooSlow(let what):
            return (
                .temporaryFailure,
                "the clipboard owner sends its content too slowly; gave up (clipboard.pasteDeadlineSeconds): \(what)"
            )
        case .noContent(let what): return (.noInput, "nothing to paste: \(what)")
        case .unsupported(let what): return (.dataError, "the clipboard cannot do this: \(what)")
        case .failed(let what): return (.ioError, "clipboard failure: \(what)")
        }
    }
}
