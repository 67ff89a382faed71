public import Foundation
import UserDebugKit

/// posix_spawn with a clean signal state and our own waitpid (the package's `ChildProcess`).
/// Foundation's Process leaves the spawning thread's blocked signals in the child (Xvfb then
/// ignores SIGTERM) and can miss a child's exit; tests need neither surprise.
///
/// A test kills what it spawns, by pid, in a `defer`. What a hung or crashed test process cannot
/// kill any more, `Scripts/reaper.py` does: `Scripts/test.sh` runs the suite under it as a child
/// subreaper, so every process started here (and whatever those detach) is killed when the run
/// ends, and a run that leaves one behind fails. Not PR_SET_PDEATHSIG: it fires when the
/// spawning *thread* exits, and Dispatch retires idle worker threads while their children live.
public struct Spawned: Sendable {
    private let child: ChildProcess
    /// The child's process id.
    public var pid: pid_t { child.pid }
    /// Write end of the child's standard input, when piped.
    public var input: Int32 = -1
    /// Read end of the child's standard output, when piped.
    public var output: Int32 = -1

    /// Starts `arguments` (an absolute path first) with exactly `environment`, optionally with
    /// pipes to its standard input and from its standard output.
    public static func start(
        _ arguments: [String], environment: [String: String], pipeInput: Bool = false, pipeOutput: Bool = false
    ) throws -> Spawned {
        var options = ChildProcess.Options()
        options.searchesPath = true
        options.defaultSignals = .all
        options.error = .null
        let inPipe = pipeInput ? try FileDescriptor.pipe() : nil
        let outPipe = pipeOutput ? try FileDescriptor.pipe() : nil
        options.input = inPipe.map { .descriptor($0.read) } ?? .null
        options.output = outPipe.map { .descriptor($0.write) } ?? .null
        let spawned = Result { () throws(SystemError) in
            try ChildProcess.spawn(arguments, environment: environment, options: options)
        }
        for end in [inPipe?.read, outPipe?.write].compactMap(\.self) { close(end.rawValue) }
        switch spawned {
        case .success(let child):
            return Spawned(child: child, input: inPipe?.write.rawValue ?? -1, output: outPipe?.read.rawValue ?? -1)
        case .failure(let error):
            for end in [inPipe?.write, outPipe?.read].compactMap(\.self) { close(end.rawValue) }
            throw FixtureError("spawn \(arguments[0]) failed: \(error)")
        }
    }

    /// Writes everything to the child's input and closes it.
    public func send(_ bytes: [UInt8]) {
        try? FileDescriptor(input).writeAll(bytes)
        close(input)
    }

    /// Reads the child's output to end of file and closes it.
    public func receiveAll() -> [UInt8] {
        defer { close(output) }
        return (try? FileDescriptor(output).readAll()) ?? []
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
        (try? child.wait())?.shellStatus ?? 0
    }

    /// Sends `signal` to the child (SIGKILL by default).
    public func kill(_ signal: Int32 = SIGKILL) {
        _ = Glibc.kill(pid, signal)
    }
}
