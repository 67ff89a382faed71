import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

extension StoreError {
    /// The typed error for an SQLite result `code` from `connection`, naming `path`.
    ///
    /// Extended codes are reduced to their primary code (`SQLITE_BUSY_SNAPSHOT` is a busy,
    /// `SQLITE_READONLY_DIRECTORY` a read-only). The operating system's errno is consulted for
    /// `SQLITE_CANTOPEN`, which SQLite uses for a directory, a permission problem and a missing
    /// parent alike.
    static func from(connection: OpaquePointer?, code: Int32, path: String, sql: String?) -> StoreError {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        let systemErrno = connection.map { sqlite3_system_errno($0) } ?? 0
        switch code & 0xff {
        case SQLITE_NOTADB:
            return .notADatabase(path: path)
        case SQLITE_CORRUPT:
            StoreHealth.noteCorruption(path)
            return .corrupt(path: path, detail: message)
        case SQLITE_READONLY:
            return .readOnly(path: path)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return .busy(path: path)
        case SQLITE_PERM, SQLITE_AUTH:
            return .permissionDenied(path: path)
        case SQLITE_CANTOPEN:
            if FileStatus(path: path)?.isDirectory == true { return .isDirectory(path: path) }
            return StoreError.from(errno: systemErrno, path: path, fallback: message)
        case SQLITE_IOERR, SQLITE_FULL:
            let detail = systemErrno != 0 ? "\(message): \(String(cString: strerror(systemErrno)))" : message
            return .io(path: path, detail: detail)
        default:
            return .sqlite(path: path, code: code, message: message, sql: sql)
        }
    }

    /// The typed error for a failed system call on `path`.
    static func from(errno code: Int32, path: String, fallback: String? = nil) -> StoreError {
        switch code {
        case EACCES:
            return .permissionDenied(path: path)
        case EPERM, EROFS:
            // EPERM is what an immutable (chattr +i) file or directory answers, even to root.
            return .readOnly(path: path)
        case EISDIR:
            return .isDirectory(path: path)
        case 0:
            return .io(path: path, detail: fallback ?? "unknown error")
        default:
            return .io(path: path, detail: String(cString: strerror(code)))
        }
    }
}
