import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// Reads an input document from a file or stdin, refusing more than `limit` bytes without
/// reading past the limit (a 1 GiB pipe is refused after 64 MiB; a regular file by its size).
enum InputReader {
    /// Input documents larger than this are refused (exit 65).
    static let defaultLimit = 64 * 1024 * 1024

    static func read(_ path: String?, limit: Int = defaultLimit) throws(CommandError) -> (bytes: [UInt8], name: String)
    {
        let (fd, name) = try openInput(path, limit: limit)
        defer { if fd != 0 { close(fd) } }
        let bytes: [UInt8]
        do throws(FileDescriptor.ReadAllError) {
            bytes = try FileDescriptor(fd).readAll(limit: limit)
        } catch {
            switch error {
            case .system(let failure):
                throw CommandError(.ioError, "cannot read \(name): \(failure)")
            case .tooLarge:
                throw tooLarge(name, limit: limit)
            }
        }
        return (bytes, name)
    }

    /// Reads the input into one block held once (`HeapBytes`): for `userdebug copy`, whose
    /// clipboard owner serves these very bytes. More than `limit` bytes, or more than the memory
    /// the process may take (`ulimit -v`), is refused with exit 65 naming the size; a failed read
    /// is exit 74.
    static func readBlock(_ path: String?, limit: Int) throws(CommandError) -> HeapBytes {
        let (fd, name) = try openInput(path, limit: limit)
        defer { if fd != 0 { close(fd) } }
        do throws(HeapBytes.ReadError) {
            return try HeapBytes.read(FileDescriptor(fd), limit: limit)
        } catch {
            switch error {
            case .system(let failure):
                throw CommandError(.ioError, "cannot read \(name): \(failure)")
            case .tooLarge:
                throw tooLarge(name, limit: limit)
            case .outOfMemory(let held, let wanted):
                throw CommandError(
                    .dataError,
                    "\(name) is too large to hold in memory: \(held) bytes read, no memory for \(wanted) "
                        + "(the process's memory limit, ulimit -v, or the machine's)")
            }
        }
    }

    /// The input's descriptor (0 for stdin; the caller closes any other) and its name for
    /// messages, refusing a terminal, a directory, and a regular file larger than `limit`.
    static func openInput(_ path: String?, limit: Int) throws(CommandError) -> (fd: Int32, name: String) {
        let name = path == nil || path == "-" ? "standard input" : path!
        let fd: Int32
        if path == nil || path == "-" {
            if isatty(0) == 1 {
                throw CommandError(
                    .usage,
                    "expected a JSON document on standard input (or a FILE argument), but standard input is a terminal")
            }
            fd = 0
        } else {
            fd = open(path!, O_RDONLY | O_CLOEXEC)
            if fd < 0 {
                let code = errno
                let status: ExitStatus = code == ENOENT ? .noInput : (code == EACCES ? .noPermission : .ioError)
                throw CommandError(status, "cannot open \(name): \(String(cString: strerror(code)))")
            }
        }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            if fd != 0 { close(fd) }
            throw CommandError(.noInput, "\(name) is a directory, not a JSON document")
        }
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) > limit {
            if fd != 0 { close(fd) }
            throw CommandError(
                .dataError,
                "\(name) is \(Int(info.st_size)) bytes, larger than the \(limit / 1024 / 1024) MiB limit for an input document"
            )
        }
        return (fd, name)
    }

    /// The error for an input found larger than `limit` while reading it.
    static func tooLarge(_ name: String, limit: Int) -> CommandError {
        CommandError(.dataError, "\(name) is larger than the \(limit / 1024 / 1024) MiB limit for an input document")
    }

    /// Reads and parses a JSON document; syntax errors name the input, line and column.
    static func readJSON(_ path: String?) throws(CommandError) -> (value: JSONValue, name: String) {
        let (bytes, name) = try read(path)
        do {
            return (try JSONParser().parse(bytes), name)
        } catch {
            throw CommandError(.dataError, "\(name): \(error.line):\(error.column): \(error.reason)")
        }
    }
}
