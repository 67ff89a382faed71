import Foundation
import Testing
import UserDebugKit

/// Where a bounded run's standard output goes.
enum StdoutSetup: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// A pipe the test reads to its end.
    case captured
    /// Closed, as the shell's `>&-` leaves it.
    case closed
    /// /dev/full: every write fails with ENOSPC.
    case full
    /// A pipe whose read end was closed before the start: every write fails with EPIPE.
    case brokenPipe

    var testDescription: String {
        switch self {
        case .captured: "a pipe"
        case .closed: ">&-"
        case .full: ">/dev/full"
        case .brokenPipe: "a broken pipe"
        }
    }
}

/// What a bounded run did.
struct BoundedResult: CustomStringConvertible {
    var termination: ChildProcess.Termination
    var stdout: [UInt8]
    var stderr: String
    /// It was still running at its deadline and was killed.
    var overran: Bool

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var description: String { "\(termination)\nstdout: \(out)\nstderr: \(stderr)" }
}

/// A started bounded run: the child and the ends of its pipes that are ours.
private struct StartedRun {
    var child: ChildProcess
    var err: FileDescriptor
    var out: FileDescriptor?
    var input: FileDescriptor?
}

/// Starts `argv` with its standard streams set up for `runBounded`.
private func startRun(_ argv: [String], environment: [String: String], stdin: Bool, stdout: StdoutSetup) throws
    -> StartedRun
{
    let errPipe = try FileDescriptor.pipe()
    let outPipe = stdout == .captured || stdout == .brokenPipe ? try FileDescriptor.pipe() : nil
    let inPipe = stdin ? try FileDescriptor.pipe() : nil
    var options = ChildProcess.Options()
    options.error = .descriptor(errPipe.write)
    options.input = inPipe.map { .descriptor($0.read) } ?? .null
    var command = argv
    var ours: [FileDescriptor] = [errPipe.write] + [inPipe?.read, outPipe?.write].compactMap(\.self)
    switch stdout {
    case .captured, .brokenPipe: options.output = .descriptor(outPipe!.write)
    case .full:
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        guard full >= 0 else { throw FixtureError(message: "cannot open /dev/full") }
        options.output = .descriptor(FileDescriptor(full))
        ours.append(FileDescriptor(full))
    case .closed: command = ["/bin/sh", "-c", "exec \"$0\" \"$@\" >&-"] + argv
    }
    // The broken pipe's read end is closed before the start: the child's first write fails.
    if stdout == .brokenPipe { close(outPipe!.read.rawValue) }
    let spawned = Result { () throws(SystemError) in
        try ChildProcess.spawn(command, environment: environment, options: options)
    }
    for fd in ours { close(fd.rawValue) }
    let out = stdout == .captured ? outPipe?.read : nil
    switch spawned {
    case .success(let child): return StartedRun(child: child, err: errPipe.read, out: out, input: inPipe?.write)
    case .failure(let error):
        for fd in [errPipe.read, out, inPipe?.write].compactMap(\.self) { close(fd.rawValue) }
        throw FixtureError(message: "spawn \(argv[0]): \(error)")
    }
}

/// Runs `argv` (an absolute path first) with exactly `environment`, `stdin` on its standard input
/// (nil: /dev/null), standard output as `stdout` says and standard error read. Nothing asserts a
/// time: the deadline (generous, in seconds) only bounds a hang. A run still going at it is
/// killed and recorded as an issue; so is a standard output or error that something it started
/// kept open past the deadline (a `| cat` would then never end).
func runBounded(
    _ argv: [String], environment: [String: String], stdin: [UInt8]? = nil, stdout: StdoutSetup = .captured,
    deadline: Double = 30, sourceLocation: SourceLocation = #_sourceLocation
) throws -> BoundedResult {
    let end = Date().addingTimeInterval(deadline)
    let run = try startRun(argv, environment: environment, stdin: stdin != nil, stdout: stdout)
    if let writer = run.input, let stdin {
        Thread.detachNewThread {
            try? writer.writeAll(stdin)
            close(writer.rawValue)
        }
    }
    let killed = Flag()
    let exited = DispatchSemaphore(value: 0)
    let pid = run.child.pid
    Thread.detachNewThread {
        guard exited.wait(timeout: .now() + max(0, end.timeIntervalSinceNow)) == .timedOut else { return }
        killed.set()
        kill(pid, SIGKILL)
    }
    let errBytes = readToEnd(run.err, until: end)
    let outBytes = run.out.map { readToEnd($0, until: end) } ?? (bytes: [], ended: true)
    let termination = (try? run.child.wait()) ?? .exited(-1)
    exited.signal()
    let result = BoundedResult(
        termination: termination, stdout: outBytes.bytes, stderr: String(decoding: errBytes.bytes, as: UTF8.self),
        overran: killed.isSet)
    if result.overran {
        Issue.record(
            "\(argv.joined(separator: " ")) still ran after \(deadline) s: killed\n\(result)",
            sourceLocation: sourceLocation)
    } else if !errBytes.ended || !outBytes.ended {
        Issue.record(
            "something \(argv.joined(separator: " ")) started kept its output open past the deadline",
            sourceLocation: sourceLocation)
    }
    return result
}

/// Reads `fd` to end of file or until `end`, then closes it; `ended`: end of file was reached.
func readToEnd(_ fd: FileDescriptor, until end: Date) -> (bytes: [UInt8], ended: Bool) {
    defer { close(fd.rawValue) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while Date() < end {
        var ready = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
        let waited = poll(&ready, 1, 100)
        if waited < 0 && errno != EINTR { return (bytes, false) }
        if waited <= 0 { continue }
        let n = chunk.withUnsafeMutableBytes { read(fd.rawValue, $0.baseAddress, $0.count) }
        if n == 0 { return (bytes, true) }
        if n < 0 && errno != EINTR && errno != EAGAIN { return (bytes, false) }
        if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
    }
    return (bytes, false)
}

/// A flag set once, read from another thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
