#if canImport(Glibc)
    import Glibc
#endif

/// Watches the store's directory with inotify and tells whether an event concerned the store's
/// files (the database, its `-wal`, `-shm`, `-journal` and the current-session copy `-current`
/// all start with the database's name), so the daemon makes its hotkeys' payloads again ahead of
/// the next press (`PreparedPayloads`). The events only say when to look: whether a prepared
/// payload may be served is decided by the store's fingerprint at the press.
struct StoreWatch {
    /// The inotify descriptor to poll.
    let descriptor: Int32
    private let directory: String
    private let prefix: String

    /// An inotify descriptor for the directory of `databasePath`; nil when inotify is unavailable.
    /// A directory that does not exist yet is watched by `rewatch` once it does.
    static func start(databasePath path: String) -> StoreWatch? {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let prefix = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        let watch = StoreWatch(descriptor: fd, directory: directory, prefix: prefix)
        watch.rewatch()
        return watch
    }

    /// Watches the directory the path names now (another directory renamed into place is a new
    /// one to inotify); watching the same one again changes nothing.
    func rewatch() {
        let mask = UInt32(
            IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_MOVE_SELF
                | IN_DELETE_SELF)
        _ = inotify_add_watch(descriptor, directory, mask)
    }

    /// Whether no event is queued (one poll, not read): nothing in the directory was written,
    /// created, renamed or removed since the last `drain` — the kernel queues an event before the
    /// write that caused it returns, so a `session use` that ended before a key press is seen.
    func quiet() -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Reads every queued event; true when one named a file of the store.
    func drain() -> Bool {
        let prefixBytes = Array(prefix.utf8)
        return drainInotify(descriptor) { $0.starts(with: prefixBytes) }
    }
}
