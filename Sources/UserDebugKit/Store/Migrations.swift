/// The store's schema as an ordered list of migrations; `PRAGMA user_version` records how many
/// have been applied. A new version appends a step; a step is never edited once released.
///
/// Design notes for version 1:
/// - One database holds sessions and responses, so a response and its session share transactions
///   and a foreign key (removing a session removes its responses in the same commit).
/// - `responses.id` is AUTOINCREMENT so an id is never reused after retention or a removed
///   session; "newest first" is "highest id first".
/// - Body BLOBs are the last columns: a listing that skips them never walks their overflow pages.
/// - Tags live in `response_tags` with two indexes, so the newest response with a tag, in one
///   session or in all, is an index seek, not a scan. `responses.tags` keeps the tags' order.
/// - `response_totals` is kept by triggers (cascaded deletes included), so retention reads the
///   count and size in O(1) instead of counting a million rows on every record.
enum Migrations {
    /// The statements of each version, version 1 first.
    static let steps: [String] = [
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            user_identifier TEXT NOT NULL,
            user_name TEXT,
            user_fields TEXT NOT NULL,
            token TEXT,
            base_url TEXT,
            environment TEXT,
            created_at_ms INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL
        );
        CREATE TABLE current_session (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE
        );
        CREATE TABLE responses (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            status INTEGER NOT NULL,
            method TEXT NOT NULL,
            url TEXT NOT NULL,
            started_at_ms INTEGER,
            duration_ms REAL,
            stored_bytes INTEGER NOT NULL,
            tags TEXT NOT NULL,
            request_headers TEXT NOT NULL,
            response_headers TEXT NOT NULL,
            request_body BLOB NOT NULL,
            response_body BLOB NOT NULL
        );
        CREATE INDEX responses_by_session ON responses (session_id, id);
        CREATE TABLE response_tags (
            response_id INTEGER NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            session_id INTEGER NOT NULL,
            PRIMARY KEY (response_id, tag)
        ) WITHOUT ROWID;
        CREATE INDEX response_tags_by_tag ON response_tags (tag, response_id);
        CREATE INDEX response_tags_by_session_tag ON response_tags (session_id, tag, response_id);
        CREATE TABLE response_totals (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            count INTEGER NOT NULL,
            bytes INTEGER NOT NULL
        );
        INSERT INTO response_totals (id, count, bytes) VALUES (1, 0, 0);
        CREATE TRIGGER responses_counted_on_insert AFTER INSERT ON responses BEGIN
            UPDATE response_totals SET count = count + 1, bytes = bytes + new.stored_bytes WHERE id = 1;
        END;
        CREATE TRIGGER responses_counted_on_delete AFTER DELETE ON responses BEGIN
            UPDATE response_totals SET count = count - 1, bytes = bytes - old.stored_bytes WHERE id = 1;
        END;
        """
    ]

    /// The version this build writes.
    static var latestVersion: Int64 { Int64(steps.count) }

    /// The tables every version since 1 has; checked on open so a stranger's database is refused.
    static let requiredTables: Set<String> = [
        "sessions", "current_session", "responses", "response_tags", "response_totals",
    ]

    /// Brings a read-write store up to `latestVersion` and checks it is ours.
    static func migrate(_ database: Database) throws(StoreError) {
        let version = try check(database)
        guard version < latestVersion else { return }
        try database.writeTransaction { () throws(StoreError) in
            // Read again under the write lock: another process may have migrated meanwhile.
            let current = try check(database)
            for step in steps.dropFirst(Int(current)) {
                try database.execute(step)
            }
            try database.execute("PRAGMA user_version = \(latestVersion)")
        }
        guard try check(database) == latestVersion else {
            throw StoreError.incompatible(
                path: database.path, detail: "the schema did not reach version \(latestVersion)")
        }
    }

    /// Checks a store opened read-only, which cannot migrate: an empty file is no store yet, an
    /// older schema is refused with a hint.
    static func validateReadOnly(_ database: Database) throws(StoreError) {
        let version = try check(database)
        if version == 0 { throw StoreError.missing(path: database.path) }
        guard version == latestVersion else {
            throw StoreError.incompatible(
                path: database.path,
                detail: "schema version \(version) is older than \(latestVersion); any write command upgrades it"
            )
        }
    }

    /// The schema version after checking the database is either empty or ours and not newer.
    /// This is the first read of a new connection, so it is where a text file shows up as
    /// `SQLITE_NOTADB` and a damaged schema page as `SQLITE_CORRUPT`.
    @discardableResult
    static func check(_ database: Database) throws(StoreError) -> Int64 {
        let version = try database.scalarInt("PRAGMA user_version") ?? 0
        let tables = Set(
            try database.column("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
        if version > latestVersion {
            throw StoreError.incompatible(
                path: database.path,
                detail:
                    "schema version \(version) is newer than this userdebug knows (\(latestVersion)); upgrade userdebug"
            )
        }
        if version == 0 {
            guard tables.isEmpty else {
                let names = tables.sorted().joined(separator: ", ")
                throw StoreError.incompatible(
                    path: database.path, detail: "an SQLite database of another program (tables: \(names))")
            }
            return 0
        }
        let missing = requiredTables.subtracting(tables)
        guard missing.isEmpty else {
            throw StoreError.incompatible(
                path: database.path,
                detail: "schema version \(version) but no table \(missing.sorted().joined(separator: ", "))"
            )
        }
        return version
    }
}
