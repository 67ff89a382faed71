import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// `userdebug export …`: a recorded request as a curl command, responses as HAR, the session as a
/// Postman environment, requests as a Postman collection. Every export goes through the
/// `OutputRouter` like any action and is redacted unless `--reveal`.
enum ExportCommands {
    static let all: [CommandSpec] = [curl, har, postmanEnvironment, postmanCollection]

    static let selectionOptions: [OptionSpec] =
        ResponseSelection.filterOptions + [
            .value("limit", "N", "At most the N newest matching responses (default: all).")
        ]

    static let curl = CommandSpec(
        path: ["export", "curl"],
        summary: "A recorded request as a shell-safe curl command (the last by default).",
        usage:
            "export curl [last|ID] [--tag TAG] [--path SUBSTRING] [--status CODE|Nxx] [--body-file PATH] [--one-line] [--to TARGET]",
        discussion: """
            Every value is single-quoted ('\\'' for a quote), so the command means the same in bash,
            dash and zsh. The method is written only when curl would not imply it; headers as -H;
            a text body as --data-raw. A binary body (NUL bytes, not UTF-8) cannot be a shell
            argument: it is written to a 0600 file (default STATE/bodies/request-ID.bin, where
            STATE is $XDG_STATE_HOME/userdebug) and passed as --data-binary @FILE. A compressed
            body (Content-Encoding gzip, deflate, br) is exported decoded, without that header.
            Authorization, cookies and tokens are redacted unless --reveal; a body that redaction
            cannot read (binary, an unknown or corrupt coding) is replaced by what it is:
            [body: 1,234 bytes, binary (image/png), shown with --reveal]. With --reveal the
            request is written as a curl config that curl reads on stdin (curl -K - and a
            here-document; printf piped into curl with --one-line), so the token is in no
            process's arguments. --body-file creates the file (never through a symbolic link) or
            rewrites one of yours; anything else there is refused. curl's own User-Agent
            (curl/x.y.z) and Accept: */* are left out (curl sends them anyway) unless
            --keep-client-headers.
            Example: userdebug export curl --tag login --reveal --to stdout | sh
            """,
        options: ResponseSelection.filterOptions + ActionCommands.outputOptions + [
            .value(
                "body-file", "PATH", completes: .file,
                "Where to write a binary request body (default in the state directory)."),
            .flag("one-line", "The whole command on one line (default: one option per line)."),
            keepClientHeadersOption,
        ],
        maxPositionals: 1,
        argument: .response
    ) { invocation in
        let (selected, session) = try ResponseSelection.single(invocation)
        let response = clientHeadersHandled(selected, invocation)
        let redactor = try invocation.redactor(for: session)
        let shown = redactor?.redact(response) ?? response.decodingBodies()
        // Revealed, the token is in the command: it goes to curl on stdin, never in an argv.
        var writer = CurlCommand(
            multiline: !invocation.arguments.has("one-line"), requestOnStandardInput: redactor == nil)
        if CurlCommand.needsFile(shown.request.body) {
            let given = invocation.arguments.value("body-file")
            let path = given ?? ExportFiles.defaultBodyPath(invocation.paths, responseID: response.id)
            if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
                try ExportFiles.makeDirectory(String(path[..<slash]), private: given == nil ? 2 : 0)
            }
            try ExportFiles.write(shown.request.body, to: path)
            writer.binaryBodyPath = path
            invocation.diagnostics.notice("the binary request body (\(shown.request.body.count) bytes) is in \(path)")
        }
        let command = try writer.command(for: shown.request)
        // A body written to a file is not in the command: only what is counts.
        var inCommand = shown.request
        if writer.binaryBodyPath != nil { inCommand.body = [] }
        try OutputRouter(invocation: invocation).deliver(
            payload(command, session: session, revealed: redactor == nil, invocation: invocation) {
                $0.redact(inCommand) != inCommand
            })
    }

    static let har = CommandSpec(
        path: ["export", "har"],
        summary: "Recorded responses as a HAR 1.2 file (all of the session's, oldest first, by default).",
        usage:
            "export har [all|last|ID] [--tag TAG] [--path SUBSTRING] [--status CODE|Nxx] [--limit N] [--all-sessions] [--to TARGET]",
        discussion: """
            Strict HAR 1.2: every required member is present (unknown sizes -1, the duration in
            timings.wait). Compressed bodies are decoded (content.text is the content, and the
            Content-Encoding header goes). Binary bodies are base64 with --reveal; without it, a
            body that redaction cannot read (binary, an unknown or corrupt coding) is a marker,
            [body: 1,234 bytes, zstd-encoded, shown with --reveal]. `userdebug response import`
            reads it back. Authorization, cookies and tokens are redacted unless --reveal.
            Example: userdebug export har --tag checkout > checkout.har
            """,
        options: selectionOptions + ActionCommands.outputOptions + [
            .flag("all-sessions", "Responses of every session.")
        ],
        maxPositionals: 1,
        argument: .response
    ) { invocation in
        let (responses, session) = try ExportSelection.many(invocation)
        var redactor = try invocation.redactor(for: session)
        // Every session's token is a secret when every session's responses go out.
        let tokens =
            invocation.arguments.has("all-sessions")
            ? try invocation.storeForReading().sessions().compactMap(\.token).filter { !$0.isEmpty } : []
        redactor?.knownSecrets += tokens
        let shown = responses.map { redactor?.redact($0) ?? $0.decodingBodies() }
        let document = HARDocument.encode(shown, creatorVersion: CLI.version)
        let text = JSONWriter(indent: 2).string(document)
        try OutputRouter(invocation: invocation).deliver(
            payload(
                text, session: session, revealed: redactor == nil, kind: .json, knownSecrets: tokens,
                invocation: invocation
            ) { classifier in
                shown.contains { classifier.redact($0) != $0 }
            })
    }

    static let postmanEnvironment = CommandSpec(
        path: ["export", "postman-env"],
        summary: "The session as a Postman environment (baseUrl, userId, userName, authToken).",
        usage: "export postman-env [--session NAME] [--reveal] [--to TARGET]",
        discussion: """
            For Postman's import and newman's -e. authToken is typed secret; without --reveal it
            holds a placeholder and is disabled. A value that is off is written "enabled": false
            and "disabled": true (newman reads only the latter).
            Example: userdebug export postman-env --reveal > env.json && newman run api.json -e env.json
            """,
        options: ActionCommands.outputOptions,
        maxPositionals: 0
    ) { invocation in
        let session = try invocation.session()
        let reveal = invocation.arguments.has("reveal")
        if !reveal, let token = session.token, !token.isEmpty {
            invocation.diagnostics.notice(
                "authToken is a placeholder and disabled; pass --reveal to export the real token")
        }
        let document = PostmanEnvironment.encode(session, revealToken: reveal, exporterVersion: CLI.version)
        let text = JSONWriter(indent: 2).string(document)
        try OutputRouter(invocation: invocation).deliver(
            payload(text, session: session, revealed: reveal, kind: .json, invocation: invocation))
    }

    static let postmanCollection = CommandSpec(
        path: ["export", "postman-collection"],
        summary: "Recorded requests as a Postman Collection v2.1 using the environment's variables.",
        usage:
            "export postman-collection [all|last|ID] [--tag TAG] [--path SUBSTRING] [--status CODE|Nxx] [--limit N] [--to TARGET]",
        discussion: """
            The session's base URL becomes {{baseUrl}}, its token {{authToken}}, the user's
            identifier {{userId}} (as a whole path segment, query value, header value or JSON
            string). Requests to the base URL's origin carry Authorization: Bearer {{authToken}},
            except the login (tagged login, or answered with the token); other origins never get
            the token. Cookies and other secrets are redacted unless --reveal. The headers the
            recording client added by itself (User-Agent: curl/x.y.z, Accept: */*) are left out
            unless --keep-client-headers; a User-Agent or Accept the app set is kept.
            Example: userdebug export postman-collection > api.json; userdebug export postman-env --reveal > env.json
            """,
        options: selectionOptions + ActionCommands.outputOptions + [keepClientHeadersOption],
        maxPositionals: 1,
        argument: .response
    ) { invocation in
        let (selected, session) = try ExportSelection.many(invocation)
        let responses = selected.map { clientHeadersHandled($0, invocation) }
        let redactor = try invocation.redactor(for: session)
        let collection = PostmanCollection(responses, session: session, redactor: redactor)
        if collection.binaryBodiesLeftOut > 0 {
            invocation.diagnostics.notice(
                "\(collection.binaryBodiesLeftOut) binary request bodies are not included (body mode file, no file chosen)"
            )
        }
        let text = JSONWriter(indent: 2).string(collection.document)
        try OutputRouter(invocation: invocation).deliver(
            payload(text, session: session, revealed: redactor == nil, kind: .json, invocation: invocation) {
                // What redaction would change in this collection (the token on the base URL's
                // origin is {{authToken}} either way).
                PostmanCollection(responses, session: session, redactor: $0).document != collection.document
            })
    }

    static let keepClientHeadersOption = OptionSpec.flag(
        "keep-client-headers",
        "Keep the headers the recording client added by itself (User-Agent: curl/x.y.z, Accept: */*).")

    /// `response` as an export of requests shows it: without the headers the recording client
    /// added by itself (`ClientDefaultHeaders`) unless `--keep-client-headers`.
    static func clientHeadersHandled(_ response: BackendResponse, _ invocation: Invocation) -> BackendResponse {
        invocation.arguments.has("keep-client-headers") ? response : ClientDefaultHeaders.removed(from: response)
    }

    /// A payload marked secret when it was revealed and holds a secret by the rule of
    /// `SecretPayloads`, so a clipboard owner offers the password-manager hint and clears it after
    /// the timeout: the session's token (or one of `knownSecrets`) in any form the redactor
    /// searches, a JWT-shaped value, or a value that the config's redaction would have replaced,
    /// which `changedByRedaction` tells from the exported records and the classifying redactor
    /// (a `password` member, a cookie, a body that redaction cannot read).
    static func payload(
        _ text: String, session: Session, revealed: Bool, kind: Payload.Kind = .text, knownSecrets: [String] = [],
        invocation: Invocation, changedByRedaction: (Redactor) -> Bool = { _ in false }
    ) throws -> Payload {
        let bytes = Array(text.utf8)
        guard revealed else { return Payload(bytes: bytes, kind: kind) }
        let secrets = ([session.token].compactMap { $0 } + knownSecrets).filter { !$0.isEmpty }
        let classifier = Redactor(policy: try invocation.config().redactionPolicy, knownSecrets: secrets)
        let secret =
            classifier.containsKnownSecret(bytes) || SecretPayloads.looksSecret(bytes, token: session.token)
            || changedByRedaction(classifier)
        return Payload(bytes: bytes, kind: kind, isSecret: secret)
    }
}

