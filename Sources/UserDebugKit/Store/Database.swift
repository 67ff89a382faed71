import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite connection: opening, configuration, cached statements and write transactions.
///
/// Only `Store/` sees it; the handle never leaves this type and `Statement`. Not for use from
/// several threads at once (neither is the `SessionStore` that owns it).
final class Database {
    /// The database file, named in every error.
    let path: String
    /// A directory to delete after closing: the private copy a read-only snapshot was read from.
    var removeOnClose: String?
    /// Whether the connection was opened with `SQLITE_OPEN_READONLY`.
    let isReadOnly: Bool
    /// A descriptor closed after the connection: the one holding the shared lock of an
    /// immutable view (`SessionStore.openWithoutWAL`).
    var closeOnClose: Int32?
    /// Whether closing writes the store's health stamp (`StoreHealth`): set by a read-write open
    /// that found the pages whole.
    var stampHealthOnClose = false
    private let handle: OpaquePointer
    private var cache: [String: Statement] = [:]

    /// How long one write may wait for other writers in all: every attempt of
    /// `retryingWhileBusy` and the busy waits inside SQLite share this one budget.
    let busyTimeoutMilliseconds: Int32
    /// How many attempts the last `retryingWhileBusy` made (the tests count them: a write that
    /// waited its whole budget in SQLite's busy handler must not start over).
    private(set) var lastWriteAttempts = 0

    /// Opens the existing file at `file` (SQLite is never allowed to create it: the store
    /// creates it itself with mode 0600 first, and a reader must not create anything). Errors
    /// name `path`, which differs from `file` only for a snapshot copy or a `uri` (`file:` names
    /// with query parameters, e.g. `immutable=1`).
    init(
        path: String, file: String? = nil, uri: Bool = false, readOnly: Bool, busyTimeoutMilliseconds: Int32
    ) throws(StoreError) {
        var opened: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_FULLMUTEX
            | (uri ? SQLITE_OPEN_URI : 0)
        let code = sqlite3_open_v2(file ?? path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let error = StoreError.from(connection: opened, code: code, path: path, sql: nil)
            sqlite3_close_v2(opened)
            throw error
        }
        self.path = path
        self.isReadOnly = readOnly
        self.handle = opened
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        sqlite3_extended_result_codes(opened, 1)
        sqlite3_busy_timeout(opened, busyTimeoutMilliseconds)
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
        if stampHealthOnClose { StoreHealth.stamp(path) }
        if let closeOnClose { close(closeOnClose) }
        if let removeOnClose { FileSystem.removeDirectory(removeOnClose) }
    }

    /// Runs `sql`, which may hold several statements and must return no rows that matter.
    func execute(_ sql: String) throws(StoreError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
    }

    /// A prepared statement for `sql`, reset and reused across calls (the record loop of a bulk
    /// fill must not parse the same SQL a million times).
    func statement(_ sql: String) throws(StoreError) -> Statement {
        if let cached = cache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(sql: sql, connection: handle, path: path)
        cache[sql] = statement
        return statement
    }

    /// Runs `sql` with `values` and hands the statement to `body` to step through, resetting it
    /// afterwards: a statement left mid-result would hold its read snapshot open, which blocks
    /// checkpoints and makes this connection's next write transaction fail as busy.
    func query<T>(
        _ sql: String, _ values: [SQLValue] = [], _ body: (Statement) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        return try body(statement)
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) {
        try query(sql, values) { (statement) throws(StoreError) in
            while try statement.step() {}
        }
    }

