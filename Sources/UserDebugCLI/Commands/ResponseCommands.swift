import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// `userdebug response …`: record captured backend responses and list them.
enum ResponseCommands {
    static let all: [CommandSpec] = [recordCommand, listCommand]

    static let recordCommand = CommandSpec(
        path: ["response", "record"],
        summary: "Record a backend response (a JSON document, an array of them, or a HAR entry).",
        usage: "response record [FILE|-] [--session NAME] [--tag TAG]… [--stream]",
        discussion: """
            The document is {"request": {"method", "url", "headers", "body"}, "response": {"status",
            "headers", "body"}, "tags", "startedAt", "durationMs"}; bodies are UTF-8 text or
            {"base64": "…"}. An array records every element in one transaction, or none.
            A login the config's "login" rules match records the session from its body and
            makes it current (one line on stderr); the responses are recorded under it.
            Prints the new ids, one per line. With --stream, standard input holds one document
            per line (JSON lines), each recorded as it comes; a line refused is named on stderr
            and the next one read (exit 65 at the end if any was refused): `userdebug proxy`'s
            addon records through it.
            Example: userdebug response record login.json --tag login
            """,
        options: [
            .value("tag", "TAG", repeatable: true, completes: .dynamic(.tags), "Add a tag to every recorded response."),
            .flag("stream", "Read one document per line from standard input and record each as it comes."),
        ],
        maxPositionals: 1,
        argument: .file
    ) { invocation in
        if invocation.arguments.has("stream") { return try stream(invocation) }
        let (value, source) = try InputReader.readJSON(invocation.arguments.positionals.first)
        let responses = try decode(value, source: source, invocation: invocation)
        let ids = try record(responses, rules: LoginRecording.rules(invocation), invocation: invocation)
        try writeAll(Array(ids.map { "\($0)\n" }.joined().utf8), to: 1, name: "standard output")
    }

    /// The responses of one document (or an array of them), checked, with `--tag`s added.
    static func decode(_ value: JSONValue, source: String, invocation: Invocation) throws -> [BackendResponse] {
        let documents: [(JSONValue, String)]
        if case .array(let elements) = value {
            guard !elements.isEmpty else {
                throw CommandError(.dataError, "\(source): the array is empty; nothing to record")
            }
            documents = elements.enumerated().map { ($0.element, "[\($0.offset)]") }
        } else {
            documents = [(value, "")]
        }
        var responses: [BackendResponse] = []
        for (document, prefix) in documents {
            do {
                var response = try ResponseDocument.decode(document)
                // The URL ends up in curl commands and templates: never anything but http(s).
                if let problem = HTTPURL.problem(response.request.url) {
                    throw DocumentError(path: "$.request.url", message: problem)
                }
                for tag in invocation.arguments.all("tag") where !response.tags.contains(tag) {
                    response.tags.append(tag)
                }
                responses.append(response)
            } catch let error as DocumentError {
                throw CommandError(
                    .dataError, "\(source)\(prefix.isEmpty ? "" : " element \(prefix)"): \(error.description)")
            }
        }
        return responses
    }

    /// Records `responses` under the login among them (by `rules`), else `--session` or the
    /// current session, and returns their ids.
    static func record(_ responses: [BackendResponse], rules: [LoginRule], invocation: Invocation) throws -> [Int64] {
        let login = try LoginRecording.apply(responses, rules: rules, invocation: invocation)
        let target = login?.session.name ?? invocation.arguments.value("session")
        let ids = try invocation.storeForWriting().record(responses, session: target)
        if let login { LoginRecording.report(login, responseID: ids[login.index], invocation: invocation) }
        return ids
    }

