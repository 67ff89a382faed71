import UserDebugKit

/// `userdebug session …`: record, inspect and switch the named sessions.
enum SessionCommands {
    static let all: [CommandSpec] = [importCommand, setCommand, listCommand, showCommand, useCommand, removeCommand]

    /// `--keep-current`, for the commands that record a session.
    static let keepCurrentOption = OptionSpec.flag(
        "keep-current", "Do not make the recorded session the current one.")

    static let importCommand = CommandSpec(
        path: ["session", "import"],
        summary: "Record a session from a JSON document (a file, or - for stdin).",
        usage: "session import [FILE|-|--from-clipboard] [--session NAME] [--keep-current]",
        discussion: """
            The document is {"name": "staging", "user": {"identifier": "usr_1", "name": "Zoë", …},
            "token": "…", "baseURL": "https://…", "environment": "staging"}; a bare user object is a
            session of its own. Every other user field is kept exactly as given. The imported session
            becomes the current one (the one copy-id and the hotkeys use) unless --keep-current is
            given; the last line on stderr names the current session. --from-clipboard reads the
            document from the CLIPBOARD (copy a login response's JSON in the browser, press a key).
            --session NAME names the session (over the document's name); without either, the
            environment, else IDENTIFIER@HOST (IDENTIFIER@HOST:PORT off the scheme's port) from the
            baseURL, as a login rule names a login, else "default". --name is the old spelling of
            --session here (a notice says so); in 'session set' --name names the user.
            Example: curl -s https://api.example/me | userdebug session import - --session staging
            """,
        options: [
            .value("name", "NAME", "Deprecated: the old spelling of --session for this command."),
            keepCurrentOption,
            .flag("from-clipboard", "Read the document from the CLIPBOARD instead of a file."),
            OutputTarget.backendOption,
        ],
        maxPositionals: 1,
        argument: .file
    ) { invocation in
        let named = try importName(invocation)
        let (value, source) = try readDocument(invocation)
        let environment = value["environment"]?.stringValue
        var session: Session
        do {
            session = try SessionDocument.decode(value, defaultName: named ?? environment ?? "default")
        } catch let error as DocumentError {
            throw CommandError(.dataError, "\(source): \(error.description)")
        }
        if let named {
            session.name = try validSessionName(named)
        } else if value["name"] == nil, environment == nil, let url = session.baseURL, HTTPURL.problem(url) == nil {
            // A login handed over without a name is named as a login rule names it.
            let name = LoginRule.defaultSessionName(identifier: session.user.identifier, url: url)
            if (try? validSessionName(name)) != nil { session.name = name }
        }
        if let url = session.baseURL, let problem = HTTPURL.problem(url) {
            throw CommandError(.dataError, "\(source): the baseURL: \(problem); nothing was recorded")
        }
        let store = try invocation.storeForWriting()
        let makeCurrent = !invocation.arguments.has("keep-current")
        try store.saveSession(session, makeCurrent: makeCurrent)
        let labels = invocation.noticeLabels(session)
        if let placeholder = SessionDocument.tokenPlaceholder(in: value) {
            invocation.diagnostics.notice(
                "recorded session '\(labels.name)' (user \(labels.user), no usable token: the document "
                    + "held the placeholder '\(placeholder)', as a redacted export does)")
            invocation.diagnostics.notice(
                "copy-token refuses until it has one: " + BuiltinPayloads.recordTokenHint(for: labels.name))
        } else {
            invocation.diagnostics.notice("recorded session '\(labels.name)' (user \(labels.user))")
        }
        try invocation.reportCurrentSession()
    }

