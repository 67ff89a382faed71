#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program from an argv array — no shell, so a value with spaces, quotes or `$(…)` is
/// one argument exactly as given — feeds it stdin, collects stdout and stderr, and kills its
/// whole process group when it outlives the timeout. Synchronous and thread-free (poll on the
/// pipes), so it adds no thread to the process that may later fork a clipboard owner.
public struct ProcessRunner: Sendable {
    /// What a finished program left.
    public struct Result: Sendable, Equatable {
        /// The exit status, or minus the signal number when a signal ended it.
        public var status: Int32
        /// Everything it wrote to stdout.
        public var stdout: [UInt8]
        /// What it wrote to stderr: about the first 64 KiB, the rest read and dropped.
        public var stderr: [UInt8]
    }

    /// Why a program could not be run to the end.
    public enum Failure: Error, Sendable, Equatable {
        /// posix_spawn failed (no such program, not executable); the reason is strerror's.
        case notStarted(String)
        /// It did not finish within the timeout and was killed.
        case timedOut
        /// It wrote more than `outputLimit` bytes to stdout.
        case outputTooLarge
    }

    /// Seconds the program may run.
    public var timeout: Double
    /// Most stdout bytes kept; more is a failure, not a truncation.
    public var outputLimit: Int

    /// A runner with a timeout and an output limit (default 16 MiB).
    public init(timeout: Double, outputLimit: Int = 16 << 20) {
        self.timeout = timeout
        self.outputLimit = outputLimit
    }

    /// Runs `argv` with `environment` and `stdin`; argv[0] is looked up in this process's PATH,
    /// not in `environment`'s.
    public func run(_ argv: [String], environment: [String: String], stdin: [UInt8] = []) throws(Failure) -> Result {
        precondition(!argv.isEmpty, "argv needs a program")
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard Self.closeOnExecPipe(&input), Self.closeOnExecPipe(&output), Self.closeOnExecPipe(&errors) else {
            for fd in input + output + errors where fd >= 0 { close(fd) }
            throw .notStarted(String(cString: strerror(errno)))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the child's 0/1/2; every other descriptor of ours stays
        // closed in the child, so `x=$(userdebug run …)` cannot hang on an inherited pipe.
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so a timeout kills what it started too (a shell's children).
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, cEnv)
        close(input[0])
        close(output[1])
        close(errors[1])
        guard spawned == 0 else {
            close(input[1])
            close(output[0])
            close(errors[0])
            throw .notStarted(String(cString: strerror(spawned)))
        }
        let pumped = Swift.Result<(stdout: [UInt8], stderr: [UInt8]), Failure> { () throws(Failure) in
            try pump(stdin: stdin, input: input[1], output: output[0], errors: errors[0])
        }
        close(output[0])
        close(errors[0])
        if case .failure = pumped { kill(-pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let streams = try pumped.get()
        let exit: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
        return Result(status: exit, stdout: streams.stdout, stderr: streams.stderr)
    }

    /// pipe2(O_CLOEXEC) is not exported to Swift; pipe + FD_CLOEXEC leaves a short window in
    /// which a concurrent spawn on another thread could inherit the pipe, which only delays
    /// that other child's EOF.
    private static func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Writes stdin and reads stdout and stderr until both close, within the timeout. Closes
    /// `input` (the child then sees the end of its stdin) once everything is written.
    private func pump(stdin: [UInt8], input: Int32, output: Int32, errors: Int32) throws(Failure) -> (
        stdout: [UInt8], stderr: [UInt8]
    ) {
        let deadline = monotonicSeconds() + timeout
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var written = 0
        var writing = !stdin.isEmpty
        defer { if writing { close(input) } }
        if writing {
            _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        } else {
            close(input)
        }
        var open = (out: true, err: true)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while open.out || open.err || writing {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { throw .timedOut }
            var fds = [
                pollfd(fd: open.out ? output : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: open.err ? errors : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: writing ? input : -1, events: Int16(POLLOUT), revents: 0),
            ]
            let ready = poll(&fds, 3, Int32(min(left * 1000 + 1, 60_000)))
            if ready < 0 && errno != EINTR { throw .notStarted(String(cString: strerror(errno))) }
            if ready <= 0 { continue }
            if writing && fds[2].revents != 0 {
                let count = stdin.withUnsafeBytes { Glibc.write(input, $0.baseAddress! + written, $0.count - written) }
                if count > 0 { written += count }
                // A program that does not read its stdin (EPIPE) is its own business.
                if count < 0 && errno != EAGAIN && errno != EINTR || written == stdin.count {
                    writing = false
                    close(input)
                }
            }
            for (index, fd) in [(0, output), (1, errors)] where fds[index].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    if index == 0 { open.out = false } else { open.err = false }
                    continue
                }
                if index == 0 {
                    stdout += chunk[0..<count]
                    if stdout.count > outputLimit { throw .outputTooLarge }
                } else if stderr.count < 65_536 {
                    stderr += chunk[0..<count]
                }
            }
        }
        return (stdout, stderr)
    }
}
