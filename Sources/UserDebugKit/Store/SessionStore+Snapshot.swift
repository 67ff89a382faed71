#if canImport(Glibc)
    import Glibc
#endif

/// Reading a store whose `-wal` or `-shm` file is missing, without creating either.
///
/// SQLite reads a WAL database, even read-only, through its `-wal` and `-shm` files, and creates
/// them when they are missing: owned by whoever reads, and left behind. Writers keep both files
/// (`SQLITE_FCNTL_PERSIST_WAL`), so they are missing only after another program (the sqlite3
/// shell) closed the store, or for a store copied or restored without them. A read never creates
/// a file, so:
///
/// - no `-wal`: nothing is committed outside the database file, so it is read as it is, with
///   `immutable=1` (no `-wal`, no `-shm`, no locks of SQLite's own). What `immutable=1` gives
///   up is the protection of a read from a writer that starts meanwhile; an OFD read lock on the
///   database's shared-lock bytes, held as long as the connection, gives it back: a writer that
///   starts now commits into a new `-wal` (not read: the view is the state when it began) and
///   cannot checkpoint into the database file on close, which needs the exclusive lock. Not
///   guarded: a writer that commits 1,000 pages (about 4 MB) into that new `-wal` while the view
///   is still read checkpoints them without any lock on the database file; the view may then
///   read a page of a later state, which SQLite reports as corrupt (the command fails; trying
///   again reads through the `-wal`).
/// - a `-wal` but no `-shm`: the reader copies the database and the `-wal` into a private
///   temporary directory and reads that copy; the copy is consistent because without the `-shm`
///   no WAL writer can be at work. The copy is deleted on close, and the store's `warnings` say
///   that it was read.
///
/// An empty `-wal` or `-shm` counts as missing when the database file grants more than 0600:
/// SQLite opens both with O_CREAT and gives an empty one the database file's mode (os_unix.c,
/// `robust_open`), so its reader would turn the empty 0600 `-wal` writers keep into a 0644 one.
/// An empty `-wal` holds no commit (its header alone is 32 bytes) and an empty `-shm` was set up
/// by no connection, so the reasons above hold for them as for missing files.
extension SessionStore {
    /// SQLite's lock bytes (os_unix.c): a shared lock is a read lock on these 510 bytes from
    /// 2 past the pending byte at 1 GiB; an exclusive lock is a write lock on them.
    private static let sharedLockFirst: off_t = 0x4000_0002
    private static let sharedLockSize: off_t = 510
    /// F_OFD_SETLK (Linux ≥ 3.15): a lock owned by the open file, not the process, so closing
    /// another descriptor of the file (SQLite's own) does not drop it.
    private static let setOpenFileDescriptionLock: Int32 = 37

    /// The read-only connection for the store at `path`, which exists: an immutable view when
    /// there is no `-wal`, a private copy when there is no `-shm`, else SQLite's own reader.
    static func openForReading(_ path: String, busyTimeoutMilliseconds: Int32) throws(StoreError) -> (
        database: Database, warnings: [String], followsCommits: Bool
    ) {
        // SQLite keeps -wal and -shm beside the file a symbolic link leads to: look there.
        let files = resolvedPath(path)
        let looser = (FileStatus(path: files)?.permissions ?? 0) & 0o077 != 0
        if isAbsent(files + "-wal", looser: looser),
            let view = try openWithoutWAL(path, looser: looser, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        {
            return (view, [], false)
        }
        if isAbsent(files + "-shm", looser: looser) {
            let database = try openSnapshot(of: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            return (
                database,
                [
                    "read a private copy of \(path): \(path)-shm is "
                        + (FileStatus(path: files + "-shm") == nil
                            ? "missing" : "empty beside a store looser than 0600")
                        + " and a read creates no file"
                ], false
            )
        }
        let database = try Database(path: path, readOnly: true, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try Migrations.validateReadOnly(database)
        return (database, [], true)
    }

    /// An `immutable=1` connection to `path` under an OFD shared lock (see above); nil when a
    /// `-wal` appeared (`looser`: or got frames) before the lock was held (SQLite's own reader
    /// then finds both files).
    /// - Throws: `.busy` when another process holds the exclusive lock past the busy timeout.
    static func openWithoutWAL(_ path: String, looser: Bool = false, busyTimeoutMilliseconds: Int32) throws(StoreError)
        -> Database?
    {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError.from(errno: errno, path: path) }
        var lock = flock()
        lock.l_type = Int16(F_RDLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = sharedLockFirst
        lock.l_len = sharedLockSize
        let deadline = monotonicSeconds() + Double(busyTimeoutMilliseconds) / 1000
        while fcntl(descriptor, setOpenFileDescriptionLock, &lock) != 0 {
            let code = errno
            guard code == EAGAIN || code == EACCES, monotonicSeconds() < deadline else {
                close(descriptor)
                let held = code == EAGAIN || code == EACCES
                throw held ? StoreError.busy(path: path) : StoreError.from(errno: code, path: path)
            }
            usleep(10_000)
        }
        guard isAbsent(resolvedPath(path) + "-wal", looser: looser) else {
            close(descriptor)
            return nil
        }
        let database: Database
        do {
            database = try Database(
                path: path, file: "file:" + percentEncoded(path) + "?immutable=1", uri: true, readOnly: true,
                busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        } catch {
            close(descriptor)
            throw error
        }
        database.closeOnClose = descriptor
        try Migrations.validateReadOnly(database)
        return database
    }

    /// Whether the `-wal` or `-shm` at `path` is to be read around: missing, or empty beside a
    /// database file whose mode (`looser` than 0600) SQLite would give it.
    private static func isAbsent(_ path: String, looser: Bool) -> Bool {
        guard let status = FileStatus(path: path) else { return true }
        return looser && status.size == 0
    }

    /// `path` with its symbolic links resolved, as SQLite resolves it to name `-wal` and `-shm`;
    /// `path` itself when it cannot be resolved.
    private static func resolvedPath(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// `path` for a `file:` URI: every byte but unreserved ones and `/` percent-encoded.
    private static func percentEncoded(_ path: String) -> String {
        var text = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += "%" + String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
            }
        }
        return text
    }
    /// A read-only connection to a private copy of the store at `path`; errors still name `path`.
    static func openSnapshot(of path: String, busyTimeoutMilliseconds: Int32) throws(StoreError) -> Database {
        let directory = try FileSystem.makeTemporaryDirectory(for: path)
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
