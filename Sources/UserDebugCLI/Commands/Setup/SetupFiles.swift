import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// Plain file access for setup: whole-file reads, writes that replace a file in one rename, and
/// the directories they need.
enum SetupFiles {
    /// The file's bytes and permission bits, or nil when there is no such file.
    static func read(_ path: String) throws(CommandError) -> (bytes: [UInt8], mode: mode_t)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw CommandError(.ioError, "cannot read \(path): \(describe(errno))")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw CommandError(.ioError, "\(path) is not a regular file; setup changes only regular files")
        }
        do throws(FileDescriptor.ReadAllError) {
            return (try FileDescriptor(fd).readAll(limit: 16 << 20), status.st_mode & 0o7777)
        } catch {
            throw CommandError(.ioError, "cannot read \(path)")
        }
    }

    /// Replaces (or creates) `path` with `bytes` and `mode` in one rename, so a reader sees the old
    /// file or the new one, never half of one; its directories are made (0700 when new).
    static func write(_ given: String, _ bytes: [UInt8], mode: mode_t) throws(CommandError) {
        // A file reached through a link (dotfiles kept elsewhere) is written where the link
        // points, and the link stays.
        let path = resolved(given)
        try makeDirectories(parent(of: path))
        let temporary = parent(of: path) + "/.userdebug-setup-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw CommandError(.noPermission, "cannot write in \(parent(of: path)): \(describe(errno))")
        }
        do throws(SystemError) {
            try FileDescriptor(fd).writeAll(bytes)
            guard fchmod(fd, mode) == 0, fsync(fd) == 0 else { throw SystemError(errno) }
            close(fd)
        } catch {
            close(fd)
            unlink(temporary)
            throw CommandError(.ioError, "cannot write \(path): \(error)")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw CommandError(.noPermission, "cannot replace \(path): \(describe(code))")
        }
    }

    /// Where `path` leads when it is a symbolic link to an existing file; else `path`.
    static func resolved(_ path: String) -> String {
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK, let real = realpath(path, nil) else {
            return path
        }
        defer { free(real) }
        return String(cString: real)
    }

    /// Removes `path` (no error when it is already gone).
    static func remove(_ path: String) throws(CommandError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw CommandError(.noPermission, "cannot remove \(path): \(describe(errno))")
        }
    }

    /// `mkdir -p` with mode 0700 for what it creates.
    static func makeDirectories(_ path: String) throws(CommandError) {
        var status = stat()
        if path.isEmpty || stat(path, &status) == 0 { return }
        try makeDirectories(parent(of: path))
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw CommandError(.noPermission, "cannot create \(path): \(describe(errno))")
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    static func describe(_ code: Int32) -> String { strerror(code).map { String(cString: $0) } ?? "error \(code)" }
}

/// What setup changed, kept in the state directory so `--undo` can put it back exactly: each file
/// with its bytes before (or that there was none) and the bytes setup wrote, and the commands that
/// reverse what is not a file (a desktop's settings, a reload, the daemon it started).
struct SetupManifest {
    struct File {
        var path: String
        /// The saved copy of the file before setup first changed it; nil: there was no file.
        var original: String?
        var originalMode: mode_t
        /// The saved copy of what setup last wrote there.
        var written: String
    }

    var files: [File] = []
    /// Commands `--undo` runs after restoring the files, in order.
    var undo: [[String]] = []
    /// The display whose daemon setup started (stopped by `--undo`).
    var daemonDisplay: String?

    let directory: String
    var path: String { directory + "/manifest.json" }

    init(directory: String) { self.directory = directory }

    /// The manifest in `directory`, or nil when setup has changed nothing.
    static func load(_ directory: String) throws(CommandError) -> SetupManifest? {
        var manifest = SetupManifest(directory: directory)
        guard let (bytes, _) = try SetupFiles.read(manifest.path) else { return nil }
        guard let root = try? JSONParser().parse(bytes).objectValue else {
            throw CommandError(.dataError, "\(manifest.path) is not setup's manifest; move it away to start afresh")
        }
        for entry in root["files"]?.arrayValue ?? [] {
            guard let object = entry.objectValue, let path = object["path"]?.stringValue,
                let written = object["written"]?.stringValue
            else { continue }
            let mode = object["mode"]?.scalarText.flatMap { mode_t($0, radix: 8) } ?? 0o644
            manifest.files.append(
                File(path: path, original: object["original"]?.stringValue, originalMode: mode, written: written))
        }
        manifest.undo = (root["undo"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }
        manifest.daemonDisplay = root["daemonDisplay"]?.stringValue
        return manifest
    }

    /// Records that setup is about to write `bytes` to `path`, saving the file's bytes first the
    /// first time (a later setup keeps the first original, so undo goes back to before any).
    mutating func record(_ path: String, writing bytes: [UInt8], before: (bytes: [UInt8], mode: mode_t)?)
        throws(CommandError)
    {
        let index = files.firstIndex { $0.path == path }
        let number = index ?? files.count
        let written = "written-\(number)"
        try SetupFiles.write(directory + "/" + written, bytes, mode: 0o600)
        if let index {
            files[index].written = written
            return
        }
        var original: String?
        if let before {
            original = "original-\(number)"
            try SetupFiles.write(directory + "/original-\(number)", before.bytes, mode: 0o600)
        }
        files.append(File(path: path, original: original, originalMode: before?.mode ?? 0o644, written: written))
    }

    mutating func addUndo(_ argv: [String]) {
        if !undo.contains(argv) { undo.append(argv) }
    }

    func save() throws(CommandError) {
        let fileEntries: [JSONValue] = files.map { file in
            .object(
                JSONObject([
                    "path": .string(file.path), "original": file.original.map(JSONValue.string) ?? .null,
                    "mode": .number(String(file.originalMode, radix: 8)), "written": .string(file.written),
                ]))
        }
        let root = JSONObject([
            "files": .array(fileEntries),
            "undo": .array(undo.map { .array($0.map(JSONValue.string)) }),
            "daemonDisplay": daemonDisplay.map(JSONValue.string) ?? .null,
        ])
        try SetupFiles.write(path, JSONWriter(indent: 2).bytes(.object(root)) + [0x0A], mode: 0o600)
    }
}
