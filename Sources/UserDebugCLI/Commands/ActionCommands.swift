import UserDebugKit

/// The debug actions: `copy-id`, `dump-json`, `print-response`, `copy-token` — shortcuts for
/// `run ID`, going through the same providers and menu lifecycle.
enum ActionCommands {
    static let all: [CommandSpec] = [copyID, dumpJSON, printResponse, copyToken]

    static let outputOptions: [OptionSpec] = [
        OutputTarget.option, OutputTarget.lifetimeOption, OutputTarget.handOffOption, OutputTarget.newOwnerOption,
        OutputTarget.backendOption,
    ]

    static let copyID = CommandSpec(
        path: ["copy-id"],
        summary: "Copy the current user's identifier (to the clipboard and the terminal, or stdout when piped).",
        usage: "copy-id [--session NAME] [--to TARGET]",
        discussion: """
            On a terminal it copies the identifier to the CLIPBOARD and prints it; piped or redirected
            to a file, it only prints it; with no display answering, it prints it with a notice on
            stderr. From a hotkey, write --to clipboard: the hotkey tool's stdout may be a file.
            Example: curl -s "$API/admin/users/$(userdebug copy-id)"
            """,
        options: outputOptions,
        maxPositionals: 0
    ) { invocation in
        try ActionRun.perform("copy-id", invocation: invocation)
    }

    static let dumpJSON = CommandSpec(
        path: ["dump-json"],
        summary: "Dump the current user as JSON (secret-looking fields redacted unless --reveal).",
        usage: "dump-json [--session NAME] [--to TARGET] [--reveal]",
        discussion: """
            The user object: identifier, name, then every other field in key order, values exactly as
            recorded. On a terminal it is shown and copied to the CLIPBOARD; piped, only printed.
            Example: userdebug dump-json | jq -r .email
            """,
        options: outputOptions,
        maxPositionals: 0
    ) { invocation in
        try ActionRun.perform("dump-json", invocation: invocation)
    }

    static let printResponse = CommandSpec(
        path: ["print-response"],
        summary: "Print a recorded backend response (the last by default).",
        usage:
            "print-response [last|ID] [--tag TAG] [--path SUBSTRING] [--status CODE|Nxx] [--body|--headers|--full|--json] [--to TARGET]",
        discussion: """
            Selects the newest response of the session matching the filters (or the one with ID) and
            prints its body (default), its status and headers, the whole exchange, or the record as
            JSON. Authorization, cookies and tokens are redacted unless --reveal. A compressed body
            (Content-Encoding gzip, deflate, br) is shown decoded. Without --reveal, a body that
            redaction cannot read (binary, or a coding it cannot undo: zstd, corrupt, over 256 MiB
            decoded) is shown as what it is: [body: 1,234 bytes, zstd-encoded, shown with --reveal].
            On a terminal it is shown and copied to the CLIPBOARD; piped, only printed.
            Example: userdebug print-response --tag login | jq .user
            """,
        options: ResponseSelection.filterOptions + outputOptions + [
            .flag("body", "The response body (default).").excluding("headers", "full", "json"),
            .flag("headers", "The status line and the response headers.").excluding("body", "full", "json"),
            .flag("full", "Request and response, headers and bodies.").excluding("body", "headers", "json"),
            .flag("json", "The whole record as JSON.").excluding("body", "headers", "full"),
        ],
        maxPositionals: 1,
        argument: .response
    ) { invocation in
        let parts = BuiltinPayloads.ResponsePart.allCases.filter { invocation.arguments.has($0.rawValue) }
        guard parts.count <= 1 else {
            throw CommandError(.usage, "give at most one of --body, --headers, --full, --json")
        }
        let selector: ResponseSelector
        switch invocation.arguments.positionals.first ?? "last" {
        case "last":
            selector = .newest(try ResponseSelection.query(invocation))
        case let text:
            guard let id = Int64(text), id > 0 else {
                throw CommandError(.usage, "expected 'last' or a response id, got '\(text)'")
            }
            selector = .id(id)
        }
        // A revealed body to standard output is streamed from the store, never held whole.
        if try RevealedBodyStream.stream(invocation, selector: selector, part: parts.first ?? .body) { return }
        // So is a redacted one, held once while it is redacted.
        if try RedactedBodyStream.stream(invocation, selector: selector, part: parts.first ?? .body) { return }
        try ActionRun.perform(
            "print-response", invocation: invocation,
            responses: ResponseLogProvider(selector: selector, part: parts.first ?? .body))
    }

    static let copyToken = CommandSpec(
        path: ["copy-token"],
        summary: "Copy the session's auth token (a secret: marked for clipboard managers, cleared after a timeout).",
        usage: "copy-token [--session NAME] [--to TARGET]",
        discussion: """
            The token is offered with x-kde-passwordManagerHint=secret (Klipper, CopyQ 8+) and
            application/x-copyq-hidden=1 (CopyQ 6.4), and the selection is cleared after
            clipboard.secretClearSeconds (default 30) if we still own it. GPaste, Diodon,
            Parcellite, ClipIt and xfce4-clipman honour neither and keep it (see docs/usage.md, copy-token). On a
            terminal it shows [redacted] (the token with --reveal). To hand it to curl without
            putting it in an argument (which every local user can read), pipe it in as a header:
            Example: userdebug copy-token --to stdout | sed 's/^/Authorization: Bearer /' | curl -H @- "$API/me"
            """,
        options: outputOptions,
        maxPositionals: 0
    ) { invocation in
        try ActionRun.perform("copy-token", invocation: invocation)
    }
}
