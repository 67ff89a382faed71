#if canImport(Glibc)
    import Glibc
#endif

/// What `stat(2)` says about a path (symbolic links followed, as SQLite follows them).
struct FileStatus {
    /// Whether the path is a directory.
    var isDirectory: Bool
    /// The permission bits, e.g. 0o600.
    var permissions: mode_t
    /// The size in bytes.
    var size: Int64

    /// The status of `path`, nil when it cannot be read (`errno` says why).
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
        permissions = status.st_mode & 0o7777
        size = Int64(status.st_size)
    }
}

/// The few file-system calls the store makes itself, each checked and turned into a typed error
/// that names the path.
///
/// Modes are given explicitly at creation (0700 directories, 0600 files) rather than by switching
/// the process umask to 077: the umask is process-wide, so changing it from a library races with
/// every other thread creating files, while an explicit mode can only be narrowed by the umask,
/// never widened. SQLite creates `-wal` and `-shm` with the database file's own mode, so they
/// are 0600 as well.
enum FileSystem {
    /// The bytes of a regular file owned by us that nobody else may write (at most 1 MiB); nil
    /// otherwise.
    static func readPrivateFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == geteuid(),
            status.st_mode & 0o077 == 0, status.st_size <= 1 << 20
        else { return nil }
        // The copy is replaced by rename, never rewritten in place: fstat's size is all there is.
        // Stopping there spares the read that would find the end of file (this is the hotkey path).
        let size = Int(status.st_size)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        let finished = try? FileDescriptor(fd).readChunks(bufferSize: size) { chunk in
            bytes.append(contentsOf: chunk.prefix(size - bytes.count))
            return bytes.count < size
        }
        guard finished != nil, bytes.count == size else { return nil }
        return bytes
    }

    /// Replaces `path` whole with `bytes`, mode 0600, through a file of this process beside it
    /// and a rename, so a reader sees the old file or the new one; nothing when that fails.
    static func replacePrivateFile(_ path: String, with bytes: [UInt8]) {
        let temporary = path + ".\(getpid()).tmp"
        unlink(temporary)  // left by a process of the same pid that was killed here
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let written = (try? FileDescriptor(fd).writeAll(bytes)) != nil
        close(fd)
        if !written || rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// The directory part of `path` ("." when it has none).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Creates `directory` and any missing parents with mode 0700 (as the XDG spec asks for a
    /// missing base directory). Returns whether the last component was created now.
    @discardableResult
    static func createDirectories(_ directory: String) throws(StoreError) -> Bool {
        if let status = FileStatus(path: directory) {
            guard status.isDirectory else {
                throw StoreError.io(path: directory, detail: "exists and is not a directory")
            }
            return false
        }
        let parent = FileSystem.directory(of: directory)
        if parent != directory, parent != "/", parent != "." {
            try createDirectories(parent)
        }
        if mkdir(directory, 0o700) != 0 {
            let code = errno
            // Another process may have created it between the check and the mkdir.
            if code == EEXIST, FileStatus(path: directory)?.isDirectory == true { return false }
            throw StoreError.from(errno: code, path: directory)
        }
        return true
    }

    /// Creates an empty file at `path` with mode 0600 unless something already exists there.
    static func createFileIfMissing(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        if code == EEXIST { return }
        throw StoreError.from(errno: code, path: path)
    }

    /// A warning when `path` grants more than `allowed` (group or other bits), nil otherwise.
    /// The store reports a looser mode rather than changing it: the user may have chosen it.
    static func loosenessWarning(_ path: String, allowed: mode_t) -> String? {
        guard let status = FileStatus(path: path) else { return nil }
        return loosenessWarning(path, mode: status.permissions, allowed: allowed)
    }

    /// The same for permission bits already known.
    static func loosenessWarning(_ path: String, mode: mode_t, allowed: mode_t) -> String? {
        guard mode & ~allowed != 0 else { return nil }
        return "\(path) has mode \(octal(mode)), looser than \(octal(allowed))"
    }

    /// `mode` as four octal digits, e.g. 0644.
    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Whether this process may create files in `directory` (false for a read-only mount or an
    /// immutable directory, even for root).
    static func isWritableDirectory(_ directory: String) -> Bool {
        access(directory, W_OK) == 0
    }

    /// A new private (0700) directory under `$TMPDIR` or /tmp.
    static func makeTemporaryDirectory(for path: String) throws(StoreError) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array((base + "/userdebug-snapshot-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw StoreError.from(errno: errno, path: path) }
        return String(cString: created)
    }

    /// Copies the file at `source` to a new 0600 file at `destination`.
    static func copyFile(_ source: String, to destination: String) throws(StoreError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw StoreError.from(errno: errno, path: source) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw StoreError.from(errno: errno, path: destination) }
        defer { close(output) }
        var writeFailure: SystemError?
        do throws(SystemError) {
            _ = try FileDescriptor(input).readChunks(bufferSize: 1 << 20) { chunk in
                do throws(SystemError) {
                    try FileDescriptor(output).writeAll(chunk)
                    return true
                } catch {
                    writeFailure = error
                    return false
                }
            }
        } catch {
            throw StoreError.from(errno: error.code, path: source)
        }
        if let writeFailure { throw StoreError.from(errno: writeFailure.code, path: destination) }
    }

    /// Removes `directory` and the plain files directly inside it (a snapshot directory).
    static func removeDirectory(_ directory: String) {
        if let stream = opendir(directory) {
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != ".", name != ".." { unlink(directory + "/" + name) }
            }
            closedir(stream)
        }
        rmdir(directory)
    }
}
