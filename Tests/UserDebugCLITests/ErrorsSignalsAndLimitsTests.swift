import Foundation
import TestSupport
import Testing

/// Three smaller leaks: a failing config command's stderr in the error and in `--trace`, a
/// capture stopped by SIGTERM (its trace file holds the whole exchange in hex), and one record
/// larger than `retention.maxBytes`.
@Suite struct ErrorsSignalsAndLimitsTests {
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnLWVycm9yLWNhbmFyeQ"

    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    @Test func aFailingCommandsStderrIsRedactedInTheErrorAndTheTrace() throws {
        try home.file(
            "config/config.json",
            #"""
            {"actions": [
              {"id": "echo-stdin", "title": "E", "template": "{{session.token}} {{user.apiKey}}", "secret": true,
               "command": ["sh", "-c", "cat >&2; exit 3"]},
              {"id": "json-line", "title": "J", "command": ["sh", "-c", "echo '{\"password\": \"hunter2\"}' >&2; exit 3"]},
              {"id": "jwt-line", "title": "W", "command": ["sh", "-c", "echo \"refresh=$0 failed\" >&2; exit 3", "\#(Self.jwt)"]}
            ]}
            """#)
        for id in ["echo-stdin", "json-line", "jwt-line"] {
            for extra in [[], ["--reveal"]] {
                let result = try home.run(["run", id, "--trace", "--to", "stdout"] + extra)
                #expect(result.status == 69, "\(id): \(result)")
                #expect(result.err.contains("failed (exit status 3)"), "\(id): \(result.err)")
                for secret in [Samples.canary, "ak-secret-1", "hunter2", Self.jwt] {
                    #expect(
                        !result.err.contains(secret) && !result.out.contains(secret), "\(id) \(extra): \(result.err)")
                }
                #expect(result.err.contains("[redacted]"), "\(id): \(result.err)")
            }
        }
    }

    /// Processes whose parent is `pid`, from /proc.
    func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    func traceFiles() -> [String] {
        let state = home.root.appendingPathComponent("state").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []).filter { $0.hasPrefix("capture-") }
    }

    @Test func sigtermDuringACaptureStopsCurlAndRemovesTheTrace() throws {
        let server = try HostileServer(.slow)
        let capture = try Spawned.start(
            [UserDebugHome.binary, "capture", "--", "curl", "-s", "-o", "/dev/null", server.baseURL + "/slow"],
            environment: home.environment)
        var curl: Int32 = 0
        defer { if curl > 0 { kill(curl, SIGKILL) } }
        let started = eventually(timeout: 30) {
            guard let pid = children(of: capture.pid).first, let name = traceFiles().first else { return false }
            curl = pid
            let path = home.root.appendingPathComponent("state/" + name).path
            return ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 1000
        }
        #expect(started, "curl did not start receiving")
        capture.kill(SIGTERM)
        #expect(capture.wait() == 143)
        #expect(traceFiles().isEmpty, "the trace file was left: \(traceFiles())")
        #expect(curl > 0 && eventually(timeout: 20) { processExited(curl) }, "curl \(curl) is still running")
    }

    /// Peak resident memory of `userdebug ARGS` (and curl, which it waits for), in bytes.
    func peakMemory(_ arguments: [String]) throws -> Int {
        let child = try Spawned.start([UserDebugHome.binary] + arguments, environment: home.environment)
        var status: Int32 = 0
        var usage = rusage()
        while wait4(child.pid, &status, 0, &usage) < 0 && errno == EINTR {}
        #expect(status == 0, "userdebug \(arguments) exited with wait status \(status)")
        return usage.ru_maxrss * 1024
    }

    /// The trace curl writes is five times the body; it is read a piece at a time, and a large
    /// body goes into SQLite through incremental blob I/O, so the body is held about once.
    @Test func aCaptureHoldsALargeBodyAboutOnce() throws {
        let server = try HostileServer(.sized)
        let size = 16 << 20
        let base = try peakMemory(["capture", "--", "curl", "-s", "-o", "/dev/null", server.baseURL + "/bytes/10"])
        let peak = try peakMemory(["capture", "--", "curl", "-s", "-o", "/dev/null", server.baseURL + "/bytes/\(size)"])
        #expect(peak - base <= 2 * size, "peak \(peak) bytes, \(base) for an empty body, body \(size)")
        let body = try home.ok(["print-response", "--to", "stdout"]).stdout
        #expect(body.count == size + 1 && body.dropLast().allSatisfy { $0 == UInt8(ascii: "z") })
    }

    @Test func aRecordLargerThanTheRetentionCapIsRefused() throws {
        try home.file("config/config.json", #"{"retention": {"maxBytes": 100000}}"#)
        let big = String(repeating: "x", count: 150_000)
        let document =
            #"{"request": {"method": "POST", "url": "https://api.example.com/up", "body": "\#(big)"}, "response": {"status": 200}}"#
        let before = try home.storeFingerprint()
        let result = try home.run(["response", "record", "-"], stdin: Data(document.utf8))
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains("retention.maxBytes") && result.err.contains("100000"), "\(result.err)")
        #expect(try home.storeFingerprint() == before)
        let small = #"{"request": {"method": "GET", "url": "https://api.example.com/ok"}, "response": {"status": 200}}"#
        try home.ok(["response", "record", "-"], stdin: small)
    }

    @Test func aCapturedExchangeLargerThanTheCapIsNotRecorded() throws {
        try home.file("config/config.json", #"{"retention": {"maxBytes": 100000}}"#)
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let body = try home.file("big.txt", String(repeating: "y", count: 150_000))
        let result = try home.run([
            "capture", "--", "curl", "-s", "-o", "/dev/null", "--data-binary", "@" + body, server.baseURL + "/echo",
        ])
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains("retention.maxBytes"), "\(result.err)")
        #expect(try home.ok(["response", "list"]).out.isEmpty)
    }
}
