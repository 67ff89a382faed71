import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// One daemon per display and user: an flock'ed file in `$XDG_RUNTIME_DIR` (else
/// `/tmp/userdebug-UID`, 0700, ours) named after the display, holding the running daemon's pid.
/// The lock goes with the process (the descriptor is close-on-exec and the owner processes the
/// daemon forks close it), so a daemon that dies leaves no stale lock.
struct DaemonLock {
    /// The lock file's path.
    let path: String
    private let descriptor: Int32

    /// Takes the lock for `display`, or throws: 75 naming the running daemon's pid, 77 when the
    /// fallback directory is not ours alone.
    static func acquire(display: String, runtimeDirectory: String?) throws -> DaemonLock {
        let directory = try lockDirectory(runtimeDirectory)
        let path = directory + "/userdebug-daemon-" + fileName(display) + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CommandError(.ioError, "cannot open the lock file \(path): \(describe(errno))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let pid = readPid(fd)
            close(fd)
            guard code == EWOULDBLOCK else {
                throw CommandError(.ioError, "cannot lock \(path): \(describe(code))")
            }
            throw CommandError(
                .temporaryFailure,
                "userdebug daemon already runs (pid \(pid.map(String.init) ?? "unknown")) on \(display)")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        return DaemonLock(path: path, descriptor: fd)
    }

    /// `:5.0`, `:5` and `unix:5` are one display: the lock is per server, not per screen.
    static func fileName(_ display: String) -> String {
        var name = Substring(display)
        if let colon = name.lastIndex(of: ":"), let dot = name[colon...].firstIndex(of: ".") {
            name = name[..<dot]
        }
        if name.hasPrefix("unix:") { name = name.dropFirst(4) }
        return String(name.map { $0 == "/" ? "_" : $0 })
    }

    private static func lockDirectory(_ runtimeDirectory: String?) throws -> String {
        if let runtimeDirectory, runtimeDirectory.hasPrefix("/"), access(runtimeDirectory, W_OK) == 0 {
            return runtimeDirectory
        }
        let path = "/tmp/userdebug-\(getuid())"
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw CommandError(.ioError, "cannot create \(path): \(describe(errno))")
        }
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR, status.st_uid == getuid(),
            status.st_mode & 0o077 == 0
        else {
            throw CommandError(
                .noPermission, "refusing \(path) for the daemon's lock: it must be a directory of yours with mode 0700")
        }
        return path
    }

    private static func readPid(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first ?? "")
    }

    private static func describe(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
