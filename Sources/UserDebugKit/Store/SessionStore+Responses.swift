/// The response log: recording, querying, counting.
extension SessionStore {
    /// Records `response` under the session named `session` (nil: the current session) and
    /// returns its new id. Retention is applied in the same transaction.
    /// - Throws: `.noCurrentSession`, `.noSuchSession`, `.busy`, `.readOnly`, …
    @discardableResult
    public func record(_ response: BackendResponse, session: String?) throws(StoreError) -> Int64 {
        try record([response], session: session)[0]
    }

    /// Records `responses` in one transaction, all or none, and returns their ids in order.
    /// A response whose URL is not an absolute http(s) URL, or with a control character in a
    /// header name or value (`HeaderField`), refuses the batch (`StoreError.invalidResponse`).
    ///
    /// This is also the fast way to fill a large store: batches of some thousands of responses
    /// per call (with `retention = .unlimited`) pay one commit per batch, and every insert reuses
    /// the same prepared statements.
    /// A response larger than `retention.maxBytes` by itself refuses the whole batch
    /// (`.recordTooLarge`): the cap is what the store may hold, and one record past it would
    /// stay past it.
    @discardableResult
    public func record(_ responses: [BackendResponse], session: String?) throws(StoreError) -> [Int64] {
        guard !responses.isEmpty else { return [] }
        let retention = self.retention
        for (index, response) in responses.enumerated() { try Self.check(response, index: index, retention: retention) }
        return try database.writeTransaction { () throws(StoreError) in
            let owner: Int64
            if let session { owner = try sessionID(named: session) } else { owner = try currentSessionID() }
            var ids: [Int64] = []
            ids.reserveCapacity(responses.count)
            for response in responses {
                ids.append(try insert(response, sessionID: owner))
            }
            try applyRetention(retention, sparingFrom: ids[0])
            return ids
        }
    }

    /// Records the responses that `produce` hands to its `record` argument, one at a time, in ONE
    /// write transaction, and returns their ids in order: a reader of a large file (a HAR import)
    /// keeps one response in memory at a time instead of all of them. All or none: when
    /// `produce` or a `record` call throws, nothing is recorded and that error is rethrown.
    /// Each response gets the checks of `record(_:session:)` as it comes (`.invalidResponse`
    /// with its index in this call, `.recordTooLarge`); retention is applied once, at the end.
    public func recordEach(
        session: String?,
        _ produce: (_ record: (BackendResponse) throws(StoreError) -> Int64) throws -> Void
    ) throws -> [Int64] {
        let retention = self.retention
        var failure: (any Error)?
        var started = false
        do {
            return try database.writeTransaction { () throws(StoreError) -> [Int64] in
                // A retry after `.busy` must not run a producer that already consumed its input.
                guard !started else { throw .busy(path: path) }
                started = true
                let owner: Int64
                if let session { owner = try sessionID(named: session) } else { owner = try currentSessionID() }
                var ids: [Int64] = []
                do {
                    try produce { (response) throws(StoreError) -> Int64 in
                        try Self.check(response, index: ids.count, retention: retention)
                        ids.append(try insert(response, sessionID: owner))
                        return ids[ids.count - 1]
                    }
                } catch {
                    failure = error
                    throw .io(path: path, detail: "recording stopped: \(error)")  // rolls back
                }
                if let first = ids.first { try applyRetention(retention, sparingFrom: first) }
                return ids
            }
        } catch {
            throw failure ?? error
        }
    }

    /// Refuses what no reader of the store can take: every reader (curl commands, templates,
    /// HAR) takes the URL as an http(s) URL and sends or pastes the headers, whatever recorded
    /// them (the CLI, the URLSession hook, an app); and a response larger than the cap by itself.
    private static func check(_ response: BackendResponse, index: Int, retention: RetentionPolicy) throws(StoreError) {
        if let problem = HTTPURL.problem(response.request.url) ?? HeaderField.problem(in: response) {
            throw StoreError.invalidResponse(index: index, detail: problem)
        }
        if let limit = retention.maxBytes {
            let bytes = StoreCoding.storedBytes(response)
            if bytes > Int64(limit) {
                throw .recordTooLarge(request: Self.describe(response.request), bytes: bytes, limit: limit)
            }
        }
    }

    /// The responses `query` selects, newest first.
    /// - Throws: `.noSuchSession` when the query names a session that does not exist.
    public func responses(_ query: ResponseQuery) throws(StoreError) -> [BackendResponse] {
        if let limit = query.limit, limit <= 0 { return [] }
        var owner: Int64?
        if let session = query.session { owner = try sessionID(named: session) }
        let (sql, values) = query.sql(sessionID: owner)
        return try database.query(sql, values) { (statement) throws(StoreError) in
            var responses: [BackendResponse] = []
            while try statement.step() { responses.append(try decodeResponse(statement)) }
            return responses
        }
    }

