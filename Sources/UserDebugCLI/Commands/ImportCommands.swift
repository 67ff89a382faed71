import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// `userdebug response import FILE.har|-`: a whole HAR file from browser devtools, Charles,
/// Insomnia or mitmproxy into the session, all or nothing.
enum ImportCommands {
    static let all: [CommandSpec] = [importHAR]

    /// HAR files carry every body of a browsing session and are often larger than the 64 MiB
    /// accepted for other documents. 256 MiB matches the default retention limit of the store
    /// (`retention.maxBytes`): a larger file could not be kept whole anyway. The entries are read
    /// one at a time (`HARStream`) and recorded in one transaction, so memory follows the largest
    /// entry, not the file. Peak RSS measured (release static build, `/usr/bin/time -v`): one
    /// 100 MB text body 204 MB (206 MB when the file was parsed whole), one 75 MB body as 100 MB of
    /// base64 203 MB (was 296 MB), 10,000 small entries in 11 MB 10.5 MB (was 54 MB).
    static let sizeLimit = 256 * 1024 * 1024

    static let importHAR = CommandSpec(
        path: ["response", "import"],
        summary: "Import a HAR 1.2 file (browser devtools, Charles, Insomnia, mitmproxy), all entries or none.",
        usage: "response import FILE.har|- [--session NAME] [--tag TAG]…",
        discussion: """
            Reads leniently (a UTF-8 BOM, null for optional members, -1 sizes, missing optional
            members, base64 bodies). Entries that are not backend responses are skipped and listed
            on stderr with the reason: status 0 (blocked, cancelled or failed) and URLs that are not
            http(s) (data:, blob:, ws:, …). Anything else wrong refuses the whole file with the
            entry's path, and the store is left as it was. Files up to 256 MiB.
            A login the config's "login" rules match (log in with the dev tools open) records
            the session from its body and makes it current; the entries go to the session
            current before, or, when there was none, to the login's.
            Prints the new ids, one per line.
            Example: userdebug response import ~/Downloads/checkout.har --tag checkout
            """,
        options: [
            .value("tag", "TAG", repeatable: true, completes: .dynamic(.tags), "Add a tag to every imported response.")
        ],
        maxPositionals: 1,
        argument: .file
    ) { invocation in
        let (fd, source) = try InputReader.openInput(invocation.arguments.positionals.first, limit: sizeLimit)
        defer { if fd != 0 { close(fd) } }
        let rules = try LoginRecording.rules(invocation)
        let session = try LoginRecording.sessionIfAny(invocation, rules: rules)
        var reading = Reading(
            fd: fd, source: source, tags: invocation.arguments.all("tag"),
            redactor: try invocation.redactor(for: session), invocation: invocation)
        var ids: [Int64]
        // Login responses (few and small) are kept to find the session in once the file is read.
        var candidates: [(response: BackendResponse, id: Int64)] = []
        var login: LoginRecording.Found?
        // Logins no rule matched (`METHOD PATH`): one hint each once the file is read.
        var unmatched: [String] = []
        if let session {
            ids = try explainingFailures(of: source) {
                // One transaction: each entry is recorded as soon as it is read, and any error
                // anywhere in the file rolls all of them back.
                try invocation.storeForWriting().recordEach(session: session.name) { record in
                    try reading.entries { response in
                        let id = try record(response)
                        if rules.contains(where: { $0.matches(response.request) }) {
                            candidates.append((response, id))
                        } else if let match = LoginRecording.unmatchedLogin(response, rules: rules) {
                            unmatched.append(match)
                        }
                    }
                }
            }
            LoginRecording.hintUnmatched(unmatched, rules: rules, invocation: invocation)
            login = try LoginRecording.apply(candidates.map(\.response), rules: rules, invocation: invocation)
        } else {
            // No session to record into yet: the entries wait in memory for the login among them.
            var held: [BackendResponse] = []
            try explainingFailures(of: source) { try reading.entries { held.append($0) } }
            login = try LoginRecording.apply(held, rules: rules, invocation: invocation)
            guard let login else { throw LoginRecording.noSession(invocation) }
            ids = try invocation.storeForWriting().record(held, session: login.session.name)
            candidates = zip(held, ids).map { (response: $0, id: $1) }
        }
        var summary = "imported \(ids.count) of \(reading.entryCount) entries from \(source)"
        if !reading.skipped.isEmpty { summary += "; skipped \(reading.skipped.count) (listed above)" }
        if reading.bodiesMissing > 0 { summary += "; \(reading.bodiesMissing) responses had no body in the file" }
        invocation.diagnostics.notice(summary)
        if let login {
            LoginRecording.report(login, responseID: candidates[login.index].id, invocation: invocation)
        }
        try writeAll(Array(ids.map { "\($0)\n" }.joined().utf8), to: 1, name: "standard output")
    }

    /// One pass over a HAR file: hands each response on (with the `--tag`s added), lists the
    /// skipped entries on stderr, and refuses a file with nothing to import.
    struct Reading {
        let fd: Int32
        let source: String
        let tags: [String]
        let redactor: Redactor?
        let invocation: Invocation
        var entryCount = 0
        var skipped: [HARImport.Skipped] = []
        var bodiesMissing = 0

        mutating func entries(_ take: (BackendResponse) throws -> Void) throws {
            var recorded = 0
            var skipped: [HARImport.Skipped] = []
            var bodiesMissing = 0
            let tags = self.tags
            entryCount = try HARStream.read(FileDescriptor(fd), limit: sizeLimit) { _, entry in
                switch entry {
                case .response(var response, let bodyMissing):
                    for tag in tags where !response.tags.contains(tag) { response.tags.append(tag) }
                    try take(response)
                    recorded += 1
                    if bodyMissing { bodiesMissing += 1 }
                case .skipped(let entry):
                    skipped.append(entry)
                }
            }
            self.skipped = skipped
            self.bodiesMissing = bodiesMissing
            for entry in skipped {
                var url = redactor?.redactURL(entry.url) ?? entry.url
                if url.count > 80 { url = String(url.prefix(77)) + "…" }
                invocation.diagnostics.notice("skipped entry \(entry.index) (\(entry.method) \(url)): \(entry.reason)")
            }
            guard recorded > 0 else {
                throw CommandError(
                    .dataError, "\(source): nothing to import (\(entryCount) entries, \(skipped.count) skipped)")
            }
        }
    }

    /// Runs `body`, turning the reader's errors into messages that name the input: syntax
    /// errors with the line and column in the file, HAR errors with the entry's path.
    private static func explainingFailures<T>(of source: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as JSONParseError {
            throw CommandError(
                .dataError, "\(source): \(error.line):\(error.column): \(error.reason); nothing was imported")
        } catch let error as DocumentError {
            throw CommandError(.dataError, "\(source): \(error.description); nothing was imported")
        } catch let error as SystemError {
            throw CommandError(.ioError, "cannot read \(source): \(error)")
        } catch HARStreamError.tooLarge {
            throw InputReader.tooLarge(source, limit: sizeLimit)
        }
    }
}
