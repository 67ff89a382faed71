import UserDebugKit
import X11Clipboard

/// The options of the commands that deliver a result (`--to`) or copy one.
extension OutputTarget {
    static let option = OptionSpec.value(
        "to", "TARGET", completes: .words { allCases.map(\.rawValue) },
        "Where the result goes: auto, stdout, clipboard, primary or clipboard+stdout (alias both; default auto)."
    ).checked { text throws(CommandError) in _ = try parse(option: text) }
    static let lifetimeOption = OptionSpec.value(
        "lifetime", "SECONDS", "Stop serving the selection after this many seconds."
    ).checked { text throws(CommandError) in _ = try lifetime(text) }
    static let handOffOption = OptionSpec.flag(
        "hand-off",
        "Hand the content to a running clipboard manager at once and stop serving (keep serving without one).")
    static let newOwnerOption = OptionSpec.flag(
        "new-owner", "Start a new owner process even if one of ours already serves the selection.")
    /// `--backend`, accepted by every command that uses the clipboard (`BackendChoice`).
    static let backendOption = OptionSpec.value(
        "backend", "BACKEND", completes: .words { ClipboardBackendPreference.allCases.map(\.rawValue) },
        "The clipboard backend: auto, wayland or x11 (default auto: see 'userdebug doctor')."
    ).checked { text throws(CommandError) in _ = try BackendChoice.parse(text) }

    /// `--to TEXT` as a target.
    /// - Throws: exit 64 naming the value and the accepted ones.
    static func parse(option text: String) throws(CommandError) -> OutputTarget {
        guard let target = OutputTarget(rawValue: text) else {
            throw CommandError(
                .usage, "unknown --to '\(text)'; expected one of: \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return target
    }

    /// `--lifetime TEXT` in seconds.
    /// - Throws: exit 64 unless it is a positive finite number.
    static func lifetime(_ text: String) throws(CommandError) -> Double {
        guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
            throw CommandError(.usage, "--lifetime needs a positive number of seconds, got '\(text)'")
        }
        return seconds
    }
}

/// Sends payloads to the target chosen by `--to`, the config and the kind of stdout.
struct OutputRouter {
    let invocation: Invocation
    /// For launchers (whose stdout is the launcher's or nobody's): the selections
    /// `output.selection` names, whatever `--to`, the config's default and stdout say.
    var selectionsOnly = false

    /// Sends `payload` out; returns the selections it went to ("CLIPBOARD", "PRIMARY"), empty
    /// when it went to stdout only. Under `auto` with stdout a terminal, the payload is copied
    /// and shown there too (`showOnTerminal`).
    @discardableResult
    func deliver(_ payload: Payload) throws -> [String] {
        let target = selectionsOnly ? .auto : try chosenTarget()
        _ = try BackendChoice.option(invocation.arguments)
        let stdout = StandardOutputSink(isTerminal: invocation.stdoutKind == .terminal)
        switch target {
        case .stdout:
            try stdout.write(payload)
            return []
        case .clipboard, .primary:
            return [try copy(payload, to: target == .primary ? .primary : .clipboard)]
        case .clipboardAndStdout:
            let names = try invocation.config().output.selection.names.map { try copy(payload, to: $0) }
            try stdout.write(payload)
            return names
        case .auto:
            if selectionsOnly {
                let names = try invocation.config().output.selection.names.map { try copy(payload, to: $0) }
                try showOnTerminal(payload)
                return names
            }
            let sharedLog = invocation.stdoutKind == .regularFile && stdoutIsSharedLogFile()
            if invocation.stdoutKind == .pipe || (invocation.stdoutKind == .regularFile && !sharedLog) {
                try stdout.write(payload)
                return []
            }
            do {
                let names = try invocation.config().output.selection.names.map { try copy(payload, to: $0) }
                try showOnTerminal(payload)
                if sharedLog {
                    // The notice lands in that very file: it says where the result went and why.
                    invocation.diagnostics.notice(
                        "standard output and standard error are the same file, taken for a session log "
                            + "(~/.xsession-errors): --to auto copied instead of writing there; --to stdout writes to it"
                    )
                }
                return names
            } catch let error as ClipboardRouteError where error.meansNoClipboard {
                invocation.diagnostics.notice(error.fallbackNotice)
                try stdout.write(payload)
                return []
            }
        }
    }

