import Foundation
import Testing

@testable import UserDebugKit

/// Child processes for the multi-process tests, running our store code.
///
/// How: the test re-executes this very test binary (`/proc/self/exe`) with Swift Testing's
/// `--filter` narrowed to `storeChildProcessEntryPoint` and an environment variable naming the
/// child's role. That test is disabled unless the variable is set, so in a normal run it is only
/// listed as skipped; in a child it is the one test that runs, and its result is the child's exit
/// status.
///
/// Why not `fork()` without exec: the test process is multithreaded (Swift Testing runs tests in
/// parallel, some of them inside SQLite), and a forked child inherits whatever locks other threads
/// held at that instant (SQLite's static mutexes, the Swift runtime's metadata locks) with nobody
/// left to release them, so it can deadlock at random. A fresh exec has a clean process, costs
/// about 20 ms, and is killed with SIGKILL exactly like the app would be.
enum StoreChildProcess {
    static let roleVariable = "USERDEBUG_STORE_CHILD_ROLE"
    static let pathVariable = "USERDEBUG_STORE_CHILD_PATH"
    static let numberVariable = "USERDEBUG_STORE_CHILD_NUMBER"
    static let countVariable = "USERDEBUG_STORE_CHILD_COUNT"

    /// The role of this process when it is a child, nil in a normal test run.
    static var role: String? { ProcessInfo.processInfo.environment[roleVariable] }

    /// Responses per batch for the `crasher` role.
    static let batchSize = 20

    /// Starts a child in `role`, its output going to `log`.
    static func spawn(role: String, path: String, number: Int, count: Int = 0, log: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", "storeChildProcessEntryPoint"]
        var environment = ProcessInfo.processInfo.environment
        environment[roleVariable] = role
        environment[pathVariable] = path
        environment[numberVariable] = String(number)
        environment[countVariable] = String(count)
        process.environment = environment
        #expect(FileManager.default.createFile(atPath: log, contents: nil))
        let output = try #require(FileHandle(forWritingAtPath: log))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return process
    }

    /// The child's work, by role.
    static func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let path = try #require(environment[pathVariable])
        let number = Int(environment[numberVariable] ?? "") ?? 0
        let count = Int(environment[countVariable] ?? "") ?? 0
        // What is tested is that nothing is lost, not the busy timeout: eight writers on two
        // loaded cores can keep one waiting past the default 5 s (SQLite's busy handler polls, so
        // the lock is not handed over in order), and since the timeout is one budget per write
        // (issue 13) that would fail the write rather than start it over.
        let store = try SessionStore.open(path: path, mode: .readWrite, busyTimeoutMilliseconds: 120_000)
        store.retention = .unlimited
        switch role {
        case "writer":
            // One transaction per response: the worst case for lock contention.
            for index in 0..<count {
                try store.record(
                    StoreSamples.response(url: "https://w/\(number)/\(index)", tags: ["worker-\(number)"]),
                    session: "shared")
            }
        case "crasher":
            // Batches until killed; each batch carries a tag of its own so the parent can tell a
            // whole batch from a torn one.
            let body = [UInt8](repeating: 0x5A, count: 4096)
            var batch = 0
            while true {
                let responses = (0..<batchSize).map {
                    StoreSamples.response(
                        url: "https://c/\(number)/\(batch)/\($0)", tags: ["round-\(number)-batch-\(batch)"], body: body)
                }
                try store.record(responses, session: "crash")
                batch += 1
            }
        default:
            Issue.record("unknown child role \(role ?? "nil")")
        }
    }
}

@Test(.enabled(if: StoreChildProcess.role != nil, "the entry point of the child processes of StoreProcessTests"))
func storeChildProcessEntryPoint() throws {
    try StoreChildProcess.run()
}

/// Several processes on one store. Serialized: each test already loads the machine's cores.
@Suite(.serialized) struct StoreProcessTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func log(_ name: String) -> String {
        (try? String(contentsOfFile: directory.file(name), encoding: .utf8))?.suffix(2000).description ?? ""
    }

    @Test func eightProcessesRecordingAtOnceLoseNothing() throws {
        let path = directory.file("userdebug.sqlite3")
        let workers = 8
        let perWorker = 5000
        try SessionStore.open(path: path, mode: .readWrite).saveSession(
            StoreSamples.session("shared"), makeCurrent: true)

        let children = try (0..<workers).map {
            try StoreChildProcess.spawn(
                role: "writer", path: path, number: $0, count: perWorker, log: directory.file("writer-\($0).log"))
        }
        for (number, child) in children.enumerated() {
            child.waitUntilExit()
            #expect(child.terminationReason == .exit && child.terminationStatus == 0, "\(log("writer-\(number).log"))")
        }

        let store = try SessionStore.open(path: path, mode: .readOnly)
        #expect(try store.responseCount(session: nil) == workers * perWorker)
        #expect(try store.column("SELECT count(DISTINCT url) FROM responses") == ["\(workers * perWorker)"])
        for number in 0..<workers {
            #expect(
                try store.responses(ResponseQuery(tag: "worker-\(number)", includeBodies: false)).count == perWorker)
        }
        #expect(try store.integrityCheck() == [])
    }

    @Test func aWriterKilledMidBatchLeavesEveryBatchWholeOrAbsent() throws {
        let path = directory.file("userdebug.sqlite3")
        try SessionStore.open(path: path, mode: .readWrite).saveSession(
            StoreSamples.session("crash"), makeCurrent: true)
        let reader = try SessionStore.open(path: path, mode: .readOnly)

        for round in 0..<25 {
            let before = try reader.responseCount(session: nil)
            let child = try StoreChildProcess.spawn(
                role: "crasher", path: path, number: round, log: directory.file("crasher.log"))
            // Kill only once it is writing (it has committed a batch), at a random moment after.
            // The bound on the wait only keeps a broken child from hanging the test.
            var polls = 0
            while child.isRunning, try reader.responseCount(session: nil) == before, polls < 60_000 {
                usleep(500)
                polls += 1
            }
            usleep(UInt32.random(in: 0..<30_000))
            if child.isRunning { kill(child.processIdentifier, SIGKILL) }
            child.waitUntilExit()
            #expect(
                child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL,
                "\(log("crasher.log"))")
        }

        let store = try SessionStore.open(path: path, mode: .readWrite)
        let perBatch = try store.column("SELECT count(*) FROM response_tags GROUP BY tag")
        #expect(perBatch.count >= 25)
        #expect(perBatch.allSatisfy { $0 == "\(StoreChildProcess.batchSize)" }, "\(Set(perBatch))")
        #expect(
            try store.column("SELECT count(*) FROM responses") == ["\(perBatch.count * StoreChildProcess.batchSize)"])
        #expect(try store.responseCount(session: nil) == perBatch.count * StoreChildProcess.batchSize)
        #expect(try store.integrityCheck() == [])
    }
}
