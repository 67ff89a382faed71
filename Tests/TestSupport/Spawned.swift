public import Foundation

/// posix_spawn with a clean signal state and our own waitpid. Foundation's Process leaves the
/// spawning thread's blocked signals in the child (Xvfb then ignores SIGTERM) and can miss a
/// child's exit; tests need neither surprise.
public struct Spawned: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// Write end of the child's standard input, when piped.
    public var input: Int32 = -1
    /// Read end of the child's standard output, when piped.
    public var output: Int32 = -1

    /// Starts `arguments` (an absolute path first) with exactly `environment`, optionally with
    /// pipes to its standard input and from its standard output.
    public static func start(
        _ arguments: [String], environment: [String: String], pipeInput: Bool = false, pipeOutput: Bool = false
    ) throws -> Spawned {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var inPipe: [Int32] = [-1, -1]
        var outPipe: [Int32] = [-1, -1]
        if pipeInput {
            guard makePipe(&inPipe) else { throw FixtureError("pipe") }
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if pipeOutput {
            guard makePipe(&outPipe) else { throw FixtureError("pipe") }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        if pipeInput { close(inPipe[0]) }
        if pipeOutput { close(outPipe[1]) }
        guard rc == 0 else {
            if pipeInput { close(inPipe[1]) }
            if pipeOutput { close(outPipe[0]) }
            throw FixtureError("spawn \(arguments[0]) failed: errno \(rc)")
        }
        return Spawned(pid: pid, input: pipeInput ? inPipe[1] : -1, output: pipeOutput ? outPipe[0] : -1)
    }

    /// pipe2(O_CLOEXEC) is not exported to Swift; set the flag right after (tests accept the race).
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return true
    }

    /// Writes everything to the child's input and closes it.
    public func send(_ bytes: [UInt8]) {
        var offset = 0
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = write(input, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
        }
        close(input)
    }

    /// Reads the child's output to end of file and closes it.
    public func receiveAll() -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        close(output)
        return result
    }

    /// Reads one line of output (without the newline); nil at end of file.
    public func receiveLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(output, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }

    /// Waits for the exit; the exit status, or 128 + signal.
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    /// Sends `signal` to the child (SIGKILL by default).
    public func kill(_ signal: Int32 = SIGKILL) {
        _ = Glibc.kill(pid, signal)
    }
}
