#if canImport(Glibc)
    import Glibc
#endif

/// Watches the config file's directory with inotify (editors replace the file rather than write
/// it in place) and tells whether an event concerned the file.
struct ConfigWatch {
    /// The inotify descriptor to poll (-1 when the directory could not be watched).
    let descriptor: Int32
    private let name: String

    /// Watches the directory of `path`; nil with the reason when it cannot (no such directory).
    static func start(path: String) -> (watch: ConfigWatch?, problem: String?) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return (nil, "inotify: " + String(cString: strerror(errno))) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return (nil, "cannot watch \(directory): \(reason)")
        }
        return (ConfigWatch(descriptor: fd, name: name), nil)
    }

    /// Reads every queued event; true when one named the config file.
    func drain() -> Bool {
        drainInotify(descriptor) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) == name }
    }
}

/// Reads every event queued on the inotify `descriptor` (non-blocking); true when `matches` holds
/// for the name of one (its bytes after the event's header, NUL padding included). The config's
/// and the store's watches share it.
func drainInotify(_ descriptor: Int32, matching matches: (ArraySlice<UInt8>) -> Bool) -> Bool {
    var touched = false
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return touched }
        var offset = 0
        // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
        while offset + 16 <= count {
            let length = buffer[offset + 12..<offset + 16].reversed().reduce(0) { $0 << 8 | Int($1) }
            let start = offset + 16
            if matches(buffer[start..<min(start + length, count)]) { touched = true }
            offset = start + length
        }
    }
}
