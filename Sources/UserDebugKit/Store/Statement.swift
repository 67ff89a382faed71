import CSQLite

/// A value bound to a statement parameter.
enum SQLValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A prepared statement that finalizes itself when the last reference goes away, so no code path
/// (an early `throw` included) can leak one and keep the connection from closing.
///
/// It keeps no reference to its `Database`: `sqlite3_close_v2` defers the close until every
/// statement is finalized, so either may go first, and the database's statement cache does not
/// form a cycle.
final class Statement {
    /// The SQL it was prepared from, carried into errors.
    let sql: String
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    private let path: String

    init(sql: String, connection: OpaquePointer, path: String) throws(StoreError) {
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw StoreError.from(connection: connection, code: code, path: path, sql: sql)
        }
        self.sql = sql
        self.handle = prepared
        self.connection = connection
        self.path = path
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears the previous run and bindings so a cached statement starts fresh.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1, 2, … in order.
    func bind(_ values: [SQLValue]) throws(StoreError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    private func bind(_ value: SQLValue, at index: Int32) throws(StoreError) {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let number):
            code = sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            code = sqlite3_bind_double(handle, index, number)
        case .text(let text):
            // An explicit byte count keeps text with NUL characters whole; an empty buffer has no
            // base address and would bind NULL, so it gets a real empty C string instead.
            var text = text
            code = text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, userdebug_sqlite_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(bytes.count), userdebug_sqlite_transient())
                }
            }
        case .blob(let bytes):
            // A zero-length blob, not NULL, for an empty body (a nil pointer would bind NULL).
            if bytes.isEmpty {
                code = sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                code = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), userdebug_sqlite_transient())
                }
            }
        }
        guard code == SQLITE_OK else { throw failure(code) }
    }

    /// Runs one step: true when a row is available, false when the statement is done.
    @discardableResult
    func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw failure(code)
        }
    }

    /// Whether column `index` of the current row is NULL.
    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` of the current row as an integer.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as an integer, nil when NULL.
    func optionalInt64(_ index: Int32) -> Int64? {
        isNull(index) ? nil : int64(index)
    }

    /// Column `index` as a real, nil when NULL.
    func optionalDouble(_ index: Int32) -> Double? {
        isNull(index) ? nil : sqlite3_column_double(handle, index)
    }

    /// Column `index` as text (empty for NULL).
    func text(_ index: Int32) -> String {
        // Pointer first, then the byte count: the documented order, since fetching the text may
        // convert the value and change its length.
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` as text, nil when NULL.
    func optionalText(_ index: Int32) -> String? {
        isNull(index) ? nil : text(index)
    }

    /// Column `index` as bytes (empty for NULL or a zero-length blob).
    func blob(_ index: Int32) -> [UInt8] {
        guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// How many columns a row of this statement has.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Column `index` as the value it is stored as (copying a row as it is).
    func value(_ index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: .text(text(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .null
        }
    }

    private func failure(_ code: Int32) -> StoreError {
        StoreError.from(connection: connection, code: code, path: path, sql: sql)
    }
}
