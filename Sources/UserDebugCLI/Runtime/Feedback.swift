import DesktopNotify
package import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// What a performed action delivered, as feedback describes it.
package struct Delivery: Sendable {
    /// The action's id, e.g. `copy-id`.
    package var actionID: String
    /// The action's title in the menu, e.g. "Copy Identifier".
    package var title: String
    /// The payload as it went out (settled: a secret is marked, never shown).
    package var payload: Payload
    /// The selections it went to, e.g. `["CLIPBOARD"]`; empty when it went to stdout only.
    package var selections: [String]
    /// Seconds after which a secret is cleared from the selections, if it is.
    package var clearSecretAfter: Double?
    /// For output streamed rather than held (`payload` then empty): how many bytes went out.
    package var streamedBytes: Int?

    /// A delivery record.
    package init(
        actionID: String, title: String, payload: Payload, selections: [String], clearSecretAfter: Double?,
        streamedBytes: Int? = nil
    ) {
        self.actionID = actionID
        self.title = title
        self.payload = payload
        self.selections = selections
        self.clearSecretAfter = clearSecretAfter
        self.streamedBytes = streamedBytes
    }
}

/// How an action ended, for `Notifier.notify(outcome:)`.
package enum ActionOutcome: Sendable {
    /// It ran and its payload went out.
    case delivered(Delivery)
    /// It failed (any error the CLI can classify: no store, no display, a bad config …).
    case failed(any Error)
}

/// Tells the desktop what an action did: a notification through the freedesktop notification
/// service. Success names what was copied, never a secret; a failure is critical and says what
/// to do. With no session bus it costs one getenv and one stat and says nothing.
package struct Notifier: Sendable {
    /// Where the action was started.
    package enum Origin: Sendable {
        /// A key: the hotkey daemon, the popup, a launcher (`menu --dmenu`, `rofi`).
        case key
        /// The command line; under `auto` it counts as a key when neither stdout nor stderr is a
        /// terminal and stdout is not a pipe (a hotkey tool ran it).
        case commandLine
    }

    let mode: NotificationMode
    let origin: Origin
    let token: String?
    /// How long a failure's notification stays (config `notifications.failureTimeoutSeconds`);
    /// nil: until dismissed.
    var failureSeconds: Double? = Config.defaults.failureNotificationSeconds
    let variable: @Sendable (String) -> String?
    let report: @Sendable (String) -> Void

    /// A notifier for `mode` (config `notifications`) and `origin`. `token`: the session's token,
    /// replaced wherever a text would show it. `variable`: the environment (the bus address).
    /// `report`: a line for stderr when the notification cannot be shown.
    package init(
        mode: NotificationMode, origin: Origin, token: String?,
        variable: @escaping @Sendable (String) -> String?, report: @escaping @Sendable (String) -> Void
    ) {
        self.mode = mode
        self.origin = origin
        self.token = token
        self.variable = variable
        self.report = report
    }

    /// Whether `notify` sends anything.
    package var isActive: Bool {
        switch mode {
        case .never: return false
        case .always: return true
        case .auto:
            if origin == .key { return true }
            return isatty(1) == 0 && isatty(2) == 0 && StreamKind.of(1) != .pipe
        }
    }

    /// Shows `outcome` when the mode and origin ask for it; within 200 ms, and at once when no
    /// session bus exists. Never throws: a notification that cannot be shown is a stderr line.
    package func notify(outcome: ActionOutcome) {
        send { NotificationText.notification(for: outcome, token: token, failureSeconds: failureSeconds) }
    }

    /// Shows `notification`, made earlier (the hotkey daemon makes a prepared payload's
    /// notification with it), when the mode and origin ask for it, as `notify(outcome:)` does.
    func notify(made notification: DesktopNotification) {
        send { notification }
    }

    /// Shows a critical notification of `error`, a failure of the hotkey daemon itself rather than
    /// of an action: the summary is `headline: the problem`, the body the fix the error names, else
    /// `advice`. Sent as `notify(outcome:)` sends.
    package func notify(failure error: any Error, headline: String, advice: String) {
        send {
            NotificationText.failure(
                error, token: token, headline: headline, advice: advice, expireAfter: failureSeconds)
        }
    }

    /// Sends what `make` builds when the mode and origin ask for a notification.
    private func send(_ make: () -> DesktopNotification) {
        guard isActive else { return }
        // The bus first: without one, no text is built (the hotkey path pays a getenv and a stat).
        guard let address = NotificationService.busAddress(variable) else {
            if mode == .always { report("notification not shown: \(DBusFailure.noBus)") }
            return
        }
        do throws(DBusFailure) {
            try NotificationService.send(make(), address: address)
        } catch {
            report("notification not shown: \(error)")
        }
    }
}