    /// The name `session import` gives: `--session`, else the deprecated `--name` (with a
    /// notice); nil when neither is given.
    /// - Throws: exit 64 when both are given with different names.
    static func importName(_ invocation: Invocation) throws -> String? {
        let session = invocation.arguments.value("session")
        guard let old = invocation.arguments.value("name") else { return session }
        if let session, session != old {
            throw UsageError(
                message: "--session and --name both name the session ('\(session)', '\(old)'): give --session only",
                command: ["session", "import"])
        }
        invocation.diagnostics.notice(
            "session import --name is deprecated: use --session instead "
                + "(--name will name the user, as in 'session set')")
        return old
    }

    static let setCommand = CommandSpec(
        path: ["session", "set"],
        summary: "Create or update a session from flags.",
        usage:
            "session set [--session NAME] [--id ID] [--name NAME] [--token TOKEN|--token-stdin [--allow-empty-token]] [--base-url URL] [--environment ENV] [--keep-current]",
        discussion: """
            Updates the named session (--session, else the current one, else "default"); fields not
            given keep their values. A new session needs --id. The session becomes the current one
            (the one copy-id and the hotkeys use) unless --keep-current is given; the last line on
            stderr names the current session. --token-stdin reads the token from standard input so
            it never shows in the process list; an empty standard input is refused (exit 65) unless
            --allow-empty-token, which leaves the session without a token.
            Example: userdebug session set --session local --id usr_42 --name "Ada" --base-url http://127.0.0.1:8080
            """,
        options: [
            .value("id", "ID", "The user's identifier."),
            .value("name", "NAME", "The user's display name."),
            .value(
                "token", "TOKEN",
                "The auth token (visible to other local users in the process list; prefer --token-stdin)."
            ).excluding("token-stdin"),
            .flag("token-stdin", "Read the auth token from standard input.").excluding("token"),
            .flag(
                "allow-empty-token",
                "With --token-stdin: an empty standard input leaves the session without a token (else exit 65)."),
            .value("base-url", "URL", completes: .url, "The backend's base URL."),
            .value("environment", "ENV", "The environment label."),
            keepCurrentOption,
        ],
        maxPositionals: 0
    ) { invocation in
        let arguments = invocation.arguments
        let store = try invocation.storeForWriting()
        let name = try validSessionName(arguments.value("session") ?? store.currentSessionName() ?? "default")
        var session: Session
        if let existing = try store.session(named: name) {
            session = existing
        } else {
            guard let id = arguments.value("id") else {
                throw CommandError(.usage, "session '\(name)' does not exist yet; give --id to create it")
            }
            session = Session(name: name, user: User(identifier: id))
        }
        if let id = arguments.value("id") {
            guard !id.isEmpty else { throw CommandError(.usage, "--id must not be empty") }
            session.user.identifier = id
        }
        if let userName = arguments.value("name") { session.user.name = userName }
        if arguments.has("token-stdin") {
            if arguments.value("token") != nil { throw CommandError(.usage, "give --token or --token-stdin, not both") }
            let (bytes, _) = try InputReader.read("-", limit: 1 << 20)
            guard var token = String(validating: bytes, as: UTF8.self) else {
                throw CommandError(.dataError, "the token on standard input is not UTF-8")
            }
            // "\r\n" is one Character: compared with "\n" or "\r" alone it would stay.
            while token.last == "\n" || token.last == "\r" || token.last == "\r\n" { token.removeLast() }
            // An empty stdin is usually a mistake upstream (an unset variable, a failed `jq -r`):
            // storing "" would silently drop the token the session had.
            if token.isEmpty && !arguments.has("allow-empty-token") {
                throw CommandError(
                    .dataError,
                    "--token-stdin: standard input held no token; nothing was saved "
                        + "(--allow-empty-token to leave session '\(name)' without one)")
            }
            session.token = token.isEmpty ? nil : token
        } else if let token = arguments.value("token") {
            session.token = token
        }
        if let url = arguments.value("base-url") {
            if let problem = HTTPURL.problem(url) { throw CommandError(.dataError, "--base-url: \(problem)") }
            session.baseURL = url
        }
        if let environment = arguments.value("environment") { session.environment = environment }
        // A store without a current session gets this one even with --keep-current: there is
        // nothing to keep.
        let makeCurrent = try !arguments.has("keep-current") || store.currentSessionName() == nil
        try store.saveSession(session, makeCurrent: makeCurrent)
        let labels = invocation.noticeLabels(session)
        invocation.diagnostics.notice("saved session '\(labels.name)' (user \(labels.user))")
        try invocation.reportCurrentSession()
    }

