import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a write may trust that the store's pages are whole, without checking them all on
/// every write.
///
/// A write touches only the pages it changes, so SQLite lets it commit into a file whose other
/// pages are garbage (a disk fault, a tool writing over the middle of the file). Before its first
/// write, a read-write open compares the database file with the *health stamp* beside it
/// (`<store>-checked`: device, inode, size and modification time of the file when it was last
/// known whole). When they match, nothing is read; otherwise it runs `PRAGMA quick_check` (every
/// page) and refuses the write with `StoreError.corrupt` (exit 74, naming
/// `userdebug doctor`) when anything is wrong. A connection that met no damage writes the stamp
/// again when it closes, after SQLite's last checkpoint, so the next write of this user's tools
/// reads nothing either; another program's writes (the sqlite3 shell) or a fault change the
/// file's time and cost one check. Any `SQLITE_CORRUPT` seen in this process removes the stamp.
enum StoreHealth {
    /// The stamp's path for the store at `path`.
    static func stampPath(_ path: String) -> String { path + "-checked" }

    /// The database file's identity and last change, as the stamp holds it; nil when it cannot
    /// be read.
    static func fingerprint(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let time = "\(status.st_mtim.tv_sec) \(status.st_mtim.tv_nsec)"
        return "1 \(status.st_dev) \(status.st_ino) \(status.st_size) \(time)"
    }

    /// Whether the stamp says the file is as it was when last known whole.
    static func isStamped(_ path: String) -> Bool {
        guard let current = fingerprint(path), let stamp = FileSystem.readPrivateFile(stampPath(path)) else {
            return false
        }
        return stamp == Array((current + "\n").utf8)
    }

    /// Checks every page when the stamp does not vouch for the file, and stamps it when whole.
    /// - Throws: `.corrupt` naming the first problem `quick_check` reports.
    static func verify(_ database: Database) throws(StoreError) {
        let path = database.path
        if isStamped(path) { return }
        let problems = try database.column("PRAGMA quick_check(5)")
        guard problems == ["ok"] else {
            noteCorruption(path)
            let first = problems.first ?? "quick_check gave no answer"
            throw StoreError.corrupt(path: path, detail: "quick_check: \(first)")
        }
        stamp(path)
    }

    /// Writes the stamp for the file as it is now (0600, replaced whole by a rename), unless
    /// this process has seen the store damaged. Failures leave no stamp, which only costs a check.
    static func stamp(_ path: String) {
        guard !damaged.withLock({ $0.contains(path) }), let current = fingerprint(path) else {
            unlink(stampPath(path))
            return
        }
        FileSystem.replacePrivateFile(stampPath(path), with: Array((current + "\n").utf8))
    }

    /// Records that `path` answered `SQLITE_CORRUPT` in this process, and removes its stamp, so
    /// that no later write trusts it before a full check.
    static func noteCorruption(_ path: String) {
        damaged.withLock { _ = $0.insert(path) }
        unlink(stampPath(path))
    }

    /// The stores this process has seen damaged.
    private static let damaged = Mutex<Set<String>>([])
}
