import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// What a running daemon says about its keys, for `doctor`: a small JSON file beside its lock
/// (`userdebug-daemon-DISPLAY.status`), written after every grab into a new 0600 file that is
/// renamed over the old one (a reader sees the old file or the new one, never half of one).
///
/// A reader believes it only when it is a regular file of ours, open to nobody else, with one
/// link, and names the pid that holds the daemon's lock (`DaemonLock.holder`): a file left by a
/// daemon that died, or planted by someone else, says nothing.
struct DaemonStatus: Equatable {
    /// One binding of the config: its key as written, its action, and why it is not grabbed.
    struct Key: Equatable {
        var key: String
        var action: String
        /// nil when the daemon holds the key; else why not (`is taken by another program`).
        var problem: String?
    }

    var pid: Int32
    var display: String
    var configFile: String
    var keys: [Key]

    /// The largest status file read.
    static let maxSize = 1 << 16

    /// The status file beside `lockPath` (`…/userdebug-daemon-:5.lock` → `….status`).
    static func path(lockPath: String) -> String {
        (lockPath.hasSuffix(".lock") ? String(lockPath.dropLast(5)) : lockPath) + ".status"
    }

    var json: JSONValue {
        let keys = keys.map { key in
            JSONValue.object(
                JSONObject([
                    "key": .string(key.key), "action": .string(key.action),
                    "problem": key.problem.map(JSONValue.string) ?? .null,
                ]))
        }
        return .object(
            JSONObject([
                "pid": .number(String(pid)), "display": .string(display), "config": .string(configFile),
                "keys": .array(keys),
            ]))
    }

    /// Writes the status to `path` whole: a new file of ours (0600, never through a link), then
    /// renamed over the old one. The reason when it could not be written.
    func write(to path: String) -> String? {
        let temporary = path + ".\(getpid()).new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "cannot create \(temporary): \(String(cString: strerror(errno)))" }
        let bytes = Array((JSONWriter().string(json) + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                return "cannot write \(temporary): \(reason)"
            }
            written += count
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return "cannot rename \(temporary) to \(path): \(reason)"
        }
        return nil
    }

    /// The status at `path` when it is a file of ours alone and names `holder`, the pid holding
    /// the lock; else why it is not believed.
    static func read(path: String, holder: Int32) -> Result<DaemonStatus, Refusal> {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(Refusal("cannot open \(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .failure(Refusal("cannot examine \(path)")) }
        guard (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == getuid(), status.st_mode & 0o077 == 0,
            status.st_nlink == 1, status.st_size <= maxSize
        else {
            return .failure(Refusal("\(path) is not a file of yours alone (mode 0600, one link); not believed"))
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count == bytes.count, let value = try? JSONParser().parse(bytes),
            let parsed = DaemonStatus(value)
        else { return .failure(Refusal("\(path) cannot be read as the daemon's status")) }
        guard parsed.pid == holder else {
            return .failure(Refusal("\(path) names pid \(parsed.pid), not the daemon's (\(holder)); not believed"))
        }
        return .success(parsed)
    }

    /// Why a status file was not believed.
    struct Refusal: Error, Equatable {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private init?(_ value: JSONValue) {
        guard let pidText = value["pid"]?.scalarText, let pid = Int32(pidText),
            let display = value["display"]?.stringValue, let config = value["config"]?.stringValue,
            let list = value["keys"]?.arrayValue
        else { return nil }
        var keys: [Key] = []
        for entry in list {
            guard let key = entry["key"]?.stringValue, let action = entry["action"]?.stringValue else { return nil }
            keys.append(Key(key: key, action: action, problem: entry["problem"]?.stringValue))
        }
        self.init(pid: pid, display: display, configFile: config, keys: keys)
    }

    init(pid: Int32, display: String, configFile: String, keys: [Key]) {
        self.pid = pid
        self.display = display
        self.configFile = configFile
        self.keys = keys
    }
}