    static let listCommand = CommandSpec(
        path: ["session", "list"],
        summary: "List the sessions (JSON lines when piped, a table on a terminal).",
        usage: "session list [--json]",
        discussion: """
            One record per line: {"name", "current", "environment", "baseURL", "user": {…}}. Tokens are
            never listed; a name, user or environment that holds a secret (a session's token, a JWT)
            is [redacted] unless --reveal. No store yet lists nothing (exit 0, a notice on stderr).
            Example: userdebug session list | jq -r 'select(.current) | .name'
            """,
        options: [.flag("json", "JSON lines even on a terminal.")],
        maxPositionals: 0
    ) { invocation in
        let store: SessionStore
        do {
            store = try invocation.storeForReading()
        } catch StoreError.missing(let path) {
            // No store yet is no session yet: an empty list, as `ls` of an empty directory.
            invocation.diagnostics.notice(
                "no sessions yet (no store at \(path)); record one: userdebug session import FILE")
            return
        }
        let current = try store.currentSessionName()
        let sessions = try store.sessions()
        // Every session's token: a session may be named after another's (a login rule names it
        // after the user's identifier, which may be a token).
        let redactor = try invocation.labelRedactor(store)
        func shown(_ session: Session) -> Session {
            guard let redactor else { return session }
            var shown = redactor.redact(session)
            shown.name = redactor.redactLabel(session.name)
            shown.user.identifier = redactor.redactLabel(session.user.identifier)
            shown.user.name = session.user.name.map(redactor.redactLabel)
            shown.environment = session.environment.map(redactor.redactLabel)
            return shown
        }
        if invocation.stdoutKind == .terminal && !invocation.arguments.has("json") {
            var rows = [["", "NAME", "USER", "USER NAME", "ENVIRONMENT", "BASE URL"]]
            for session in sessions {
                let shown = shown(session)
                rows.append([
                    session.name == current ? "*" : "", shown.name, shown.user.identifier, shown.user.name ?? "",
                    shown.environment ?? "", shown.baseURL ?? "",
                ])
            }
            try writeTable(rows)
            return
        }
        var lines: [UInt8] = []
        for session in sessions {
            let shown = shown(session)
            var document = SessionDocument.encode(shown, reveal: false, isCurrent: session.name == current)
            if case .object(var object) = document {
                object["token"] = nil
                document = .object(object)
            }
            lines += JSONWriter().bytes(document)
            lines.append(UInt8(ascii: "\n"))
        }
        try writeAll(lines, to: 1, name: "standard output")
    }

    static let showCommand = CommandSpec(
        path: ["session", "show"],
        summary: "Show one session as JSON (the current one by default); the token is redacted unless --reveal.",
        usage: "session show [NAME|--session NAME] [--reveal]",
        discussion: "Example: userdebug session show staging | jq .user.identifier",
        options: [],
        maxPositionals: 1,
        argument: .dynamic(.sessions)
    ) { invocation in
        let store = try invocation.storeForReading()
        let session: Session
        if let name = invocation.arguments.positionals.first ?? invocation.arguments.value("session") {
            guard let found = try store.session(named: name) else { throw StoreError.noSuchSession(name) }
            session = found
        } else {
            guard let found = try store.currentSession() else { throw StoreError.noCurrentSession }
            session = found
        }
        let reveal = invocation.arguments.has("reveal")
        let shown = try invocation.redactor(for: session)?.redact(session) ?? session
        let document = SessionDocument.encode(
            shown, reveal: reveal, isCurrent: try store.currentSessionName() == session.name)
        let text = JSONWriter(keyOrder: .given, indent: 2).string(document)
        try StandardOutputSink(isTerminal: invocation.stdoutKind == .terminal).write(Payload(text: text, kind: .json))
    }

