import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The SQLite store of sessions and captured backend responses: one database file in WAL mode,
/// written by the app under development and read by any number of CLI processes at once.
///
/// One instance is one connection. It is `Sendable` so it can be handed to another task, but it
/// is not for concurrent use from several threads: use it from one thread at a time, or open one
/// store per thread (SQLite serializes the writers across connections and processes).
///
/// Every write runs in a `BEGIN IMMEDIATE` transaction, retried while another writer holds the
/// lock, within one busy timeout for the whole write. Reads never wait for a writer: in WAL mode
/// they see the last committed state.
public final class SessionStore: @unchecked Sendable {
    /// Whether `open` may create and migrate the store or only reads what is there.
    public enum Mode: Sendable {
        /// For read commands: opens with `SQLITE_OPEN_READONLY` and never creates the store, its
        /// directory or anything else; a missing store is `StoreError.missing`.
        case readOnly
        /// For write commands: creates the directory (0700) and the file (0600) when missing and
        /// brings the schema up to date.
        case readWrite
    }

    /// The database file's path as `open` was given it (a symbolic link is not resolved); every
    /// `StoreError` of this store names it.
    public let path: String
    /// Problems worth telling the user that do not stop the store from working, e.g.
    /// "/x/userdebug.sqlite3 has mode 0644, looser than 0600". Modes are reported, never changed.
    public private(set) var warnings: [String]
    /// The limits of the response log, applied inside every record transaction (oldest
    /// responses dropped first). Not applied by read-only stores, which cannot write.
    public var retention: RetentionPolicy = RetentionPolicy()

    /// Whether each read sees what was committed since the store was opened: SQLite's own
    /// connection (through `-wal` and `-shm`). False for the views a read-only open falls back on
    /// (an `immutable=1` view of a store without `-wal`, a private copy of one without `-shm`):
    /// those show the store as it was when opened, so only such a store may be kept open and
    /// read again later (the hotkey daemon does).
    public let followsCommits: Bool

    /// The connection; internal so tests can inspect the schema and query plans.
    let database: Database

    private init(path: String, database: Database, warnings: [String], followsCommits: Bool = true) {
        self.path = path
        self.database = database
        self.warnings = warnings
        self.followsCommits = followsCommits
    }

    /// Refuses a store that someone else could change or replace, before anything is read from or
    /// written to it, as ssh refuses such a `~/.ssh`: the store file and its directory (where
    /// SQLite keeps `-wal` and `-shm`) must belong to this user (or root) and be writable by
    /// neither group nor others, and so must the directory the path names when the file is a
    /// symbolic link (the copy of the current session lives there); every directory above them
    /// must belong to this user or root and be writable by others only when sticky (`/tmp`).
    /// Links are resolved. A store that does not exist yet is checked as far as its path exists,
    /// which decides whether it is safe to create. Read bits stay warnings (`permissionWarnings`).
    /// - Returns: `permissionWarnings(path:)`, from the same look at the files when it can.
    /// - Throws: `StoreError.untrusted` naming the path at fault and the fix.
    @discardableResult
    public static func checkTrust(path: String) throws(StoreError) -> [String] {
        let examination = FileTrust.examine(path, ownLevels: 2)
        if let problem = examination.problem {
            throw StoreError.untrusted(path: path, problem: problem.description)
        }
        guard let modes = examination.modes else { return permissionWarnings(path: path) }
        return [
            FileSystem.loosenessWarning(FileSystem.directory(of: path), mode: modes.directory, allowed: 0o700),
            FileSystem.loosenessWarning(path, mode: modes.path, allowed: 0o600),
        ].compactMap { $0 }
    }

    /// What `open` warns about: a store directory or file that others may read.
    public static func permissionWarnings(path: String) -> [String] {
        [
            FileSystem.loosenessWarning(FileSystem.directory(of: path), allowed: 0o700),
            FileSystem.loosenessWarning(path, allowed: 0o600),
        ].compactMap { $0 }
    }