    /// `--stream`: one document per line of standard input, each recorded (and its ids printed)
    /// as it comes, with the store opened and the config read once. A refused line is named on
    /// stderr and skipped; a line longer than the 64 MiB a document may have is skipped unread.
    static func stream(_ invocation: Invocation) throws {
        if let path = invocation.arguments.positionals.first, path != "-" {
            throw CommandError(.usage, "--stream reads standard input; got '\(path)'")
        }
        let rules = try LoginRecording.rules(invocation)
        var lines = LineReader(fd: 0, limit: InputReader.defaultLimit)
        var number = 0
        var refused = 0
        while let line = try lines.next() {
            number += 1
            var source = "standard input line \(number)"
            do {
                guard let bytes = line else {
                    throw CommandError(.dataError, "\(source): over \(InputReader.defaultLimit) bytes; not read")
                }
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                let value: JSONValue
                do {
                    value = try JSONParser().parse(bytes)
                } catch {
                    throw CommandError(.dataError, "\(source): column \(error.column): \(error.reason)")
                }
                source += exchange(value).map { " (\($0))" } ?? ""
                let ids = try record(
                    decode(value, source: source, invocation: invocation), rules: rules, invocation: invocation)
                try writeAll(Array(ids.map { "\($0)\n" }.joined().utf8), to: 1, name: "standard output")
            } catch let error as CommandError where error.status == .ioError {
                throw error
            } catch {
                refused += 1
                invocation.diagnostics.error("not recorded: \(ErrorReport.classify(error).1)")
            }
        }
        if refused > 0 {
            throw CommandError(.dataError, "\(refused) of \(number) lines not recorded")
        }
    }

    /// `GET https://host/path` of a document's request, without the query (it may hold secrets),
    /// to name a refused line; nil when the document has no such strings or the URL is not http(s).
    static func exchange(_ value: JSONValue) -> String? {
        guard let method = value["request"]?["method"]?.stringValue, let url = value["request"]?["url"]?.stringValue,
            HTTPURL.problem(url) == nil, method.utf8.count <= 32,
            method.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0 == "-" })
        else { return nil }
        return method + " " + String(url.prefix { $0 != "?" && $0 != "#" }.prefix(200))
    }
    static let listCommand = CommandSpec(
        path: ["response", "list"],
        summary: "List recorded responses, newest first (JSON lines when piped, a table on a terminal).",
        usage: "response list [--limit N] [--tag TAG] [--path SUBSTRING] [--status CODE|Nxx] [--all-sessions] [--json]",
        discussion: """
            One record per line: {"id", "session", "startedAt", "durationMs", "method", "url", "status",
            "tags"}; URLs are redacted unless --reveal, and so is a tag or session name that holds
            a secret (a session's token, a JWT, access_token=…), replaced by [redacted] as a whole.
            Example: userdebug response list --status 5xx | jq -r .url
            """,
        options: ResponseSelection.filterOptions + [
            .value("limit", "N", "At most N responses (default 50; 0 for all)."),
            .flag("all-sessions", "Responses of every session, not only the current one."),
            .flag("json", "JSON lines even on a terminal."),
        ],
        maxPositionals: 0
    ) { invocation in
        var query = try ResponseSelection.query(invocation)
        query.includeBodies = false
        let limitText = invocation.arguments.value("limit") ?? "50"
        guard let limit = Int(limitText), limit >= 0 else {
            throw CommandError(.usage, "--limit needs a whole number ≥ 0, got '\(limitText)'")
        }
        query.limit = limit == 0 ? nil : limit
        let store = try invocation.storeForReading()
        let responses = try store.responses(query)
        // Every session's token, not only the current one's: with --all-sessions a URL or a
        // tag may hold another session's, and a tag may be any session's token pasted in.
        let redactor = try invocation.labelRedactor(store)
        func label(_ text: String) -> String { redactor?.redactLabel(text) ?? text }
        if invocation.stdoutKind == .terminal && !invocation.arguments.has("json") {
            var rows = [["ID", "STATUS", "METHOD", "URL", "MS", "TAGS"]]
            for response in responses {
                let url = redactor?.redactURL(response.request.url) ?? response.request.url
                rows.append([
                    "\(response.id ?? 0)", "\(response.status)", response.request.method, url,
                    response.durationMs.map { formatNumber($0) } ?? "", response.tags.map(label).joined(separator: ","),
                ])
            }
            try writeTable(rows)
            return
        }
        var out: [UInt8] = []
        for response in responses {
            let url = redactor?.redactURL(response.request.url) ?? response.request.url
            var members: [JSONObject.Member] = [
                .init(key: "id", value: .number("\(response.id ?? 0)")),
                .init(key: "session", value: response.sessionName.map { .string(label($0)) } ?? .null),
                .init(key: "startedAt", value: response.startedAt.map { .string(ISO8601.format($0)) } ?? .null),
                .init(key: "durationMs", value: response.durationMs.map { .number(formatNumber($0)) } ?? .null),
                .init(key: "method", value: .string(response.request.method)),
                .init(key: "url", value: .string(url)),
                .init(key: "status", value: .number("\(response.status)")),
                .init(key: "tags", value: .array(response.tags.map { .string(label($0)) })),
            ]
            out += JSONWriter().bytes(.object(JSONObject(members)))
            out.append(UInt8(ascii: "\n"))
        }
        try writeAll(out, to: 1, name: "standard output")
    }
}

