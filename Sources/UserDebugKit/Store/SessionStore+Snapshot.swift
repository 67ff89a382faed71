/// Reading a store whose `-wal` or `-shm` file is missing in a directory that cannot be written.
///
/// SQLite (≥ 3.22) reads a WAL database read-only only when its `-wal` and `-shm` files exist or
/// can be created. Writers keep both files (`SQLITE_FCNTL_PERSIST_WAL`), so this only happens for
/// a store copied or restored without them onto read-only media or into an immutable directory.
/// `immutable=1` is not an option (it ignores locks and a WAL that another process may still
/// write). Instead the reader copies the database (and the `-wal`, when there is one) into a
/// private temporary directory and reads that copy; the copy is consistent because without the
/// `-shm` no WAL writer can be at work in that directory. The copy is deleted on close, and the
/// store's `warnings` say that it was read.
extension SessionStore {
    /// Whether `error` from a read-only open is the missing-`-wal`/`-shm` case above.
    static func needsSnapshot(_ path: String, after error: StoreError) -> Bool {
        switch error {
        case .io, .readOnly:
            let directory = FileSystem.directory(of: path)
            let filesMissing = FileStatus(path: path + "-wal") == nil || FileStatus(path: path + "-shm") == nil
            return filesMissing && !FileSystem.isWritableDirectory(directory)
        default:
            return false
        }
    }

    /// A read-only connection to a private copy of the store at `path`; errors still name `path`.
    /// When the copy cannot be made, the `original` error is the one worth reporting.
    static func openSnapshot(of path: String, busyTimeoutMilliseconds: Int32, original: StoreError) throws(StoreError)
        -> Database
    {
        let directory: String
        do {
            directory = try FileSystem.makeTemporaryDirectory(for: path)
        } catch {
            throw original
        }
        let copy = directory + "/userdebug.sqlite3"
        do {
            try FileSystem.copyFile(path, to: copy)
            if FileStatus(path: path + "-wal") != nil {
                try FileSystem.copyFile(path + "-wal", to: copy + "-wal")
            }
            let database = try Database(
                path: path, file: copy, readOnly: true, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            database.removeOnClose = directory
            try Migrations.validateReadOnly(database)
            return database
        } catch {
            FileSystem.removeDirectory(directory)
            throw error
        }
    }
}
