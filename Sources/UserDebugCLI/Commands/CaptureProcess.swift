#if canImport(Glibc)
import Glibc
#endif

/// Runs curl for `capture` as a shell would: same stdin, stdout and stderr, default signal
/// dispositions, and the caller waiting with SIGINT and SIGQUIT ignored (as `system(3)` does) so
/// that Ctrl-C stops curl and still lets us record what it got and return its status.
enum CurlProcess {
    /// Runs `executable ARGS` and returns its exit status, or 128 + the signal that ended it.
    static func run(_ executable: String, arguments: [String], environment: [String: String]) throws(CommandError) -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The CLI ignores SIGPIPE for its own checked writes; curl must get the default back, and
        // so must SIGINT/SIGQUIT, which we ignore below while waiting.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // A signal mask is inherited too; curl starts with nothing blocked, as from a shell.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let oldInterrupt = signal(SIGINT, SIG_IGN)
        let oldQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, oldInterrupt)
            signal(SIGQUIT, oldQuit)
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, nil, &attributes, &argv, &envp)
        guard spawned == 0 else {
            throw CommandError(.unavailable, "cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw CommandError(.ioError, "waiting for \(executable): \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signalNumber = status & 0x7F
        return signalNumber == 0 ? (status >> 8) & 0xFF : 128 + signalNumber
    }
}
