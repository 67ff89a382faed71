import UserDebugKit

/// Where an action's payload goes (`--to`).
enum OutputTarget: String, CaseIterable, Sendable {
    /// Stdout when it is a pipe or a file; else the clipboard when a display answers; else stdout.
    case auto
    case stdout
    case clipboard
    case primary
    case both

    static let option = OptionSpec.value(
        "to", "TARGET", "Where the result goes: auto, stdout, clipboard, primary or both (default auto).")
    static let lifetimeOption = OptionSpec.value(
        "lifetime", "SECONDS", "Stop serving the selection after this many seconds.")
    static let handOffOption = OptionSpec.flag(
        "hand-off",
        "Hand the content to a running clipboard manager at once and stop serving (keep serving without one).")
    static let newOwnerOption = OptionSpec.flag(
        "new-owner", "Start a new owner process even if one of ours already serves the selection.")
}

/// Sends payloads to the target chosen by `--to`, the config and the kind of stdout.
struct OutputRouter {
    let invocation: Invocation

    func deliver(_ payload: Payload) throws {
        let target = try chosenTarget()
        let stdout = StandardOutputSink(isTerminal: invocation.stdoutKind == .terminal)
        switch target {
        case .stdout:
            try stdout.write(payload)
        case .clipboard, .primary:
            try copy(payload, to: target == .primary ? .primary : .clipboard)
        case .both:
            for selection in try configuredSelections() { try copy(payload, to: selection) }
            try stdout.write(payload)
        case .auto:
            if invocation.stdoutKind == .pipe || (invocation.stdoutKind == .regularFile && !stdoutIsSharedLogFile()) {
                try stdout.write(payload)
                return
            }
            do {
                for selection in try configuredSelections() { try copy(payload, to: selection) }
            } catch ClipboardError.noDisplay(let reason) {
                invocation.diagnostics.notice("no clipboard (\(reason)); writing to standard output")
                try stdout.write(payload)
            }
        }
    }

    private func chosenTarget() throws -> OutputTarget {
        if let text = invocation.arguments.value("to") {
            guard let target = OutputTarget(rawValue: text) else {
                throw CommandError(
                    .usage,
                    "unknown --to '\(text)'; expected one of: \(OutputTarget.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return target
        }
        return OutputTarget(rawValue: try invocation.config().output.defaultTarget.rawValue) ?? .auto
    }

    /// The selections `auto` and `both` write: `output.selection` in the config.
    private func configuredSelections() throws -> [SelectionName] {
        switch try invocation.config().output.selection {
        case .clipboard: return [.clipboard]
        case .primary: return [.primary]
        case .both: return [.clipboard, .primary]
        }
    }

    /// Owns `selection` with `payload` using the config's clipboard settings and `--lifetime`.
    func copy(_ payload: Payload, to selection: SelectionName) throws {
        let config = try invocation.config()
        var options = CopyOptions(
            selection: selection,
            clearSecretAfter: config.clipboard.secretClearSeconds,
            lifetime: config.clipboard.lifetimeSeconds,
            connectTimeout: config.clipboard.connectTimeoutSeconds,
            transferTimeout: config.clipboard.transferTimeoutSeconds,
            handOffAtOnce: config.clipboard.handOffAtOnce || invocation.arguments.has("hand-off"),
            reuseOwner: config.clipboard.reuseOwner,
            newOwner: invocation.arguments.has("new-owner"))
        if let lifetime = invocation.arguments.value("lifetime") {
            guard let seconds = Double(lifetime), seconds.isFinite, seconds > 0 else {
                throw CommandError(.usage, "--lifetime needs a positive number of seconds, got '\(lifetime)'")
            }
            options.lifetime = seconds
        }
        let clipboard = invocation.clipboardFactory(invocation.variable("DISPLAY"))
        try clipboard.copy(payload, options: options)
        let name = selection == .primary ? "PRIMARY" : "CLIPBOARD"
        if payload.isSecret {
            let clear = options.clearSecretAfter.map { "; cleared in \(formatNumber($0)) s" } ?? ""
            invocation.diagnostics.notice("copied a secret (\(payload.bytes.count) bytes) to \(name)\(clear)")
        } else {
            invocation.diagnostics.notice("copied \(payload.bytes.count) bytes to \(name)")
        }
    }
}