/// The texts of a notification: what was copied (never a secret), or what failed and what to do.
enum NotificationText {
    static func notification(for outcome: ActionOutcome, token: String?, failureSeconds: Double?)
        -> DesktopNotification
    {
        switch outcome {
        case .delivered(let delivery):
            let verb = delivery.selections.isEmpty ? "Wrote" : "Copied"
            let summary = "\(verb) \(noun(delivery, token: token)) \(detail(delivery, token: token))"
            let place = delivery.selections.isEmpty ? "standard output" : delivery.selections.joined(separator: " and ")
            return DesktopNotification(
                summary: oneLine(summary.trimmingTrailingSpaces), body: markupEscaped("to \(place)"),
                urgency: .normal, icon: "edit-copy", expireTimeout: 4000)
        case .failed(let error):
            return failure(error, token: token, headline: nil, advice: nil, expireAfter: failureSeconds)
        }
    }

    /// A critical notification of `error`: its problem (after `headline: ` when there is one) and
    /// what to do, which is the error's own advice, else `advice`, else the advice for its status.
    /// It expires after `expireAfter` seconds (nil: when dismissed).
    static func failure(
        _ error: any Error, token: String?, headline: String?, advice: String?, expireAfter: Double?
    ) -> DesktopNotification {
        var (status, text) = ErrorReport.classify(error)
        // A config error's own hint (move the file aside) is the terminal's; whoever gives
        // `advice` (the daemon: it reads the file again when it changes) knows better.
        if let config = error as? ConfigError, advice != nil { text = config.description }
        let message = oneLine(SecretPayloads.redacted(text, token: token))
        let (problem, remedy) = split(message, status: status)
        return DesktopNotification(
            summary: headline.map { "\($0): \(problem)" } ?? capitalized(problem),
            body: markupEscaped(capitalized(remedy ?? advice ?? defaultAdvice(status))), urgency: .critical,
            icon: "dialog-error",
            expireTimeout: expireAfter.map { Int32(min($0 * 1000, Double(Int32.max)).rounded()) } ?? 0)
    }

    /// "user id", "the token", … for the built-in actions, the quoted title otherwise (a config
    /// title can quote the token, even under --reveal: the notification never shows it).
    private static func noun(_ delivery: Delivery, token: String?) -> String {
        let known = [
            "copy-id": "user id", "copy-name": "user name", "dump-json": "the user as JSON", "copy-token": "the token",
            "print-response": "the last response", "print-login-response": "the last login response",
        ]
        return known[delivery.actionID] ?? "“\(oneLine(SecretPayloads.redacted(delivery.title, token: token)))”"
    }

    /// The value itself when it is short, one line and no secret; else its size, or when a
    /// secret is cleared.
    private static func detail(_ delivery: Delivery, token: String?) -> String {
        let payload = delivery.payload
        if let streamed = delivery.streamedBytes { return "(\(streamed) bytes)" }
        if payload.isSecret {
            return delivery.clearSecretAfter.map { "(clears in \(formatNumber($0)) s)" } ?? "(a secret)"
        }
        guard payload.kind != .binary, let text = String(validating: payload.bytes, as: UTF8.self) else {
            return "(\(payload.bytes.count) bytes)"
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        if lines == 1, text.count <= 60 { return oneLine(SecretPayloads.redacted(text, token: token)) }
        return lines > 1 ? "(\(lines) lines)" : "(\(payload.bytes.count) bytes)"
    }

    /// The error's first line cut at its first "; " into the problem and what to do (nil when the
    /// error gives no advice).
    private static func split(_ message: String, status: ExitStatus) -> (String, String?) {
        let firstLine = message.split(separator: "\n").first.map(String.init) ?? message
        guard let cut = firstLine.firstRange(of: "; ") else { return (firstLine, nil) }
        return (String(firstLine[..<cut.lowerBound]), String(firstLine[cut.upperBound...]))
    }

    /// What to do about an error that does not say, by its exit status.
    private static func defaultAdvice(_ status: ExitStatus) -> String {
        switch status {
        case .noInput: return "Run the same command in a terminal: it says what is missing and how to record it"
        case .unavailable: return "Check that DISPLAY and PATH reach the program that started userdebug"
        case .config: return "Fix the config file; 'userdebug menu' in a terminal shows where"
        default: return "Run the same command in a terminal to see more"
        }
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    /// One line without the characters a terminal would not show as they are (C0, DEL, C1,
    /// line separators, BiDi controls: `TerminalSafety`), which a notification would show raw.
    static func oneLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in TerminalSafety.isUnsafe(scalar) ? " " : scalar }))
    }

    /// The body may be read as markup (`body-markup`): `&`, `<` and `>` escaped.
    private static func markupEscaped(_ text: String) -> String {
        var out = ""
        for character in oneLine(text) {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension Notifier {
    /// The notifier of a command: the config's `notifications` (auto when the config cannot be
    /// read: a broken config is a failure to report), our environment, stderr through
    /// `--quiet`-aware diagnostics.
    static func of(_ invocation: Invocation, origin: Origin, token: String?) -> Notifier {
        let config = try? invocation.config()
        let diagnostics = invocation.diagnostics
        var notifier = Notifier(
            mode: config?.notifications ?? .auto, origin: origin, token: token, variable: { invocation.variable($0) },
            report: { diagnostics.notice($0) })
        notifier.failureSeconds = config.map(\.failureNotificationSeconds) ?? Config.defaults.failureNotificationSeconds
        return notifier
    }
}