/// Formats a double without a trailing ".0" and without Foundation's String(format:).
func formatNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

/// Which recorded response(s) a command means: `last`, an id, `--tag`, `--path`, `--status`.
enum ResponseSelection {
    static let filterOptions: [OptionSpec] = [
        .value("tag", "TAG", completes: .dynamic(.tags), "Only responses with this tag (e.g. login)."),
        .value("path", "SUBSTRING", "Only responses whose URL contains this."),
        .value(
            "status", "CODE", completes: .dynamic(.statuses), "Only responses with this status (404) or class (4xx)."),
    ]

    static func query(_ invocation: Invocation) throws -> ResponseQuery {
        let arguments = invocation.arguments
        var query = ResponseQuery()
        if !arguments.has("all-sessions") {
            query.session = try invocation.session().name
        }
        query.tag = arguments.value("tag")
        query.pathContains = arguments.value("path")
        if let status = arguments.value("status") {
            let lower = status.lowercased()
            if lower.count == 3, lower.hasSuffix("xx"), let digit = Int(String(lower.first!)), (1...5).contains(digit) {
                query.statusClass = digit
            } else if let code = Int(status), (100...599).contains(code) {
                query.status = code
            } else {
                throw CommandError(.usage, "--status needs a code 100–599 or a class like 4xx, got '\(status)'")
            }
        }
        return query
    }

    /// The one response a command acts on: positional `last` (default) or an id, plus the filters.
    static func single(_ invocation: Invocation) throws -> (BackendResponse, Session) {
        let session = try invocation.session()
        let store = try invocation.storeForReading()
        let selector = invocation.arguments.positionals.first ?? "last"
        if selector != "last" {
            guard let id = Int64(selector), id > 0 else {
                throw CommandError(.usage, "expected 'last' or a response id, got '\(selector)'")
            }
            guard let response = try store.response(id: id) else {
                throw CommandError(.noInput, "no response with id \(id) in \(store.path)")
            }
            return (response, session)
        }
        var query = try query(invocation)
        query.limit = 1
        guard let response = try store.responses(query).first else {
            throw CommandError(.noInput, try ResponseSelection.notFound(query, session: session, invocation))
        }
        return (response, session)
    }

    /// Why `query` found nothing in `session`, with the hint that fixes it (FirstHourState).
    static func notFound(_ query: ResponseQuery, session: Session, _ invocation: Invocation) throws -> String {
        let any = ResponseQuery(session: session.name, limit: 1, includeBodies: false)
        return ResponseSelector.newest(query).notFoundMessage(
            session: session.name, baseURL: session.baseURL,
            sessionHasResponses: try !invocation.storeForReading().responses(any).isEmpty)
    }
}

/// Lines of a descriptor, read 64 KiB at a time; a line longer than `limit` comes back as nil
/// (its bytes dropped as they are read), so memory stays within the limit.
struct LineReader {
    let fd: Int32
    let limit: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    init(fd: Int32, limit: Int) {
        self.fd = fd
        self.limit = limit
    }

    /// The next line without its newline (`.some(nil)`: one over the limit), nil at the end.
    mutating func next() throws(CommandError) -> [UInt8]?? {
        var tooLong = false
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return tooLong ? .some(nil) : .some(line)
            }
            if buffer.count - start > limit {
                tooLong = true
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            if atEnd {
                guard start < buffer.count || tooLong else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return tooLong ? .some(nil) : .some(line)
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            searched = buffer.count
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandError(.ioError, "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { atEnd = true } else { buffer += chunk[..<count] }
        }
    }
}
