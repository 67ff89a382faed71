import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// What a file descriptor is connected to; decides where output goes by default.
enum StreamKind: Equatable, Sendable {
    case terminal, pipe, regularFile, characterDevice, socket, closed, other

    /// The kind of `fd`, from isatty and fstat.
    static func of(_ fd: Int32) -> StreamKind {
        if isatty(fd) == 1 { return .terminal }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .closed }
        switch info.st_mode & S_IFMT {
        case S_IFIFO: return .pipe
        case S_IFREG: return .regularFile
        case S_IFCHR: return .characterDevice
        case S_IFSOCK: return .socket
        default: return .other
        }
    }
}

/// Puts /dev/null on any of descriptors 0, 1 and 2 that is closed (`>&-`), opened the wrong
/// way round (stdin write-only, stdout and stderr read-only) so that using it still fails with
/// EBADF: a closed stdout stays an error (exit 74), while the next file, socket or X connection
/// we open can no longer take descriptor 1 and receive what was meant for stdout.
func occupyClosedStandardDescriptors() {
    for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
        let null = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC)
        guard null >= 0 else { return }
        if null != fd {
            dup2(null, fd)
            close(null)
        } else {
            // The lowest free descriptor is this one; it must survive exec like any stdio.
            _ = fcntl(fd, F_SETFD, 0)
        }
    }
}

/// Whether stdout and stderr are the same regular file: a desktop session's log such as
/// `~/.xsession-errors`, where hotkey daemons send both — not a user's `> file` redirect.
func stdoutIsSharedLogFile() -> Bool {
    var out = stat()
    var err = stat()
    guard fstat(1, &out) == 0, fstat(2, &err) == 0, out.st_mode & S_IFMT == S_IFREG else { return false }
    return out.st_dev == err.st_dev && out.st_ino == err.st_ino
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR. A closed stdout, a full disk
/// or a broken pipe becomes an error (exit 74), never a crash or a silent success.
func writeAll(_ bytes: [UInt8], to fd: Int32, name: String) throws(CommandError) {
    do throws(SystemError) {
        try FileDescriptor(fd).writeAll(bytes)
    } catch {
        throw CommandError(.ioError, "cannot write to \(name): \(error)")
    }
}

/// The standard output as a destination of payloads: their bytes, escaped when shown on a terminal,
/// with a final newline added to all but binary payloads so a prompt does not glue to them.
struct StandardOutputSink {
    var isTerminal: Bool

    func write(_ payload: Payload) throws {
        var bytes = isTerminal ? Array(TerminalText.escape(bytes: payload.bytes).utf8) : payload.bytes
        let newline = payload.kind != .binary && bytes.last != UInt8(ascii: "\n")
        // A large payload gets its newline in a write of its own: appending would copy it whole.
        let apart = newline && bytes.count >= 1 << 16
        if newline && !apart { bytes.append(UInt8(ascii: "\n")) }
        try writeAll(bytes, to: 1, name: "standard output")
        if apart { try writeAll([UInt8(ascii: "\n")], to: 1, name: "standard output") }
    }
}

/// Messages for people go to stderr; failures to write them are ignored (nowhere to report).
struct Diagnostics: Sendable {
    var quiet: Bool
    var isTerminal: Bool

    func notice(_ message: String) {
        guard !quiet else { return }
        say("userdebug: \(message)")
    }

    func error(_ message: String) {
        say("userdebug: error: \(message)")
    }

    private func say(_ line: String) {
        let text = isTerminal ? TerminalText.escape(line) : line
        try? writeAll(Array((text + "\n").utf8), to: 2, name: "standard error")
    }
}
