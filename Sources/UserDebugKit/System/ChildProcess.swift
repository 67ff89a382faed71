import CShared

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with posix_spawn and reaped with waitpid: the one spawn-and-wait wrapper of
/// the package, and the one place a wait status is decoded. What happens between the two (pipes
/// pumped, a deadline, signals ignored meanwhile) is the caller's.
package struct ChildProcess: Sendable {
    /// How a child ended.
    package enum Termination: Sendable, Equatable {
        /// It exited with this status (0–255).
        case exited(Int32)
        /// This signal ended it.
        case signalled(Int32)

        /// Decodes waitpid's status. WIFEXITED, WEXITSTATUS and WTERMSIG are macros Swift does
        /// not import; no stopped status arrives, as nobody waits with WUNTRACED.
        package init(waitStatus: Int32) {
            let signal = waitStatus & 0x7F
            self = signal == 0 ? .exited((waitStatus >> 8) & 0xFF) : .signalled(signal)
        }

        /// As a shell reports it in `$?`: the exit status, or 128 + the signal number.
        package var shellStatus: Int32 {
            switch self {
            case .exited(let status): return status
            case .signalled(let signal): return 128 + signal
            }
        }
    }

    /// Where one of the child's standard streams (0, 1, 2) comes from.
    package enum Stream: Sendable, Equatable {
        /// Ours, as it is.
        case inherited
        /// This descriptor of ours, dup2'ed onto the stream (which clears its close-on-exec).
        case descriptor(FileDescriptor)
        /// /dev/null.
        case null
    }

    /// Which signals the child gets back at their default action. An ignored signal stays
    /// ignored across exec, and the CLI ignores SIGPIPE for its own checked writes.
    package enum DefaultSignals: Sendable, Equatable {
        /// These.
        case only([Int32])
        /// Every signal.
        case all
    }

    /// How to start a child. It always starts with no signal blocked: a signal mask is inherited
    /// too, and a program expects none, as from a shell.
    package struct Options: Sendable {
        /// argv[0] is looked up in PATH (posix_spawnp) rather than taken as a path.
        package var searchesPath = false
        /// The child leads a process group of its own, so `signalGroup` reaches what it starts.
        package var ownProcessGroup = false
        /// Signals reset to their default action in the child.
        package var defaultSignals = DefaultSignals.only([SIGPIPE])
        /// Standard input.
        package var input = Stream.inherited
        /// Standard output.
        package var output = Stream.inherited
        /// Standard error.
        package var error = Stream.inherited

        /// The defaults: argv[0] is a path, our process group, SIGPIPE back to default, our streams.
        package init() {}
    }

    /// The child's process id (a `pid_t`).
    package let pid: Int32

    /// Starts `argv` (argv[0] names the program) with exactly `environment`.
    package static func spawn(_ argv: [String], environment: [String: String], options: Options = Options())
        throws(SystemError) -> ChildProcess
    {
        precondition(!argv.isEmpty, "argv needs a program")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), options.input), (1, options.output), (2, options.error)] {
            switch stream {
            case .inherited: break
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd.rawValue, target)
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // And nothing else. A descriptor left open in the child keeps its pipe open for as long as
        // the child lives, and whoever reads that pipe waits that long for its end: one we
        // inherited (a curl still waiting for a slow backend after we exit would hold our
        // caller's pipe, and rofi or a script reading our output with it), or one another thread
        // opened without close-on-exec while we spawn (a pipe of Foundation's, which the test
        // runner makes by the hundred). Ours are close-on-exec from the start (`FileDescriptor.pipe`).
        let closing = ud_spawn_close_from(&actions, 3)
        guard closing == 0 else { throw SystemError(closing) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        setSignals(&attributes, defaults: options.defaultSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if options.ownProcessGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        var pid: Int32 = 0
        let spawned =
            options.searchesPath
            ? posix_spawnp(&pid, argv[0], &actions, &attributes, arguments, variables)
            : posix_spawn(&pid, argv[0], &actions, &attributes, arguments, variables)
        guard spawned == 0 else { throw SystemError(spawned) }
        return ChildProcess(pid: pid)
    }

    private static func setSignals(_ attributes: inout posix_spawnattr_t, defaults: DefaultSignals) {
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var reset = sigset_t()
        switch defaults {
        case .all:
            sigfillset(&reset)
        case .only(let signals):
            sigemptyset(&reset)
            for signal in signals { sigaddset(&reset, signal) }
        }
        posix_spawnattr_setsigdefault(&attributes, &reset)
    }

    /// Waits for the child to end (EINTR retried) and reaps it.
    package func wait() throws(SystemError) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            let code = errno
            guard code == EINTR else { throw SystemError(code) }
        }
        return Termination(waitStatus: status)
    }

    /// Sends `signal` to the child's process group (it must have been started with
    /// `ownProcessGroup`): the child and whatever it started.
    package func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
    }
}
