#if canImport(Glibc)
    import Glibc
#endif

/// A response body read in chunks from the store, for printing a large body without holding it.
extension SessionStore {
    /// The response `selector` means with its bodies left empty (never read from disk), or nil.
    public func responseWithoutBodies(_ selector: ResponseSelector) throws(StoreError) -> BackendResponse? {
        switch selector {
        case .id(let id):
            let (sql, values) = ResponseQuery(includeBodies: false).sql(sessionID: nil, responseID: id)
            return try database.query(sql, values) { (statement) throws(StoreError) in
                try statement.step() ? try decodeResponse(statement) : nil
            }
        case .newest(var query):
            query.includeBodies = false
            query.limit = 1
            return try responses(query).first
        }
    }

    /// Hands the response body of the response with id `id` to `consume` a chunk at a time (at
    /// most 1 MiB each, read with sqlite3_blob_read), as stored: a compressed body stays
    /// compressed. A response removed meanwhile (retention) is a `StoreError`; an error of
    /// `consume` is rethrown as it is.
    public func readResponseBody(id: Int64, _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        try database.readBlob(table: "responses", column: "response_body", row: id, consume)
    }
}

/// A response body read whole for redaction, into one buffer of its size, with typed errors for
/// a body too large or memory that cannot be had (never an allocation trap).
extension SessionStore {
    /// Why `loadResponseBody` could not hold a body.
    public enum BodyLoadError: Error, Sendable, Equatable {
        /// The body is larger than the limit given (its size).
        case tooLarge(Int)
        /// Memory for a body of this size could not be allocated.
        case outOfMemory(Int)
    }

    /// The response body of response `id` as stored, read with `sqlite3_blob_read` into one
    /// array allocated at its size (with `spare` bytes more of capacity, for redaction that
    /// makes it longer); `BodyLoadError` when it is larger than `limit` or that much memory
    /// cannot be had, `StoreError` when the store fails.
    public func loadResponseBody(id: Int64, limit: Int, spare: Int = 0) throws -> [UInt8] {
        let size = try database.query(
            "SELECT length(response_body) FROM responses WHERE id = ?", [.integer(id)]
        ) { (statement) throws(StoreError) in try statement.step() ? Int(statement.int64(0)) : 0 }
        guard size <= limit else { throw BodyLoadError.tooLarge(size) }
        // Swift traps when an allocation fails: ask malloc first, and say so instead.
        guard let probe = malloc(size + spare + 1) else { throw BodyLoadError.outOfMemory(size) }
        free(probe)
        var body: [UInt8] = []
        body.reserveCapacity(size + spare)
        try readResponseBody(id: id) { chunk in body.append(contentsOf: chunk) }
        return body
    }
}
