/// A whole HAR file read for import: the exchanges to record, and the entries left out with the
/// rule that left each out, so the caller can say so. Nothing is ever dropped silently: an entry
/// is either imported, skipped by one of the rules below, or the whole file is refused with the
/// entry's path and what is wrong there.
///
/// Skipped by rule (browsers put these in every HAR, and none is a backend response):
/// - status `0`: the request got no response (blocked, cancelled, failed, or served from a
///   service worker that Chrome does not report);
/// - a URL that is not `http:` or `https:` (`data:`, `blob:`, `chrome-extension:`, `ws:`, …).
///
/// An entry past those rules whose URL is still not an absolute http(s) URL (`http:///x`, a port
/// that is not a number) refuses the file, as any other entry that cannot be read.
///
/// Leniency (as in `ResponseDocument.decodeHAREntry`): a UTF-8 BOM, `null` for optional members
/// (`redirectURL`, `comment`, `serverIPAddress`), `-1` sizes and timings, missing optional
/// members, base64 bodies. Entries whose body was left out by the exporter are imported without
/// it and counted in `bodiesMissing`.
public struct HARImport: Sendable {
    /// One entry that was left out.
    public struct Skipped: Sendable, Hashable {
        /// The entry's index in `log.entries`.
        public var index: Int
        /// The request's method, `?` when it had none.
        public var method: String
        /// The request's URL as given (callers redact and shorten it for a report).
        public var url: String
        /// Which rule left it out.
        public var reason: String
    }

    /// What one element of `log.entries` gives: an exchange to record or an entry left out.
    public enum Entry: Sendable {
        /// An exchange to record; `bodyMissing` when the entry said its response had a body but
        /// did not include it.
        case response(BackendResponse, bodyMissing: Bool)
        /// An entry left out by one of the rules above.
        case skipped(Skipped)
    }

    /// The exchanges to record, in file order.
    public var responses: [BackendResponse]
    /// The entries left out, in file order.
    public var skipped: [Skipped]
    /// How many entries were in the file.
    public var entryCount: Int
    /// How many imported entries said their response had a body but did not include it.
    public var bodiesMissing: Int

    /// Reads a parsed HAR document, entry by entry with `entry(_:index:)`.
    /// - Throws: `DocumentError` naming the entry (`$.log.entries[3].request`) when the file is
    ///   not HAR or an entry that no rule skips cannot be read.
    public init(_ value: JSONValue) throws(DocumentError) {
        let entries = try HARImport.entries(of: value)
        responses = []
        skipped = []
        bodiesMissing = 0
        entryCount = entries.count
        for (index, element) in entries.enumerated() {
            switch try HARImport.entry(element, index: index) {
            case .response(let response, let bodyMissing):
                responses.append(response)
                if bodyMissing { bodiesMissing += 1 }
            case .skipped(let entry):
                skipped.append(entry)
            }
        }
    }

    /// The elements of `log.entries` of a parsed document.
    /// - Throws: `DocumentError` when the document is not `{"log": {"entries": […]}}`.
    public static func entries(of value: JSONValue) throws(DocumentError) -> [JSONValue] {
        let root = DocumentNode(value)
        guard root.value.objectValue != nil, let log = root.member("log"), log.value.objectValue != nil else {
            throw root.error("not a HAR file: expected {\"log\": {\"entries\": […]}}")
        }
        return try log.requiredMember("entries").array().map(\.value)
    }

    /// The path of `log.entries` in error messages.
    static let entriesPath = DocumentPath.appending("entries", to: DocumentPath.appending("log", to: "$"))

    /// Reads the element at `index` of `log.entries`: the one conversion step of both the whole
    /// document (`init`) and the streamed import (`HARStream`).
    /// - Throws: `DocumentError` naming the entry (`$.log.entries[3].request`) when no rule skips
    ///   it and it cannot be read.
    public static func entry(_ value: JSONValue, index: Int) throws(DocumentError) -> Entry {
        let entry = DocumentNode(value, path: DocumentPath.appending(index: index, to: entriesPath))
        _ = try entry.object()
        if let reason = HARImport.skipReason(entry) {
            return .skipped(
                Skipped(
                    index: index,
                    method: entry.member("request")?.member("method")?.value.stringValue ?? "?",
                    url: entry.member("request")?.member("url")?.value.stringValue ?? "?",
                    reason: reason))
        }
        let response = try ResponseDocument.decode(entry)
        // Past the skip rule's `http(s):` prefix there may still be no host (`http:///x`).
        if let problem = HTTPURL.problem(response.request.url) {
            let request = DocumentPath.appending("request", to: entry.path)
            throw DocumentError(path: DocumentPath.appending("url", to: request), message: problem)
        }
        return .response(response, bodyMissing: HARImport.bodyLeftOut(entry))
    }

    private static func skipReason(_ entry: DocumentNode) -> String? {
        if let status = entry.member("response")?.member("status"), case .number(let literal) = status.value,
            Double(literal) == 0
        {
            return "no response (status 0: blocked, cancelled or failed)"
        }
        if let url = entry.member("request")?.member("url")?.value.stringValue {
            let lower = url.lowercased()
            if !lower.hasPrefix("http://"), !lower.hasPrefix("https://") {
                let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? url
                return "not an HTTP request (\(scheme): URL)"
            }
        }
        return nil
    }

    /// The content says it had bytes (`size` > 0) but carries no `text`.
    private static func bodyLeftOut(_ entry: DocumentNode) -> Bool {
        guard let content = entry.member("response")?.member("content"), content.member("text") == nil,
            case .number(let literal)? = content.member("size")?.value, let size = Double(literal)
        else { return false }
        return size > 0
    }
}