/// Which responses a multi-response export means: `all` (default), `last` or an id, narrowed by
/// the filters and `--limit`; oldest first, as they happened.
enum ExportSelection {
    static func many(_ invocation: Invocation) throws -> ([BackendResponse], Session) {
        let selector = invocation.arguments.positionals.first ?? "all"
        if selector != "all" {
            let (response, session) = try ResponseSelection.single(invocation)
            return ([response], session)
        }
        let session = try invocation.session()
        var query = try ResponseSelection.query(invocation)
        if let limitText = invocation.arguments.value("limit") {
            guard let limit = Int(limitText), limit > 0 else {
                throw CommandError(.usage, "--limit needs a whole number > 0, got '\(limitText)'")
            }
            query.limit = limit
        }
        let responses = try invocation.storeForReading().responses(query)
        guard !responses.isEmpty else {
            throw CommandError(.noInput, try ResponseSelection.notFound(query, session: session, invocation))
        }
        return (responses.reversed(), session)
    }
}

/// Private files the export and capture commands write beside the store: binary request bodies
/// for `--data-binary @FILE` and curl's trace during a capture. Both can hold secrets, so the
/// directories are 0700 and the files 0600 whatever the umask, and neither is written where
/// someone else could read or replace it.
enum ExportFiles {
    /// Creates `directory` and its missing parents with mode 0700. `private` levels at its end
    /// (the state directory and its `bodies`) are ours: they, and every directory above, are
    /// checked as the store's are (`FileTrust`), before anything is created and after. A
    /// directory the user named (`--body-file`'s) is the user's choice: 0.
    static func makeDirectory(_ directory: String, private levels: Int) throws(CommandError) {
        if levels > 0 { try refuseUntrusted(directory, levels: levels) }
        var path = ""
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + component
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw CommandError(.ioError, "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
        if levels > 0 { try refuseUntrusted(directory, levels: levels) }
    }

    private static func refuseUntrusted(_ directory: String, levels: Int) throws(CommandError) {
        if let problem = FileTrust.problem(at: directory, ownLevels: levels) {
            throw CommandError(.noPermission, "refusing to write in \(directory): \(problem)")
        }
    }

    /// Writes `bytes` to `path` with mode 0600: a new file (created exclusively, never through a
    /// symbolic link), or an existing regular file of ours with no other link, rewritten. Anything
    /// else there (a link, another user's file, a FIFO) is refused and left alone.
    static func write(_ bytes: [UInt8], to path: String) throws(CommandError) {
        var fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 && errno == EEXIST {
            // Non-blocking: a FIFO put there must not hang us; it is refused below.
            fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        }
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP {
                throw CommandError(
                    .noPermission, "refusing to write \(path): it is a symbolic link; remove it or name another file")
            }
            throw CommandError(
                code == EACCES || code == EPERM ? .noPermission : .ioError,
                "cannot write \(path): \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw CommandError(.ioError, "cannot examine \(path): \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == geteuid(), status.st_nlink == 1 else {
            throw CommandError(
                .noPermission,
                "refusing to write \(path): it exists and is not a file of yours alone (owner uid \(status.st_uid), \(status.st_nlink) links); remove it or name another file"
            )
        }
        guard fchmod(fd, 0o600) == 0, ftruncate(fd, 0) == 0 else {
            throw CommandError(.ioError, "cannot make \(path) a private file: \(String(cString: strerror(errno)))")
        }
        try writeAll(bytes, to: fd, name: path)
    }

    /// A new empty 0600 file in `directory` (one of ours, checked as the state directory is)
    /// named `prefix` plus a unique suffix.
    static func temporaryFile(in directory: String, prefix: String) throws(CommandError) -> String {
        try makeDirectory(directory, private: 1)
        var template = Array((directory + "/" + prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw CommandError(.ioError, "cannot create a file in \(directory): \(String(cString: strerror(errno)))")
        }
        close(fd)
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The whole content of `path`, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try? FileDescriptor(fd).readAll()
    }

    /// Where `export curl` puts a binary request body by default: the state directory, which
    /// outlives the command (the command may be pasted much later) and is private to the user.
    static func defaultBodyPath(_ paths: UserDebugPaths, responseID: Int64?) -> String {
        paths.stateDirectory + "/bodies/request-\(responseID.map(String.init) ?? "unsaved").bin"
    }
}