    /// The response with id `id`, nil when there is none (never recorded, or dropped by retention).
    public func response(id: Int64) throws(StoreError) -> BackendResponse? {
        let (sql, values) = ResponseQuery().sql(sessionID: nil, responseID: id)
        return try database.query(sql, values) { (statement) throws(StoreError) in
            try statement.step() ? try decodeResponse(statement) : nil
        }
    }

    /// The response `selector` means (an `ActionContext` finds its responses through this).
    public func response(_ selector: ResponseSelector) throws(StoreError) -> BackendResponse? {
        switch selector {
        case .id(let id): return try response(id: id)
        case .newest(let query): return try responses(query).first
        }
    }

    /// How many responses are recorded in the session named `session`, or in all sessions when nil.
    public func responseCount(session: String?) throws(StoreError) -> Int {
        guard let session else {
            return Int(try database.scalarInt("SELECT count FROM response_totals WHERE id = 1") ?? 0)
        }
        let owner = try sessionID(named: session)
        return Int(
            try database.scalarInt("SELECT count(*) FROM responses WHERE session_id = ?", [.integer(owner)]) ?? 0)
    }

    /// `POST https://host/path`: the method and the URL up to its query, without userinfo, so a
    /// message names the request without quoting a secret from it.
    static func describe(_ request: BackendRequest) -> String {
        var url = Substring(request.url)
        if let end = url.firstIndex(where: { $0 == "?" || $0 == "#" }) { url = url[..<end] }
        if let scheme = url.firstRange(of: "://") {
            let authorityEnd = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
            if let at = url[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                url = url[..<scheme.upperBound] + url[url.index(after: at)...]
            }
        }
        return request.method + " " + url
    }

    /// Bodies from this size on are inserted as zero blobs and written afterwards through
    /// SQLite's incremental blob I/O: bound as values, SQLite copies a body twice (the binding,
    /// then the record it builds), so a capture of a 100 MB body held three of them at once.
    static let streamedBodyBytes = 1 << 20

    private func insert(_ response: BackendResponse, sessionID: Int64) throws(StoreError) -> Int64 {
        let requestHeaders = StoreCoding.encode(response.request.headers)
        let responseHeaders = StoreCoding.encode(response.headers)
        let streamed = [response.request.body, response.body].map { $0.count >= Self.streamedBodyBytes }
        func body(_ bytes: [UInt8], streamed: Bool) -> SQLValue {
            streamed ? .integer(Int64(bytes.count)) : .blob(bytes)
        }
        try database.run(
            """
            INSERT INTO responses (session_id, status, method, url, started_at_ms, duration_ms, stored_bytes, tags,
                request_headers, response_headers, request_body, response_body)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \(streamed[0] ? "zeroblob(?)" : "?"), \(streamed[1] ? "zeroblob(?)" : "?"))
            """,
            [
                .integer(sessionID), .integer(Int64(response.status)), .text(response.request.method),
                .text(response.request.url), response.startedAt.map { .integer(StoreCoding.milliseconds($0)) } ?? .null,
                response.durationMs.map { .real($0) } ?? .null,
                .integer(
                    StoreCoding.storedBytes(response, requestHeaders: requestHeaders, responseHeaders: responseHeaders)),
                .text(StoreCoding.encode(tags: response.tags)), .text(requestHeaders), .text(responseHeaders),
                body(response.request.body, streamed: streamed[0]), body(response.body, streamed: streamed[1]),
            ]
        )
        let id = database.lastInsertRowID
        if streamed[0] {
            try database.writeBlob(response.request.body, table: "responses", column: "request_body", row: id)
        }
        if streamed[1] { try database.writeBlob(response.body, table: "responses", column: "response_body", row: id) }
        for tag in response.tags {
            // OR IGNORE: a tag given twice is one row; the order and repeats stay in `tags`.
            try database.run(
                "INSERT OR IGNORE INTO response_tags (response_id, tag, session_id) VALUES (?, ?, ?)",
                [.integer(id), .text(tag), .integer(sessionID)]
            )
        }
        return id
    }

    func decodeResponse(_ row: Statement) throws(StoreError) -> BackendResponse {
        let id = row.int64(0)
        guard let tags = StoreCoding.decodeTags(row.text(7)),
            let requestHeaders = StoreCoding.decodeHeaders(row.text(8)),
            let responseHeaders = StoreCoding.decodeHeaders(row.text(9))
        else {
            throw StoreError.corrupt(path: path, detail: "response \(id) has malformed tags or headers")
        }
        return BackendResponse(
            id: id,
            sessionName: row.optionalText(1),
            request: BackendRequest(method: row.text(3), url: row.text(4), headers: requestHeaders, body: row.blob(10)),
            status: Int(row.int64(2)),
            headers: responseHeaders,
            body: row.blob(11),
            startedAt: row.optionalInt64(5).map { StoreCoding.date(milliseconds: $0) },
            durationMs: row.optionalDouble(6),
            tags: tags
        )
    }
}
