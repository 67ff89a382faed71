/// What `userdebug doctor` says about a store, and how it keeps what is readable of a damaged one.
///
/// A damaged page loses the rows on it, not the store: SQLite still reaches every row whose
/// b-tree path and pages are intact. `salvage` walks each table by rowid through point seeks, so
/// a damaged page costs only the rows on it (a seek that fails moves past one rowid and tries
/// again), and copies every row it can read, as it is, into a new store made by this build.
extension SessionStore {
    /// The state of the store at a path, as `diagnose` found it.
    public enum Diagnosis: Sendable, Equatable {
        /// No store yet (nothing to check).
        case missing
        /// `PRAGMA integrity_check` found nothing wrong.
        case intact
        /// The store is damaged: what SQLite reported (at most `problemLimit` lines).
        case damaged([String])
    }

    /// How many of SQLite's findings `diagnose` keeps.
    public static let problemLimit = 20

    /// Checks the store at `path` read-only (nothing is created or changed) with SQLite's
    /// `PRAGMA integrity_check`: every page, every index entry, every constraint.
    /// - Throws: what opening it throws when that is not damage (`.untrusted`, `.busy`, …).
    public static func diagnose(path: String) throws(StoreError) -> Diagnosis {
        let store: SessionStore
        do {
            store = try SessionStore.open(path: path, mode: .readOnly)
        } catch .missing {
            return .missing
        } catch .corrupt(_, let detail) {
            return .damaged([detail])
        } catch .notADatabase {
            return .damaged(["not an SQLite database (its first page is damaged or it is another file)"])
        }
        do {
            let lines = try store.database.column("PRAGMA integrity_check(\(problemLimit))")
            return lines == ["ok"] ? .intact : .damaged(lines)
        } catch .corrupt(_, let detail) {
            // The check gave up on the whole file; name the tables it cannot read, one by one.
            return .damaged([detail] + damagedTables(store.database))
        }
    }

    /// "TABLE: what SQLite says" for each table (with its indexes) that fails its own check.
    private static func damagedTables(_ database: Database) -> [String] {
        let tables = (try? database.column("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")) ?? []
        var problems: [String] = []
        for table in tables {
            do {
                let lines = try database.column("PRAGMA quick_check(\"\(table)\")")
                if lines != ["ok"] { problems.append("\(table): " + lines.joined(separator: "; ")) }
            } catch .corrupt(_, let detail) {
                problems.append("\(table): cannot be read (\(detail))")
            } catch {
                problems.append("\(table): cannot be checked (\(error))")
            }
        }
        return problems
    }

    /// What `salvage` copied, and how many rows or places it could not read.
    public struct SalvageReport: Sendable, Equatable {
        /// Sessions copied into the new store.
        public var sessions = 0
        /// Responses copied into the new store (with their tags when those could be read).
        public var responses = 0
        /// Rows that could not be read or kept (a response whose session was lost included), and
        /// row ids a damaged page hid.
        public var unreadable = 0
    }

    /// Copies every readable session and response of the damaged store at `damaged` into a new
    /// store at `target`, which must not exist; the damaged store is only read.
    /// - Throws: `.io` when `target` exists, what opening either store throws, and `.busy`.
    public static func salvage(from damaged: String, into target: String) throws(StoreError) -> SalvageReport {
        guard FileStatus(path: target) == nil else {
            throw StoreError.io(path: target, detail: "exists; the salvage writes a new store and replaces nothing")
        }
        let source = try SessionStore.open(path: damaged, mode: .readOnly).database
        let output = try SessionStore.open(path: target, mode: .readWrite)
        return try output.database.writeTransaction { () throws(StoreError) in
            var report = SalvageReport()
            let sessions = copyRows("sessions", from: source, to: output.database, report: &report)
            let responses = copyRows("responses", from: source, to: output.database, report: &report) { id in
                // The tags index of a kept response: lost tags lose only the tag look-up.
                try? copyTags(of: id, from: source, to: output.database)
            }
            report.sessions = sessions
            report.responses = responses
            if let current = try? source.scalarInt("SELECT session_id FROM current_session WHERE id = 1") {
                try? output.database.run(
                    "INSERT INTO current_session (id, session_id) SELECT 1, id FROM sessions WHERE id = ?",
                    [.integer(current)])
            }
            return report
        }
    }

    /// Copies the readable rows of `table` (rowid `id`) and returns how many; `unreadable` counts
    /// the rest. `copied` runs after each row copied.
    private static func copyRows(
        _ table: String, from source: Database, to target: Database, report: inout SalvageReport,
        copied: (Int64) -> Void = { _ in }
    ) -> Int {
        // Past the largest id nothing is left; when even that cannot be read, a damaged page is
        // crossed one id at a time for at most a million ids.
        let last = try? source.scalarInt("SELECT max(id) FROM \(table)")
        var cursor: Int64 = 0
        var kept = 0
        while true {
            let next: Int64?
            do {
                next = try source.scalarInt(
                    "SELECT id FROM \(table) WHERE id > ? ORDER BY id LIMIT 1", [.integer(cursor)])
            } catch {
                report.unreadable += 1
                cursor += 1
                if cursor > (last ?? 1_000_000) { break }
                continue
            }
            guard let next else { break }
            cursor = next
            do {
                try copyRow(table, id: next, from: source, to: target)
                kept += 1
                copied(next)
            } catch {
                report.unreadable += 1
            }
        }
        return kept
    }

    /// Copies the row of `table` with rowid `id`, every column as it is stored.
    private static func copyRow(_ table: String, id: Int64, from source: Database, to target: Database)
        throws(StoreError)
    {
        let values = try source.query("SELECT * FROM \(table) WHERE id = ?", [.integer(id)]) {
            (statement) throws(StoreError) -> [SQLValue] in
            guard try statement.step() else { return [] }
            return (0..<statement.columnCount).map { statement.value($0) }
        }
        guard !values.isEmpty else { return }
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try target.run("INSERT INTO \(table) VALUES (\(marks))", values)
    }

    /// Copies the `response_tags` rows of response `id`.
    private static func copyTags(of id: Int64, from source: Database, to target: Database) throws(StoreError) {
        let rows = try source.query("SELECT tag, session_id FROM response_tags WHERE response_id = ?", [.integer(id)]) {
            (statement) throws(StoreError) -> [[SQLValue]] in
            var rows: [[SQLValue]] = []
            while try statement.step() { rows.append([statement.value(0), statement.value(1)]) }
            return rows
        }
        for row in rows {
            try target.run(
                "INSERT INTO response_tags (response_id, tag, session_id) VALUES (?, ?, ?)", [.integer(id)] + row)
        }
    }
}
