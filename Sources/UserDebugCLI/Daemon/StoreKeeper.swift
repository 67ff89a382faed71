import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The store's read-only connection, kept open by the daemon from one key press to the next:
/// opening SQLite and its first read is most of what a press that misses the current-session copy
/// costs, and every `session use` before a press makes it miss.
///
/// A kept connection is as good as a new one while it reads the file the store's path names: a
/// SQLite connection sees every commit made since (each read starts a new read transaction through
/// `-wal` and `-shm`). So it is kept only when it is such a connection (`followsCommits`: not the
/// immutable view or private copy a read-only open falls back on), and used again only while the
/// database file is still the same: the device, inode, size and modification time it had when
/// the connection was opened, taken as `CurrentSessionCache` takes them. A store renamed into
/// place, moved away, or written by anything but SQLite (a commit in WAL mode leaves the file
/// alone; a checkpoint rewrites it, and the store is then opened again) gets a new connection,
/// or the error a new open gives. The trust check runs on every press, as a new open makes it (once).
final class StoreKeeper {
    private var kept: (store: SessionStore, stamp: String)?

    /// The kept connection to `path` while it is still the store there; otherwise a new one,
    /// kept for the next press when it can be.
    /// `trusted`: the caller ran `SessionStore.checkTrust` on `path` in this command already.
    /// - Throws: what `SessionStore.open` throws (the store missing, damaged, untrusted…).
    func store(path: String, busyTimeoutMilliseconds: Int32, trusted: Bool = false) throws -> SessionStore {
        let stamp = Self.stamp(of: path)
        if let kept, let stamp, kept.stamp == stamp, kept.store.path == path {
            if !trusted { _ = try SessionStore.checkTrust(path: path) }
            return kept.store
        }
        kept = nil  // closes the old connection
        let store = try SessionStore.open(path: path, mode: .readOnly, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        // The file must not have changed while it was opened, or the stamp would be a later file's.
        if store.followsCommits, let stamp, Self.stamp(of: path) == stamp { kept = (store, stamp) }
        return store
    }

    /// Closes the kept connection (a config reload starts afresh).
    func drop() { kept = nil }

    /// The database file's device, inode, size and modification time; nil when it cannot be examined.
    static func stamp(of path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let mtime = status.st_mtim
        return "\(status.st_dev):\(status.st_ino):\(status.st_size):\(mtime.tv_sec).\(mtime.tv_nsec)"
    }
}