    /// The first column of the first row of `sql` as text, nil when there is no row.
    func scalarText(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> String? {
        try query(sql, values) { (statement) throws(StoreError) in
            try statement.step() ? statement.optionalText(0) : nil
        }
    }

    /// The first column of the first row of `sql` as an integer, nil when there is no row.
    func scalarInt(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> Int64? {
        try query(sql, values) { (statement) throws(StoreError) in
            try statement.step() ? statement.optionalInt64(0) : nil
        }
    }

    /// Every row of `sql`'s first column as text.
    func column(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> [String] {
        try query(sql, values) { (statement) throws(StoreError) in
            var rows: [String] = []
            while try statement.step() { rows.append(statement.text(0)) }
            return rows
        }
    }

    /// Writes `bytes` into the blob at `table.column` of row `row`, which must already be a blob
    /// of exactly that length (`zeroblob(N)`), a megabyte at a time: SQLite copies only what it
    /// writes to its pages, never the whole value.
    func writeBlob(_ bytes: [UInt8], table: String, column: String, row: Int64) throws(StoreError) {
        var blob: OpaquePointer?
        var code = sqlite3_blob_open(handle, "main", table, column, row, 1, &blob)
        guard code == SQLITE_OK, let blob else { throw error(code, sql: "blob \(table).\(column) of row \(row)") }
        defer { sqlite3_blob_close(blob) }
        let chunk = 1 << 20
        var offset = 0
        while offset < bytes.count, code == SQLITE_OK {
            let count = min(chunk, bytes.count - offset)
            code = bytes.withUnsafeBytes {
                sqlite3_blob_write(blob, $0.baseAddress! + offset, Int32(count), Int32(offset))
            }
            offset += count
        }
        guard code == SQLITE_OK else { throw error(code, sql: "blob \(table).\(column) of row \(row)") }
    }

    /// Reads the blob in `column` of `row` a chunk of at most `chunk` bytes at a time
    /// (sqlite3_blob_read: the value is never held whole, by SQLite or by us), handing each to
    /// `consume`. A row deleted meanwhile ends the reading with SQLITE_ABORT, thrown.
    func readBlob(
        table: String, column: String, row: Int64, chunk: Int = 1 << 20,
        _ consume: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var blob: OpaquePointer?
        var code = sqlite3_blob_open(handle, "main", table, column, row, 0, &blob)
        guard code == SQLITE_OK, let blob else { throw error(code, sql: "blob \(table).\(column) of row \(row)") }
        defer { sqlite3_blob_close(blob) }
        let total = Int(sqlite3_blob_bytes(blob))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, min(chunk, total)), alignment: 1)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < total {
            let count = min(buffer.count, total - offset)
            code = sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), Int32(offset))
            guard code == SQLITE_OK else { throw error(code, sql: "blob \(table).\(column) of row \(row)") }
            try consume(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += count
        }
    }

    /// The rowid of the last insert on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether SQLite itself opened the file read-only (it falls back silently when a read-write
    /// open is refused, e.g. for an immutable file).
    var fileIsReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction and commits it, or rolls it back on error.
    ///
    /// IMMEDIATE takes the write lock up front, where the busy timeout applies; a deferred
    /// transaction that reads and then writes would fail at once with SQLITE_BUSY when another
    /// writer committed in between. On BUSY the whole transaction (body included) starts over
    /// while the busy timeout lasts (one budget for all attempts), after which `.busy` names the
    /// file.
    func writeTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try retryingWhileBusy { () throws(StoreError) -> T in
            do throws(StoreError) {
                try execute("BEGIN IMMEDIATE")
                let result = try body()
                try execute("COMMIT")
                return result
            } catch {
                rollbackIfNeeded()
                throw error
            }
        }
    }

    /// Runs `attempt`, and again after it failed as `.busy`, until `busyTimeoutMilliseconds`
    /// have passed since the first attempt began; any other error, and the `.busy` that meets the
    /// deadline, is thrown. Each attempt gives SQLite's busy handler only what is left of the
    /// budget, so a write waits the documented timeout once, not once per attempt. The retries
    /// cover the busy results the handler is never asked about (a WAL snapshot that went stale, a
    /// recovery running). The store's one busy-retry loop (write transactions, the switch to
    /// WAL); `attempt` must leave nothing half done when it throws.
    func retryingWhileBusy<T>(_ attempt: () throws(StoreError) -> T) throws(StoreError) -> T {
        let deadline = monotonicSeconds() + Double(busyTimeoutMilliseconds) / 1000
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        var attempts = 0
        while true {
            attempts += 1
            lastWriteAttempts = attempts
            let left = deadline - monotonicSeconds()
            sqlite3_busy_timeout(handle, Int32(max(0, (left * 1000).rounded(.up))))
            do throws(StoreError) {
                return try attempt()
            } catch {
                // A short, growing pause lets the other writer finish before the next attempt.
                let pause = 0.01 * Double(min(attempts, 10))
                guard case .busy = error, deadline - monotonicSeconds() > pause else { throw error }
                usleep(UInt32(pause * 1e6))
            }
        }
    }

    /// Runs `body` in one read transaction, so several statements see one snapshot.
    func readTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN")
        do throws(StoreError) {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Sets a file-control integer on the main database (e.g. `SQLITE_FCNTL_PERSIST_WAL`).
    func setFileControl(_ operation: Int32, to value: Int32) {
        var value = value
        sqlite3_file_control(handle, "main", operation, &value)
    }

    private func rollbackIfNeeded() {
        if sqlite3_get_autocommit(handle) == 0 {
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        }
    }

    /// The typed error for `code` returned by this connection.
    func error(_ code: Int32, sql: String?) -> StoreError {
        StoreError.from(connection: handle, code: code, path: path, sql: sql)
    }
}