    static let useCommand = sessionNameCommand(
        words: ["session", "use"], summary: "Make a session the current one.",
        example: "userdebug session use production"
    ) { invocation, name in
        try invocation.storeForWriting().useSession(name)
        try invocation.reportCurrentSession()
    }

    static let removeCommand = sessionNameCommand(
        words: ["session", "remove"], summary: "Remove a session and its recorded responses.",
        example: "userdebug session remove old-staging"
    ) { invocation, name in
        try invocation.storeForWriting().removeSession(name)
        invocation.diagnostics.notice("removed session '\(name)'")
        try invocation.reportCurrentSession()
    }

    /// A `session VERB NAME` command whose one positional, the session's name, is required.
    private static func sessionNameCommand(
        words: [String], summary: String, example: String,
        perform: @escaping @Sendable (Invocation, String) throws -> Void
    ) -> CommandSpec {
        CommandSpec(
            path: words,
            summary: summary,
            usage: words.joined(separator: " ") + " NAME|--session NAME",
            discussion: "The session is NAME, or --session NAME as everywhere else. Example: \(example)",
            options: [],
            maxPositionals: 1,
            argument: .dynamic(.sessions)
        ) { invocation in
            let positional = invocation.arguments.positionals.first
            let option = invocation.arguments.value("session")
            if let positional, let option, positional != option {
                throw UsageError(
                    message: "NAME and --session name two sessions ('\(positional)', '\(option)'): give one",
                    command: words)
            }
            guard let name = positional ?? option else {
                throw UsageError(message: "missing the session NAME", command: words)
            }
            try perform(invocation, name)
        }
    }

    /// The document from FILE, stdin, or the clipboard (`--from-clipboard`).
    static func readDocument(_ invocation: Invocation) throws -> (JSONValue, String) {
        guard invocation.arguments.has("from-clipboard") else {
            return try InputReader.readJSON(invocation.arguments.positionals.first)
        }
        if let path = invocation.arguments.positionals.first {
            throw CommandError(.usage, "give a FILE or --from-clipboard, not both (got '\(path)')")
        }
        let clipboard = try invocation.clipboard()
        let bytes = try clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 5)
        guard bytes.count <= InputReader.defaultLimit else {
            throw CommandError(
                .dataError, "the clipboard holds \(bytes.count) bytes, more than the 64 MiB limit for a document")
        }
        do {
            return (try JSONParser().parse(bytes), "the clipboard")
        } catch {
            throw CommandError(.dataError, "the clipboard: \(error.line):\(error.column): \(error.reason)")
        }
    }

    /// Session names appear in lists and on command lines: keep them printable and unambiguous.
    static func validSessionName(_ name: String) throws(CommandError) -> String {
        if name.isEmpty || name.count > 128 || name.hasPrefix("-")
            || name.unicodeScalars.contains(where: { TerminalSafety.isUnsafe($0) })
        {
            throw CommandError(
                .usage,
                "invalid session name '\(TerminalText.escape(name))': 1–128 printable characters, not starting with '-'"
            )
        }
        return name
    }
}

/// Writes rows as left-aligned columns (for terminals).
func writeTable(_ rows: [[String]]) throws {
    guard let width = rows.first?.count else { return }
    var widths = [Int](repeating: 0, count: width)
    for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
    var text = ""
    for row in rows {
        var line = ""
        for (index, cell) in row.enumerated() {
            line += TerminalText.escape(cell)
            if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - cell.count + 2) }
        }
        while line.last == " " { line.removeLast() }
        text += line + "\n"
    }
    try writeAll(Array(text.utf8), to: 1, name: "standard output")
}