    /// On a terminal, the payload just copied is shown too (escaped), so that `print-response`
    /// prints and `copy-id` shows what it copied; a secret only with `--reveal`, else the
    /// placeholder. Anywhere else (a hotkey's log, /dev/null) nothing is written.
    private func showOnTerminal(_ payload: Payload) throws {
        guard invocation.stdoutKind == .terminal else { return }
        let shown =
            payload.isSecret && !invocation.arguments.has("reveal") ? Payload(text: Redacted.placeholder) : payload
        try StandardOutputSink(isTerminal: true).write(shown)
    }

    /// Whether `deliver` would write to standard output only (`--to stdout`, or `auto` with
    /// standard output a pipe or a file that is no session log): output that may be streamed.
    func writesToStandardOutputOnly() throws -> Bool {
        guard !selectionsOnly else { return false }
        switch try chosenTarget() {
        case .stdout: return true
        case .auto:
            return invocation.stdoutKind == .pipe
                || (invocation.stdoutKind == .regularFile && !stdoutIsSharedLogFile())
        default: return false
        }
    }

    private func chosenTarget() throws -> OutputTarget {
        if let text = invocation.arguments.value("to") { return try OutputTarget.parse(option: text) }
        return try invocation.config().output.defaultTarget
    }

    /// The X11 owner policy of this copy: the backend's defaults, then the config file's
    /// `clipboard.handOffAtOnce` and `clipboard.reuseOwner`, then `--hand-off` and `--new-owner`.
    func ownerPolicy() throws -> OwnerPolicy {
        var policy = OwnerPolicy(callerExitsSoon: invocation.exitsSoon)
        let chosen = try invocation.config().clipboardOwner
        if let handOffAtOnce = chosen.handOffAtOnce { policy.handOffAtOnce = handOffAtOnce }
        if let reuseOwner = chosen.reuseOwner { policy.reuseOwner = reuseOwner }
        if invocation.arguments.has("hand-off") { policy.handOffAtOnce = true }
        policy.newOwner = invocation.arguments.has("new-owner")
        return policy
    }

    /// Owns `selection` with `payload` using the config's clipboard settings and `--lifetime`;
    /// returns the selection's X name.
    @discardableResult
    func copy(_ payload: Payload, to selection: SelectionName) throws -> String {
        var options = try invocation.config().clipboard
        if let lifetime = invocation.arguments.value("lifetime") {
            options.lifetime = try OutputTarget.lifetime(lifetime)
        }
        // Where the owner reports a keeper that put a cleared token back (a resident owner keeps
        // the path it started with, so every copy names it); a secret's copy makes the directory.
        let report = ClearReport.path(stateDirectory: invocation.paths.stateDirectory)
        options.clearReport = report
        if payload.isSecret, options.clearSecretAfter != nil,
            (try? ExportFiles.makeDirectory(invocation.paths.stateDirectory, private: 1)) == nil
        {
            options.clearReport = nil
        }
        let policy = try ownerPolicy()
        let (preference, _) = try BackendChoice.preference(invocation)
        if !invocation.waylandEndpoint.handToResidentOwner(
            payload, to: selection, options: options, preference: preference, policy: policy)
        {
            try invocation.copy(payload, to: selection, options: options, policy: policy)
        }
        let name = selection == .primary ? "PRIMARY" : "CLIPBOARD"
        if payload.isSecret {
            var clear = options.clearSecretAfter.map { "; cleared in \(formatNumber($0)) s" } ?? ""
            let keepers = options.clearSecretAfter == nil ? [] : RestoringKeepers.running()
            if !keepers.isEmpty {
                let who = keepers.joined(separator: " and ")
                let verb = keepers.count > 1 ? "put" : "puts"
                clear += ", but \(who) \(verb) it back after the clear: the token stays on the clipboard"
                clear += " (pause \(keepers.count > 1 ? "them" : "it"), or use --to stdout)"
            }
            if invocation.copiedThroughWestonBridge {
                clear += "; weston's XWayland bridge drops the secret hint (x-kde-passwordManagerHint),"
                clear += " so a Wayland clipboard history may keep the token"
            }
            // A keeper the owner saw put the last token back, unless it was just named.
            if options.clearSecretAfter != nil, let last = ClearReport.read(report),
                !RestoringKeepers.named(last, among: keepers)
            {
                clear += "; \(last.sentence): pause it, or use --to stdout"
            }
            invocation.diagnostics.notice("copied a secret (\(payload.byteCount) bytes) to \(name)\(clear)")
        } else {
            invocation.diagnostics.notice("copied \(payload.byteCount) bytes to \(name)")
        }
        return name
    }
}