    /// Opens the store at `path`.
    ///
    /// - Parameters:
    ///   - path: The database file, e.g. `UserDebugPaths.databasePath`; its directory holds the
    ///     `-wal` and `-shm` files too.
    ///   - mode: `.readOnly` creates nothing and needs an existing store; `.readWrite` creates the
    ///     directory and file when missing and brings the schema up to date.
    ///   - busyTimeoutMilliseconds: How long one write waits for another process's write lock,
    ///     its retries included; reads in WAL mode do not wait for writers.
    /// - Returns: The store, its `warnings` filled in (loose permissions, a private copy read).
    /// - Throws: `.missing` (read-only, no store yet), `.isDirectory`, `.notADatabase`,
    ///   `.corrupt`, `.incompatible` (another program's database or a newer schema),
    ///   `.readOnly` (read-write open of a read-only file or directory), `.permissionDenied`,
    ///   `.untrusted` (see `checkTrust`).
    public static func open(path: String, mode: Mode, busyTimeoutMilliseconds: Int32 = 5000) throws(StoreError)
        -> SessionStore
    {
        let directory = FileSystem.directory(of: path)
        if let status = FileStatus(path: path) {
            if status.isDirectory { throw StoreError.isDirectory(path: path) }
        } else {
            let code = errno
            if code == EACCES { throw StoreError.permissionDenied(path: path) }
            guard mode == .readWrite else { throw StoreError.missing(path: path) }
            // Whether the directories that exist are safe to create the rest in.
            try checkTrust(path: path)
            try FileSystem.createDirectories(directory)
            try FileSystem.createFileIfMissing(path)
        }
        let warnings = try checkTrust(path: path)

        switch mode {
        case .readOnly:
            let opened = try openForReading(path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            return SessionStore(
                path: path, database: opened.database, warnings: warnings + opened.warnings,
                followsCommits: opened.followsCommits)
        case .readWrite:
            let database = try Database(path: path, readOnly: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            do {
                try prepareForWriting(database)
            } catch {
                // SQLite names the -shm it could not create ("No such file or directory"): the
                // store is read-only where it lies (an immutable or read-only directory).
                let walFilesMissing = FileStatus(path: path + "-wal") == nil || FileStatus(path: path + "-shm") == nil
                if walFilesMissing && !FileSystem.isWritableDirectory(directory) {
                    throw StoreError.readOnly(path: path)
                }
                throw error
            }
            // Before the first write: are the pages whole (StoreHealth)? Stamped again on close.
            try StoreHealth.verify(database)
            database.stampHealthOnClose = true
            return SessionStore(path: path, database: database, warnings: warnings)
        }
    }

    /// Connection settings and schema for a writer.
    private static func prepareForWriting(_ database: Database) throws(StoreError) {
        // SQLite silently opens read-only when a read-write open is refused (an immutable file,
        // a read-only mount); say so now rather than at the first write.
        if database.fileIsReadOnly { throw StoreError.readOnly(path: database.path) }
        // synchronous=NORMAL in WAL mode loses no committed transaction on a process crash and
        // keeps the database consistent on power loss; it only skips an fsync per commit.
        // journal_size_limit keeps the WAL file from staying at its largest size.
        try database.execute(
            "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 4194304")
        // Keep -wal and -shm after the last connection closes, so that a read-only reader finds
        // them: a reader cannot create them in a directory it may not write (SQLite ≥ 3.22 reads
        // a WAL database through existing read-only -wal/-shm files, but cannot do without them).
        database.setFileControl(SQLITE_FCNTL_PERSIST_WAL, to: 1)
        try enableWAL(database)
        try Migrations.migrate(database)
    }

    /// Switches the file to WAL mode once (the mode is stored in the file). The switch needs an
    /// exclusive lock, so it is retried like a write transaction when another process is busy.
    private static func enableWAL(_ database: Database) throws(StoreError) {
        try database.retryingWhileBusy { () throws(StoreError) in
            if try database.scalarText("PRAGMA journal_mode")?.lowercased() == "wal" { return }
            let mode = try database.scalarText("PRAGMA journal_mode = WAL")?.lowercased()
            guard mode == "wal" else {
                throw StoreError.io(
                    path: database.path, detail: "cannot switch to WAL mode (journal mode stays \(mode ?? "unknown"))")
            }
        }
    }

    /// Runs SQLite's `PRAGMA integrity_check` and returns the problems it finds; empty when the
    /// store is intact. Only the tests call it, after crashes and concurrent writers.
    public func integrityCheck() throws(StoreError) -> [String] {
        let lines = try database.column("PRAGMA integrity_check")
        return lines == ["ok"] ? [] : lines
    }
}
