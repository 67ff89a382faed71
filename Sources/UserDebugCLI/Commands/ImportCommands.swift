import UserDebugKit

/// `userdebug response import FILE.har|-`: a whole HAR file from browser devtools, Charles,
/// Insomnia or mitmproxy into the session, all or nothing.
enum ImportCommands {
    static let all: [CommandSpec] = [importHAR]

    /// HAR files carry every body of a browsing session and are often larger than the 64 MiB
    /// accepted for other documents. 256 MiB matches the default retention limit of the store
    /// (`retention.maxBytes`): a larger file could not be kept whole anyway. The file is read and
    /// parsed whole: 2× to 5× its size in memory (one text body to many small entries).
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
            Prints the new ids, one per line.
            Example: userdebug response import ~/Downloads/checkout.har --tag checkout
            """,
        options: [.value("tag", "TAG", repeatable: true, "Add a tag to every imported response.")],
        maxPositionals: 1
    ) { invocation in
        let (bytes, source) = try InputReader.read(invocation.arguments.positionals.first, limit: sizeLimit)
        let value: JSONValue
        do {
            value = try JSONParser().parse(bytes)
        } catch let error as JSONParseError {
            throw CommandError(.dataError, "\(source): \(error.line):\(error.column): \(error.reason)")
        }
        let har: HARImport
        do {
            har = try HARImport(value)
        } catch let error as DocumentError {
            throw CommandError(.dataError, "\(source): \(error.description); nothing was imported")
        }
        let session = try invocation.session()
        let redactor = try invocation.redactor(for: session)
        for skipped in har.skipped {
            var url = redactor?.redactURL(skipped.url) ?? skipped.url
            if url.count > 80 { url = String(url.prefix(77)) + "…" }
            invocation.diagnostics.notice(
                "skipped entry \(skipped.index) (\(skipped.method) \(url)): \(skipped.reason)")
        }
        guard !har.responses.isEmpty else {
            throw CommandError(
                .dataError, "\(source): nothing to import (\(har.entryCount) entries, \(har.skipped.count) skipped)")
        }
        var responses = har.responses
        let tags = invocation.arguments.all("tag")
        for index in responses.indices {
            for tag in tags where !responses[index].tags.contains(tag) { responses[index].tags.append(tag) }
        }
        let ids = try invocation.storeForWriting().record(responses, session: session.name)
        var summary = "imported \(ids.count) of \(har.entryCount) entries from \(source)"
        if !har.skipped.isEmpty { summary += "; skipped \(har.skipped.count) (listed above)" }
        if har.bodiesMissing > 0 { summary += "; \(har.bodiesMissing) responses had no body in the file" }
        invocation.diagnostics.notice(summary)
        try writeAll(Array(ids.map { "\($0)\n" }.joined().utf8), to: 1, name: "standard output")
    }
}
