/// The deferred "From the backend" section: when the menu is shown it asks the session's backend
/// (`GET {baseURL}{backend.path}` with the session's token) and resolves into actions on what
/// came back — the answer's body, and one action per top-level field of a JSON object.
///
/// The request is made by a curl process started only at that moment, so no networking code is
/// linked into `userdebug` and `copy-id` never pays for it. The token goes to curl on its stdin
/// (`-K -`), never in its arguments, which any local user can read. curl is asked to decode a
/// compressed answer itself (`--compressed`), so the body is the content, which redaction reads.
public struct BackendProvider: DebugActionProvider {
    /// The deferred "From the backend" menu section: what it asks and how long it may take (the
    /// config file's `backend` section).
    public struct Settings: Sendable, Equatable {
        /// The path appended to the session's base URL for the GET (e.g. `/me`); nil leaves the
        /// section out, so no menu calls the network unless asked to.
        public var path: String?
        /// Seconds the request may take before the section shows "timed out".
        public var timeoutSeconds: Double
        /// The curl program that makes the request (a name looked up in PATH, or a path).
        public var curl: String
        /// The section's id, the prefix of its actions' ids: `backend`, or `backend.NAME` for a
        /// section of `backend.sections`.
        public var id: String
        /// The section's title in the menu.
        public var title: String

        /// The settings; without a path the section is left out.
        public init(
            path: String? = nil, timeoutSeconds: Double = 5, curl: String = "curl", id: String = sectionID,
            title: String = "From the backend"
        ) {
            self.path = path
            self.timeoutSeconds = timeoutSeconds
            self.curl = curl
            self.id = id
            self.title = title
        }
    }

    /// The section's id; actions it resolves into are `backend.body` and `backend.field.NAME`.
    public static let sectionID = "backend"
    /// At most this many field actions, so a large answer does not flood the menu.
    static let maxFieldActions = 20

    /// What to ask and how long to wait.
    public var settings: Settings

    /// `backend`.
    public var name: String { "backend" }

    /// A provider with `settings`; it offers nothing when `settings.path` is nil.
    public init(settings: Settings) {
        self.settings = settings
    }

    /// The deferred section, or nothing when no path is configured.
    /// - Throws: `ActionError.unsafeConfig` for a `backend.curl` that someone else could change
    ///   (see `TrustedProgram`), before the menu is shown.
    public func menuElements(in context: ActionContext) throws -> [MenuElement] {
        guard let path = settings.path else { return [] }
        let settings = self.settings
        let program = try TrustedProgram.resolve(settings.curl, key: "backend.curl")
        return [
            .deferred(
                DeferredElement(id: settings.id, title: settings.title, timeout: settings.timeoutSeconds) {
                    context in
                    let (status, body) = try Self.fetch(
                        path: path, settings: settings, session: context.session, environment: context.environment,
                        program: program)
                    try Task.checkCancellation()
                    guard (200...299).contains(status) else { throw ActionError.missing("HTTP \(status)") }
                    return try Self.actions(for: body, context: context, section: settings.id)
                })
        ]
    }

