import FoundationEssentials
import Synchronization
import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// `userdebug capture -- curl ARGS…`: runs curl as given, with its stdin, stdout and stderr, and
/// records every exchange it made into the session. curl's output is untouched because the
/// capture is read from a trace file (`--trace FILE --trace-time` added after the user's
/// arguments), not from curl's output; the exit status is curl's.
enum CaptureCommand {
    static let all: [CommandSpec] = [capture]

    /// Options that make curl write its own trace or verbose output. Adding `--trace` would
    /// silence them (curl keeps only the last), which would change what the user sees; with them
    /// curl runs untouched and nothing is recorded.
    static let conflictingLongOptions: Set<String> = ["--verbose", "--trace", "--trace-ascii"]

    static let capture = CommandSpec(
        path: ["capture"],
        summary: "Run curl and record the request and the full response into the session.",
        usage: "capture [--session NAME] [--tag TAG]… -- curl ARGS…",
        discussion: """
            curl runs with your arguments, output and exit status unchanged; userdebug adds
            --trace FILE --trace-time to a copy of the arguments and records from the trace
            (status, headers, body, timing). Every request curl makes is recorded: each URL of
            several, and each hop of a redirect followed with -L. A chunked body is de-chunked, a
            compressed one kept as received. With -v, --verbose, --trace or --trace-ascii curl
            runs untouched and nothing is recorded. The trace file (0600, in the state
            directory) is deleted afterwards. A line on stderr says what was recorded (not with
            --quiet). A login the config's "login" rules match (e.g. POST /v1/login) records the
            session from its body and makes it current, and the exchange is recorded under it;
            with such a rule, no session is needed beforehand.
            Example: userdebug capture --tag login -- curl -s -d @login.json "$API/login"
            """,
        options: [.value("tag", "TAG", repeatable: true, completes: .dynamic(.tags), "Tag every recorded response.")],
        maxPositionals: Int.max
    ) { invocation in
        let arguments = invocation.arguments.positionals
        guard let program = arguments.first, program == "curl" || program.hasSuffix("/curl") else {
            throw CommandError(.usage, "expected 'capture -- curl ARGS…'")
        }
        // Fail before running anything when there is no session to record into (unless a login
        // rule may make one from what curl gets).
        let rules = try LoginRecording.rules(invocation)
        let session = try LoginRecording.sessionIfAny(invocation, rules: rules)
        guard let executable = findExecutable(program, path: invocation.environment["PATH"]) else {
            throw CommandError(.unavailable, "\(program) not found on PATH")
        }
        let userArguments = Array(arguments.dropFirst())
        if let conflict = userArguments.first(where: conflicts) {
            invocation.diagnostics.notice("not recording: '\(conflict)' asks curl for its own trace output")
            let status = try CurlProcess.run(executable, arguments: userArguments, environment: invocation.environment)
            if status != 0 { throw PassThroughExit(status: status) }
            return
        }
        let tracePath = try ExportFiles.temporaryFile(in: invocation.paths.stateDirectory, prefix: "capture-")
        defer { unlink(tracePath) }
        let started = Date()
        let status = try CurlProcess.run(
            executable, arguments: userArguments + ["--trace", tracePath, "--trace-time"],
            environment: invocation.environment)
        let trace = readTrace(tracePath)
        // The trace holds the whole exchange in hex: gone before anything else can go wrong.
        unlink(tracePath)
        if let signal = CurlProcess.terminatedBy { throw PassThroughExit(status: 128 + signal) }
        let tags = invocation.arguments.all("tag")
        let responses = trace.exchanges.map { exchange in
            BackendResponse(
                request: exchange.request, status: exchange.status, headers: exchange.headers, body: exchange.body,
                startedAt: started.addingTimeInterval(exchange.startOffset),
                durationMs: (exchange.duration * 1000 * 1000).rounded() / 1000, tags: tags)
        }
        do {
            try refuseControlCharacters(responses, invocation: invocation, session: session)
            // A request target that makes no http(s) URL (curl --request-target '-K/x') is not
            // recorded: the URL would end up in curl commands and templates.
            for (index, response) in responses.enumerated() {
                if let problem = HTTPURL.problem(response.request.url) {
                    throw CommandError(
                        .dataError,
                        "exchange \(index + 1) (\(response.request.method)): \(problem); nothing was recorded")
                }
            }
            if !responses.isEmpty {
                try record(responses, session: session, rules: rules, invocation: invocation)
            }
            if responses.isEmpty {
                invocation.diagnostics.notice("nothing recorded: curl got no response")
            } else if trace.unanswered > 0 {
                invocation.diagnostics.notice("\(trace.unanswered) request(s) got no response; not recorded")
            }
        } catch  where status != 0 {
            // curl already failed and said why; its status is what the caller needs.
            invocation.diagnostics.notice("not recorded: \(ErrorReport.classify(error).1)")
        }
        if status != 0 { throw PassThroughExit(status: status) }
    }

    /// Records `responses` under the session a login among them made current (by `rules`), else
    /// under `session`, and says so on stderr.
    static func record(_ responses: [BackendResponse], session: Session?, rules: [LoginRule], invocation: Invocation)
        throws
    {
        let login = try LoginRecording.apply(responses, rules: rules, invocation: invocation)
        guard let target = login?.session.name ?? session?.name else { throw LoginRecording.noSession(invocation) }
        let ids = try invocation.storeForWriting().record(responses, session: target)
        let what = zip(ids, responses).map { "\($0.0) (\($0.1.request.method) → \($0.1.status))" }
        invocation.diagnostics.notice("recorded response \(what.joined(separator: ", "))")
        if let login { LoginRecording.report(login, responseID: ids[login.index], invocation: invocation) }
    }

