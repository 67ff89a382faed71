#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program from an argv array — no shell, so a value with spaces, quotes or `$(…)` is
/// one argument exactly as given — feeds it stdin, collects stdout and stderr, and kills its
/// whole process group when it outlives the timeout. Synchronous and thread-free (poll on the
/// pipes), so it adds no thread to the process that may later fork a clipboard owner.
package struct ProcessRunner: Sendable {
    /// What a finished program left.
    package struct Result: Sendable, Equatable {
        /// How it ended: its exit status or the signal that ended it.
        package var termination: ChildProcess.Termination
        /// Everything it wrote to stdout.
        package var stdout: [UInt8]
        /// What it wrote to stderr: about the first 64 KiB, the rest read and dropped.
        package var stderr: [UInt8]
    }

    /// Why a program could not be run to the end.
    package enum Failure: Error, Sendable, Equatable {
        /// posix_spawn failed (no such program, not executable); the reason is strerror's.
        case notStarted(String)
        /// It did not finish within the timeout and was killed.
        case timedOut
        /// It wrote more than `outputLimit` bytes to stdout.
        case outputTooLarge
    }

    /// Seconds the program may run.
    package var timeout: Double
    /// Most stdout bytes kept; more is a failure, not a truncation.
    package var outputLimit: Int

    /// A runner with a timeout and an output limit (default 16 MiB).
    package init(timeout: Double, outputLimit: Int = 16 << 20) {
        self.timeout = timeout
        self.outputLimit = outputLimit
    }

    /// The process groups of the programs running now (each child leads its own), for `stopAll`.
    private static let running = ThreadLock<Set<Int32>>([])

    /// Kills every program a runner is still waiting for, with what it started (SIGKILL to each
    /// process group): for a command about to exit with a deferred section still loading, so
    /// its curl does not outlive it. The runners waiting for them then return as timed out.
    package static func stopAll() {
        running.withLock { groups in
            for group in groups { _ = Glibc.kill(-group, SIGKILL) }
        }
    }

    /// Runs `argv` with `environment` and `stdin`; argv[0] is looked up in this process's PATH,
    /// not in `environment`'s.
    package func run(_ argv: [String], environment: [String: String], stdin: [UInt8] = []) throws(Failure) -> Result {
        precondition(!argv.isEmpty, "argv needs a program")
        var pipes: [(read: FileDescriptor, write: FileDescriptor)] = []
        do throws(SystemError) {
            for _ in 0..<3 { pipes.append(try FileDescriptor.pipe()) }
        } catch {
            for pipe in pipes { [pipe.read, pipe.write].forEach { close($0.rawValue) } }
            throw .notStarted(error.description)
        }
        let (input, output, errors) = (pipes[0], pipes[1], pipes[2])
        var options = ChildProcess.Options()
        options.searchesPath = true
        // Its own process group, so a timeout kills what it started too (a shell's children).
        options.ownProcessGroup = true
        // dup2 clears close-on-exec on the child's 0/1/2; every other descriptor of ours stays
        // closed in the child, so `x=$(userdebug run …)` cannot hang on an inherited pipe.
        options.input = .descriptor(input.read)
        options.output = .descriptor(output.write)
        options.error = .descriptor(errors.write)
        let child: ChildProcess
        do throws(SystemError) {
            defer { [input.read, output.write, errors.write].forEach { close($0.rawValue) } }
            child = try ChildProcess.spawn(argv, environment: environment, options: options)
        } catch {
            [input.write, output.read, errors.read].forEach { close($0.rawValue) }
            throw .notStarted(error.description)
        }
        _ = Self.running.withLock { $0.insert(child.pid) }
        let pumped = Swift.Result<(stdout: [UInt8], stderr: [UInt8]), Failure> { () throws(Failure) in
            try pump(
                stdin: stdin, input: input.write.rawValue, output: output.read.rawValue, errors: errors.read.rawValue)
        }
        close(output.read.rawValue)
        close(errors.read.rawValue)
        if case .failure = pumped { child.signalGroup(SIGKILL) }
        // A failed wait (ECHILD: SIGCHLD ignored by whoever started us, so the child was reaped
        // for us) counts as a clean exit, as it always has here: its status is gone.
        let termination = (try? child.wait()) ?? .exited(0)
        _ = Self.running.withLock { $0.remove(child.pid) }
        let streams = try pumped.get()
        return Result(termination: termination, stdout: streams.stdout, stderr: streams.stderr)
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