    /// Runs curl (`program`, the checked path of `settings.curl`); returns the status and the body.
    ///
    /// The token must reach the session's backend and nothing else: the base URL must be an
    /// absolute http(s) URL (one that reached the store before that was checked is refused here);
    /// `-q` keeps a `~/.curlrc` from adding options (`location-trusted` would resend the token to
    /// wherever a redirect points), and no redirect is followed at all; `--globoff` makes `{}` and
    /// `[]` in the base URL plain characters rather than a pattern of several URLs.
    static func fetch(
        path: String, settings: Settings, session: Session, environment: [String: String], program: String? = nil
    ) throws -> (Int, [UInt8]) {
        guard var base = session.baseURL, !base.isEmpty else {
            throw ActionError.missing("session '\(session.name)' has no baseURL")
        }
        if let problem = HTTPURL.problem(base) {
            throw ActionError.missing("session '\(session.name)' has an unusable baseURL: \(problem)")
        }
        while base.hasSuffix("/") { base.removeLast() }
        var config = "url = \(try quoted(base + path))\nheader = \"Accept: application/json\"\n"
        if let token = session.usableToken {
            config += "header = \(try quoted("Authorization: Bearer " + token))\n"
        }
        // -q only works as the very first argument.
        let argv = [
            program ?? settings.curl, "-q", "-sS", "--globoff", "--compressed", "--proto", "=http,https",
            "--max-time", formatSeconds(settings.timeoutSeconds), "-K", "-", "-w", "\n%{http_code}",
        ]
        let result: ProcessRunner.Result
        do {
            result = try ProcessRunner(timeout: settings.timeoutSeconds + 1).run(
                argv, environment: environment, stdin: Array(config.utf8))
        } catch {
            switch error {
            case .notStarted(let reason): throw ActionError.commandNotStarted(command: settings.curl, reason: reason)
            case .timedOut: throw ActionError.commandTimedOut(command: settings.curl, seconds: settings.timeoutSeconds)
            case .outputTooLarge:
                throw ActionError.outputTooLarge(command: settings.curl, limit: ProcessRunner(timeout: 0).outputLimit)
            }
        }
        if let failure = ActionError.failure(of: settings.curl, result, token: session.token, redactor: nil) {
            // curl's 6 and 7: the host does not resolve, or nothing listens: the backend is down.
            if case .commandFailed(let command, let status, let stderr) = failure, status == 6 || status == 7 {
                let state = FirstHourState.backendDown(session: session.name, url: base + path, reason: stderr)
                throw ActionError.commandFailed(command: command, status: status, stderr: state.message)
            }
            throw failure
        }
        // `-w "\n%{http_code}"` appends a newline and three digits after the body.
        let out = result.stdout
        guard out.count >= 4, out[out.count - 4] == 0x0A,
            let status = Int(String(decoding: out.suffix(3), as: UTF8.self))
        else {
            throw ActionError.missing("curl's answer did not end with a status code")
        }
        return (status, Array(out.dropLast(4)))
    }

    /// `SECTION.body`, then, for a JSON object, one `SECTION.field.NAME` per scalar member among
    /// the first `maxFieldActions` (`SECTION`: `backend`, or the id of a `backend.sections` entry).
    static func actions(for body: [UInt8], context: ActionContext, section: String = sectionID) throws
        -> [MenuElement]
    {
        let json = try? JSONParser().parse(body)
        var elements: [MenuElement] = [
            .action(
                DebugAction(id: section + ".body", title: "Print the Answer", subtitle: "\(body.count) bytes") {
                    context in
                    // curl decoded the answer (--compressed); what it could not read is not shown.
                    let headers = json == nil ? [] : [HTTPHeader(name: "Content-Type", value: "application/json")]
                    let shown = try context.redactor()?.redactBody(body, headers: headers).body ?? body
                    return Payload(bytes: shown, kind: json == nil ? .text : .json)
                })
        ]
        guard let object = json?.objectValue else { return elements }
        let policy = try context.secretsRedactor().policy
        var used: Set<String> = []
        let tokenCheck = SecretPayloads.EncodedTokenCheck(token: context.session.token)
        for member in object.members.prefix(maxFieldActions) {
            let key = member.key.lowercased()
            // Keys that are not id-shaped, or collide once lowercased, get no action: `run` needs
            // one unambiguous id per action. Nor does a key that is a secret (the token, a JWT):
            // ids are shown as they are (menu, rofi's rows, --trace).
            guard let value = member.value.scalarText, ConfigAction.isWellFormed(key),
                !tokenCheck.looksSecret(Array(member.key.utf8)),
                used.insert(key).inserted
            else {
                continue
            }
            // Named like a secret, or holding the token or a JWT under any name: the answer is
            // data, so its secrets come out only with --reveal, and never as a subtitle.
            let secret =
                policy.isSensitiveField(member.key)
                || tokenCheck.looksSecret(Array(value.utf8))
            elements.append(
                .action(
                    DebugAction(
                        id: "\(section).field.\(key)", title: "Copy \(member.key)",
                        subtitle: secret ? nil : value, needsReveal: secret
                    ) { _ in Payload(text: value) }))
        }
        return elements
    }

    /// A curl config string: quoted, with `\` and `"` escaped; control characters refused (a
    /// newline would start a new curl option).
    static func quoted(_ text: String) throws -> String {
        guard !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw ActionError.missing("the backend URL or token contains a control character")
        }
        return "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
}
