import UserDebugKit

/// `userdebug copy` and `userdebug paste`: the clipboard owner and reader on their own, so
/// userdebug can stand in for xclip/xsel in scripts.
enum ClipboardCommands {
    static let all: [CommandSpec] = [copy, paste]

    static let selectionOption = OptionSpec.value(
        "selection", "NAME", completes: .words { SelectionName.allCases.map(\.rawValue) },
        "clipboard (default) or primary.")

    static func selection(_ invocation: Invocation) throws -> SelectionName {
        let text = invocation.arguments.value("selection") ?? "clipboard"
        guard let selection = SelectionName(rawValue: text) else {
            throw CommandError(.usage, "unknown --selection '\(text)'; expected clipboard or primary")
        }
        return selection
    }

    static let copy = CommandSpec(
        path: ["copy"],
        summary: "Put standard input on the clipboard (binary-safe), served in the background.",
        usage:
            "copy [--selection clipboard|primary] [--secret] [--json] [--lifetime SECONDS] [--hand-off] [--new-owner] [--backend auto|wayland|x11]",
        discussion: """
            Returns as soon as the selection is owned and confirmed; a background owner serves it
            until another client takes it. --secret marks it for clipboard managers and clears it
            after clipboard.secretClearSeconds. Example: jq .token login.json | userdebug copy --secret
            """,
        options: [
            selectionOption, OutputTarget.lifetimeOption, OutputTarget.handOffOption, OutputTarget.newOwnerOption,
            OutputTarget.backendOption,
            .flag("secret", "Mark as a secret (skipped by managers that honour the marks; cleared after a timeout)."),
            .flag("json", "Also offer the content as application/json."),
        ],
        maxPositionals: 0
    ) { invocation in
        // Read once into the block the owner serves: no second copy of a large input, and the
        // UTF-8 check made while reading, not in a second pass.
        let payload: Payload
        let json = invocation.arguments.has("json")
        let secret = invocation.arguments.has("secret")
        if DisabledMechanisms.isOff(.largeBuffer) {  // an array, as every other input is read
            let bytes = try InputReader.read("-", limit: 1 << 31).bytes
            let utf8 = bytes.withUnsafeBytes { isValidUTF8($0) }
            payload = Payload(bytes: bytes, kind: json ? .json : (utf8 ? .text : .binary), isSecret: secret)
        } else {
            let block = try InputReader.readBlock("-", limit: 1 << 31)
            let kind: Payload.Kind = json ? .json : (block.isValidUTF8 ? .text : .binary)
            payload = Payload(block: block, kind: kind, isSecret: secret)
        }
        try OutputRouter(invocation: invocation).copy(payload, to: try selection(invocation))
    }

    static let paste = CommandSpec(
        path: ["paste"],
        summary: "Print the clipboard's content (binary-safe, with a timeout).",
        usage:
            "paste [--selection clipboard|primary] [--target TARGET] [--timeout SECONDS] [--raw] [--backend auto|wayland|x11]",
        discussion: """
            The content is whatever another program offers: on a terminal, control characters
            (escape sequences, C1 controls, BiDi overrides) are shown as visible escapes; a pipe or
            a file gets the bytes exactly. Example: userdebug paste --target TARGETS
            """,
        options: [
            selectionOption,
            .value(
                "target", "TARGET",
                completes: .words { ["UTF8_STRING", "TARGETS", "STRING", "TEXT", "application/json"] },
                "The target to ask for (default UTF8_STRING)."),
            .value("timeout", "SECONDS", "Give up after this long (default 5)."),
            .flag("raw", "Write the bytes exactly even on a terminal, control characters included."),
            OutputTarget.backendOption,
        ],
        maxPositionals: 0
    ) { invocation in
        let timeoutText = invocation.arguments.value("timeout") ?? "5"
        guard let timeout = Double(timeoutText), timeout.isFinite, timeout > 0 else {
            throw CommandError(.usage, "--timeout needs a positive number of seconds, got '\(timeoutText)'")
        }
        let clipboard = try invocation.clipboard()
        let name = try selection(invocation)
        let target = invocation.arguments.value("target") ?? "UTF8_STRING"
        // Streamed where the backend can: a large selection is never held in memory.
        if invocation.stdoutKind != .terminal,
            try streamToStandardOutput({ () throws(ClipboardRouteError) in
                try clipboard.paste(selection: name, target: target, timeout: timeout, to: 1)
            })
        {
            return
        }
        let bytes = try clipboard.paste(selection: name, target: target, timeout: timeout)
        // Another program's bytes must not drive the terminal (OSC 52 writes the clipboard, CSI
        // rewrites the screen): shown escaped there, like every other command's output.
        if invocation.stdoutKind == .terminal && !invocation.arguments.has("raw") {
            try StandardOutputSink(isTerminal: true).write(Payload(bytes: bytes, kind: .text))
        } else {
            try writeAll(bytes, to: 1, name: "standard output")
        }
    }

    /// The backends write a streamed paste themselves and report a failed write as
    /// "writing the content out: REASON"; here that descriptor is standard output, so it is
    /// reported as every other command's failed output is (exit 74), not as a clipboard failure.
    private static func streamToStandardOutput(_ paste: () throws(ClipboardRouteError) -> Bool) throws -> Bool {
        let marker = "writing the content out: "
        do throws(ClipboardRouteError) {
            return try paste()
        } catch {
            guard case .backend(.failed(let message)) = error.problem, let range = message.firstRange(of: marker) else {
                throw error
            }
            throw CommandError(.ioError, "cannot write to standard output: \(message[range.upperBound...])")
        }
    }
}
