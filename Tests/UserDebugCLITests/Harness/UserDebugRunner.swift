import Foundation
import Testing

/// What one run of the built `userdebug` binary did.
struct RunResult: CustomStringConvertible {
    var status: Int32
    var stdout: Data
    var stderr: Data

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }
    var description: String { "exit \(status)\nstdout: \(out)\nstderr: \(err)" }
}

/// A throwaway userdebug home (USERDEBUG_HOME) and a way to run the real binary in it, as a user
/// would: arguments, stdin, environment; no X display unless one is given.
final class UserDebugHome: @unchecked Sendable {
    let root: URL
    var environment: [String: String]

    init() throws {
        // A child that stops reading stdin early must not kill the test runner with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        root = FileManager.default.temporaryDirectory.appendingPathComponent("userdebug-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        environment = [
            "USERDEBUG_HOME": root.path,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": root.path,
            "LANG": "C.UTF-8",
        ]
        // Under a sanitizer (Scripts/test.sh) the binary driven is a sanitized build too: it gets
        // the run's options (ASan's detect_leaks=0), as it would get them from a user's shell.
        for name in ["ASAN_OPTIONS", "TSAN_OPTIONS"] {
            environment[name] = ProcessInfo.processInfo.environment[name]
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    var databasePath: String { root.appendingPathComponent("data/userdebug.sqlite3").path }
    var configPath: String { root.appendingPathComponent("config/config.json").path }

    /// The built binary beside the test bundle (`swift build` builds it before `swift test`).
    static let binary: String = {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // On Linux the test runner is `<build>/debug/userdebugPackageTests.xctest`.
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("userdebug").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return "userdebug-binary-not-built-run-swift-build-first"
    }()

    /// Writes a file under the home and returns its path.
    @discardableResult
    func file(_ name: String, _ contents: String) throws -> String {
        try file(name, Data(contents.utf8))
    }

    @discardableResult
    func file(_ name: String, _ contents: Data) throws -> String {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: url)
        return url.path
    }

    /// Runs `userdebug ARGS` with `stdin` (nil: /dev/null) and returns what it did.
    @discardableResult
    func run(_ arguments: [String], stdin: Data? = nil, extraEnvironment: [String: String] = [:]) throws -> RunResult {
        try runTool(Self.binary, arguments, stdin: stdin, environment: environment.merging(extraEnvironment) { $1 })
    }

    /// Runs and requires success.
    @discardableResult
    func ok(
        _ arguments: [String], stdin: String? = nil, extraEnvironment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try run(arguments, stdin: stdin.map { Data($0.utf8) }, extraEnvironment: extraEnvironment)
        #expect(
            result.status == 0, "userdebug \(arguments.joined(separator: " ")) failed: \(result)",
            sourceLocation: sourceLocation)
        return result
    }

    /// The store's content as SQL text (sqlite3 .dump, read-only), to show nothing changed. Raw file
    /// bytes would not do: a reader legitimately rewrites the -shm index.
    func storeFingerprint() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-readonly", databasePath, ".dump"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Runs a program with `stdin` (nil: /dev/null) and collects its stdout and stderr. stdin is
/// written and stdout read on threads of their own, so a large input cannot deadlock against a
/// full output pipe.
@discardableResult
func runTool(
    _ executable: String, _ arguments: [String], directory: URL? = nil, stdin: Data? = nil,
    environment: [String: String]? = nil
) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
        let writer = input.fileHandleForWriting
        Thread.detachNewThread {
            try? writer.write(contentsOf: stdin)
            try? writer.close()
        }
    }
    let box = DataBox()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        box.data = out.fileHandleForReading.readDataToEndOfFile()
        done.signal()
    }
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    done.wait()
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus, stdout: box.data, stderr: errData)
}

final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// The sample session used across tests: a canary token that must never leak.
enum Samples {
    static let canary = "canary-7f3a9c-tok"
    static let session = """
        {"name": "staging", "user": {"identifier": "usr_1", "name": "Zoë", "email": "zoe@example.com",
         "plan": {"tier": "pro", "seats": 12345678901234567890}, "apiKey": "ak-secret-1"},
         "token": "\(canary)", "baseURL": "https://api.example.com", "environment": "staging"}
        """
    static let loginResponse = """
        {"request": {"method": "POST", "url": "https://api.example.com/v1/login?debug=1",
          "headers": {"Content-Type": "application/json", "Authorization": "Bearer \(canary)"},
          "body": "{\\"user\\":\\"zoe\\",\\"password\\":\\"hunter2\\"}"},
         "response": {"status": 200, "headers": {"Content-Type": "application/json", "Set-Cookie": "sid=\(canary)"},
          "body": "{\\"token\\":\\"\(canary)\\",\\"user\\":{\\"id\\":\\"usr_1\\"}}"},
         "tags": ["login"], "startedAt": "2026-11-30T10:00:00.123Z", "durationMs": 87}
        """
    static let notFound = """
        {"request": {"method": "GET", "url": "https://api.example.com/v1/orders/9"},
         "response": {"status": 404, "body": "{\\"error\\":\\"not found\\"}"}, "durationMs": 12}
        """
}
