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
