/// Keeping the response log within its `RetentionPolicy`.
extension SessionStore {
    /// Drops the oldest responses until `policy` holds, never those with an id of at least
    /// `firstSpared` (the ones the current record call just inserted). Runs inside the record's
    /// transaction, so a record and the deletions it causes commit together.
    ///
    /// The totals come from `response_totals` (O(1)); the deletions are one range delete on the
    /// id, whose cascades remove the tags.
    func applyRetention(_ policy: RetentionPolicy, sparingFrom firstSpared: Int64) throws(StoreError) {
        guard policy.maxCount != nil || policy.maxBytes != nil else { return }
        let (count, bytes) = try database.query("SELECT count, bytes FROM response_totals WHERE id = 1") {
            (statement) throws(StoreError) -> (Int64, Int64) in
            try statement.step() ? (statement.int64(0), statement.int64(1)) : (0, 0)
        }
        var lastDropped: Int64?
        if let maxCount = policy.maxCount, count > Int64(maxCount) {
            let excess = count - Int64(max(0, maxCount))
            lastDropped = try database.scalarInt(
                "SELECT id FROM responses WHERE id < ? ORDER BY id LIMIT 1 OFFSET ?",
                [.integer(firstSpared), .integer(excess - 1)]
            )
            // Fewer older rows than the excess: drop all of them.
            if lastDropped == nil {
                lastDropped = try database.scalarInt(
                    "SELECT max(id) FROM responses WHERE id < ?", [.integer(firstSpared)])
            }
        }
        if let maxBytes = policy.maxBytes, bytes > Int64(maxBytes) {
            let byBytes = try lastIDToDrop(toFree: bytes - Int64(max(0, maxBytes)), before: firstSpared)
            if let byBytes, byBytes > (lastDropped ?? Int64.min) { lastDropped = byBytes }
        }
        if let lastDropped {
            try database.run("DELETE FROM responses WHERE id <= ?", [.integer(lastDropped)])
        }
    }

    /// The id up to which the oldest responses (before `firstSpared`) add up to `needed` bytes.
    private func lastIDToDrop(toFree needed: Int64, before firstSpared: Int64) throws(StoreError) -> Int64? {
        try database.query(
            "SELECT id, stored_bytes FROM responses WHERE id < ? ORDER BY id", [.integer(firstSpared)]
        ) { (statement) throws(StoreError) -> Int64? in
            var freed: Int64 = 0
            var last: Int64?
            while freed < needed, try statement.step() {
                last = statement.int64(0)
                freed += statement.int64(1)
            }
            return last
        }
    }
}