    /// The trace file read a megabyte at a time (it is five times the size of what went over
    /// the wire); an unreadable file reads as an empty trace, as curl may not have written one.
    static func readTrace(_ path: String) -> CurlTrace {
        var reader = CurlTrace.Reader()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return reader.finish() }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            reader.consume(buffer[..<count])
        }
        return reader.finish()
    }

    /// Refuses the whole capture (exit 65) when a header curl sent or received holds a control
    /// character (`HeaderField`), naming the exchange by its redacted URL and the header.
    static func refuseControlCharacters(_ responses: [BackendResponse], invocation: Invocation, session: Session?)
        throws
    {
        for (index, response) in responses.enumerated() {
            guard let problem = HeaderField.problem(in: response) else { continue }
            let url = try invocation.redactor(for: session)?.redactURL(response.request.url) ?? response.request.url
            throw CommandError(
                .dataError,
                "not recorded: exchange \(index + 1) of \(responses.count) (\(response.request.method) \(url)): \(problem)"
            )
        }
    }

    /// `-v` alone or in a bundle of short flags (`-sv`), or one of the long options.
    static func conflicts(_ argument: String) -> Bool {
        if argument.hasPrefix("--") { return conflictingLongOptions.contains(argument) }
        return argument.hasPrefix("-") && argument.count > 1 && argument.dropFirst().allSatisfy(\.isLetter)
            && argument.contains("v")
    }

    /// `name` itself when it holds a `/`, else the first executable `DIR/name` on `path`.
    static func findExecutable(_ name: String, path: String?) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") where !directory.isEmpty {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// The command finished and the process should exit with a child's status, with no message:
/// the child already said what went wrong. `CLI.run` returns `status` as it is.
struct PassThroughExit: Error, Sendable {
    var status: Int32
}

/// Runs curl for `capture` as a shell would: same stdin, stdout and stderr, default signal
/// dispositions, and the caller waiting with SIGINT and SIGQUIT ignored (as `system(3)` does) so
/// that Ctrl-C stops curl and still lets us record what it got and return its status.
///
/// SIGTERM and SIGHUP (a session ending, `kill`, a service manager) are caught while curl runs and
/// passed on to curl, so curl does not outlive us and we get to delete the trace file; the
/// capture then records nothing and exits 128 + the signal. curl stays in our process group
/// (a terminal's Ctrl-C must reach it), and starts nothing of its own, so the signal goes to its
/// pid.
enum CurlProcess {
    /// The signal that asked us to stop while curl ran, or nil.
    static var terminatedBy: Int32? {
        let signal = received.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    /// Set from the signal handler: the last terminating signal, and curl's pid to pass it to.
    private static let received = Atomic<Int32>(0)
    private static let child = Atomic<Int32>(0)
    private static let forwarded: [Int32] = [SIGTERM, SIGHUP]

    /// Runs `executable ARGS` and returns its exit status, or 128 + the signal that ended it
    /// (what a shell's `$?` says).
    static func run(_ executable: String, arguments: [String], environment: [String: String]) throws(CommandError)
        -> Int32
    {
        // The CLI ignores SIGPIPE for its own checked writes; curl must get the default back, and
        // so must SIGINT/SIGQUIT, which we ignore below while waiting.
        var options = ChildProcess.Options()
        let oldInterrupt = signal(SIGINT, SIG_IGN)
        let oldQuit = signal(SIGQUIT, SIG_IGN)
        // Touched before the handler can run: a lazy global's first access is not signal-safe.
        _ = received.load(ordering: .relaxed) + child.load(ordering: .relaxed)
        // A signal ignored by whoever started us (`nohup`) stays ignored, for curl too.
        let oldHandlers = forwarded.map { number in
            let old = signal(number, passOn)
            if isIgnored(old) { signal(number, SIG_IGN) }
            return old
        }
        let caught = zip(forwarded, oldHandlers).filter { !isIgnored($0.1) }.map(\.0)
        options.defaultSignals = .only([SIGPIPE, SIGINT, SIGQUIT] + caught)
        defer {
            signal(SIGINT, oldInterrupt)
            signal(SIGQUIT, oldQuit)
            for (number, old) in zip(forwarded, oldHandlers) { signal(number, old) }
            child.store(0, ordering: .relaxed)
        }
        let spawned: ChildProcess
        do throws(SystemError) {
            spawned = try ChildProcess.spawn([executable] + arguments, environment: environment, options: options)
        } catch {
            throw CommandError(.unavailable, "cannot run \(executable): \(error)")
        }
        child.store(spawned.pid, ordering: .relaxed)
        // A signal that came between installing the handler and knowing the pid.
        if let signal = terminatedBy { kill(spawned.pid, signal) }
        do throws(SystemError) {
            return try spawned.wait().shellStatus
        } catch {
            throw CommandError(.ioError, "waiting for \(executable): \(error)")
        }
    }

    private static func isIgnored(_ handler: __sighandler_t?) -> Bool {
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// The handler: only async-signal-safe work (atomic stores and loads, kill).
    private static let passOn: @convention(c) (Int32) -> Void = { number in
        received.store(number, ordering: .relaxed)
        let pid = child.load(ordering: .relaxed)
        if pid > 0 { kill(pid, number) }
    }
}
