import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// One daemon per display and user: an flock'ed file in `$XDG_RUNTIME_DIR` (else
/// `/tmp/userdebug-UID`) named after the display, holding the running daemon's pid.
/// The lock goes with the process (the descriptor is close-on-exec and the owner processes the
/// daemon forks close it), so a daemon that dies leaves no stale lock.
///
/// Only a directory of ours with mode 0700 holds the lock, and only a regular file of ours with
/// one link in it is the lock: `XDG_RUNTIME_DIR=/tmp` (X11 without logind) would let another
/// user hold a lock of that name first and name any pid as "the running daemon".
struct DaemonLock {
    /// The lock file's path.
    let path: String
    /// Set when `$XDG_RUNTIME_DIR` was passed over (not ours, or not 0700): why, and the fix.
    let notice: String?
    private let descriptor: Int32

    /// Takes the lock for `display`, or throws: 75 naming the running daemon's pid, 77 when the
    /// fallback directory is not ours alone or the lock file there is not ours.
    static func acquire(display: String, runtimeDirectory: String?) throws -> DaemonLock {
        let (directory, notice) = try lockDirectory(runtimeDirectory)
        let path = directory + "/userdebug-daemon-" + fileName(display) + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else { throw CommandError(.ioError, "cannot open the lock file \(path): \(describe(errno))") }
        if let problem = fileProblem(fd) {
            close(fd)
            throw CommandError(.noPermission, "refusing the lock file \(path): it \(problem); fix: rm \(path)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let pid = readPid(fd)
            close(fd)
            guard code == EWOULDBLOCK else {
                throw CommandError(.ioError, "cannot lock \(path): \(describe(code))")
            }
            throw CommandError(
                .temporaryFailure,
                "userdebug daemon already runs (pid \(pid.map(String.init) ?? "unknown")) on \(display)"
                    + "; start it one way only: the autostart entry (~/.config/autostart/userdebug.desktop)"
                    + " or the systemd unit (userdebug.service), not both")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        return DaemonLock(path: path, notice: notice, descriptor: fd)
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

    /// `$XDG_RUNTIME_DIR` when it is a directory of ours with mode 0700 that we may write, else
    /// `/tmp/userdebug-UID` (made 0700 and checked), with a notice when `$XDG_RUNTIME_DIR` was
    /// there but not ours alone.
    private static func lockDirectory(_ runtimeDirectory: String?) throws -> (String, notice: String?) {
        let (path, notice) = chooseDirectory(runtimeDirectory)
        if path == runtimeDirectory { return (path, nil) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw CommandError(.ioError, "cannot create \(path): \(describe(errno))")
        }
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR, directoryProblem(status) == nil else {
            throw CommandError(
                .noPermission, "refusing \(path) for the daemon's lock: it must be a directory of yours with mode 0700")
        }
        return (path, notice)
    }

    /// The lock's directory by the rule above, without creating or checking the fallback.
    private static func chooseDirectory(_ runtimeDirectory: String?) -> (String, notice: String?) {
        let path = "/tmp/userdebug-\(getuid())"
        var notice: String?
        if let runtimeDirectory, runtimeDirectory.hasPrefix("/") {
            var status = stat()
            if stat(runtimeDirectory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                if let problem = directoryProblem(status) {
                    notice =
                        "XDG_RUNTIME_DIR \(runtimeDirectory) \(problem), so the lock is in \(path); fix: set XDG_RUNTIME_DIR to a directory of yours with mode 0700"
                } else if access(runtimeDirectory, W_OK) == 0 {
                    return (runtimeDirectory, nil)
                }
            }
        }
        return (path, notice)
    }

    /// Where the lock for `display` would be, and the pid of the daemon holding it (nil: none
    /// runs), for `doctor`. Read-only: the lock is not tried (a try could make a daemon starting
    /// at that moment exit 75); the kernel's table of locks (`/proc/locks`) names the holder of
    /// the lock file's inode. A lock file that is not ours alone has no holder we believe.
    static func holder(display: String, runtimeDirectory: String?) -> (path: String, pid: Int32?) {
        let directory = chooseDirectory(runtimeDirectory).0
        let path = directory + "/userdebug-daemon-" + fileName(display) + ".lock"
        if directory != runtimeDirectory {
            var status = stat()
            guard lstat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR, directoryProblem(status) == nil
            else { return (path, nil) }
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return (path, nil) }
        defer { close(fd) }
        var status = stat()
        guard fileProblem(fd) == nil, fstat(fd, &status) == 0 else { return (path, nil) }
        return (path, flockHolder(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)))
    }

    /// The pid of the `flock` on `device`:`inode` in `/proc/locks` (`1: FLOCK ADVISORY WRITE
    /// 1234 00:1a:5678 0 EOF`; a waiter's line, `1: -> FLOCK …`, is passed over).
    private static func flockHolder(device: UInt64, inode: UInt64) -> Int32? {
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        guard let table = readProcLocks() else { return nil }
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let place = fields[5].split(separator: ":")
            guard place.count == 3, UInt64(place[0], radix: 16) == major, UInt64(place[1], radix: 16) == minor,
                UInt64(place[2]) == inode
            else { continue }
            return Int32(fields[4])
        }
        return nil
    }

    private static func readProcLocks() -> String? {
        let fd = open("/proc/locks", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 1 << 24 {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What keeps a directory from holding the lock: not ours, or open to group or others.
    private static func directoryProblem(_ status: stat) -> String? {
        if status.st_uid != getuid() { return "is owned by uid \(status.st_uid), not by you (uid \(getuid()))" }
        guard status.st_mode & 0o077 == 0 else { return "has mode \(octal(status.st_mode)), not 0700" }
        return nil
    }

    /// What keeps the open file `fd` from being the lock: not a regular file of ours with one link.
    private static func fileProblem(_ fd: Int32) -> String? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return "cannot be examined: \(describe(errno))" }
        if (status.st_mode & S_IFMT) != S_IFREG { return "is not a regular file" }
        if status.st_uid != getuid() { return "is owned by uid \(status.st_uid), not by you (uid \(getuid()))" }
        if status.st_nlink != 1 { return "has \(status.st_nlink) links" }
        return nil
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
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
