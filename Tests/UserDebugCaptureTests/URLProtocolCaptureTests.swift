import Foundation
import Testing
import UserDebugCapture

@testable import UserDebugKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession hook against the echo server: the app gets the real response, the store gets
/// the exchange. Serialized: `UserDebugCapture.start` is process-wide, so two tests at once would record into each
/// other's store.
@Suite(.serialized) struct URLProtocolCaptureTests {
    @Test func aHookedSessionsResponsesAreRecordedAndPassedThrough() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "userdebug-capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appendingPathComponent("store.sqlite3").path
        let store = try SessionStore.open(path: storePath, mode: .readWrite)
        try store.saveSession(Session(name: "app", user: User(identifier: "usr_7")), makeCurrent: true)

        let server = try SpawnedEchoServer(directory: directory)
        defer { server.stop() }
        UserDebugCapture.start(storePath: storePath)
        defer { UserDebugCapture.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [UserDebugURLProtocol.self]
        let session = URLSession(configuration: configuration)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/orders?x=1")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("yes", forHTTPHeaderField: "X-Hooked")
        request.httpBody = Data(#"{"item":"ë"}"#.utf8)
        let (data, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let echoed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(echoed["method"] as? String == "POST")
        #expect(echoed["body_b64"] as? String == Data(#"{"item":"ë"}"#.utf8).base64EncodedString())

        // Recording happens after the app got its response; give it a moment.
        var recorded: [BackendResponse] = []
        for _ in 0..<200 where recorded.isEmpty {
            recorded = try store.responses(ResponseQuery(session: "app"))
            if recorded.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        let exchange = try #require(recorded.first)
        #expect(recorded.count == 1)
        #expect(exchange.request.method == "POST")
        #expect(exchange.request.url == "http://127.0.0.1:\(server.port)/v1/orders?x=1")
        #expect(exchange.request.headers.contains(HTTPHeader(name: "X-Hooked", value: "yes")))
        #expect(exchange.request.body == Array(#"{"item":"ë"}"#.utf8))
        #expect(exchange.status == 200)
        #expect(exchange.body == Array(data))
        #expect(exchange.header("Content-Type") == "application/json")
        #expect(exchange.durationMs != nil && exchange.startedAt != nil)
    }

    /// URLSession decodes a compressed answer for the app and keeps its `Content-Encoding`; the
    /// record keeps the decoded bytes, so it must not keep a header that says they are encoded.
    @Test func aCompressedAnswerIsRecordedDecodedWithoutItsCoding() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "userdebug-capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appendingPathComponent("store.sqlite3").path
        let store = try SessionStore.open(path: storePath, mode: .readWrite)
        try store.saveSession(Session(name: "app", user: User(identifier: "usr_7")), makeCurrent: true)
        let server = try SpawnedEchoServer(directory: directory)
        defer { server.stop() }
        UserDebugCapture.start(storePath: storePath)
        defer { UserDebugCapture.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [UserDebugURLProtocol.self]
        let url = URL(string: "http://127.0.0.1:\(server.port)/encoded/gzip")!
        let (data, _) = try await URLSession(configuration: configuration).data(from: url)
        #expect(String(decoding: data, as: UTF8.self).contains("access_token"), "URLSession decoded it")
        var recorded: [BackendResponse] = []
        for _ in 0..<200 where recorded.isEmpty {
            recorded = try store.responses(ResponseQuery(session: "app"))
            if recorded.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        let exchange = try #require(recorded.first)
        #expect(exchange.body == Array(data))
        #expect(exchange.header("Content-Encoding") == nil, "\(exchange.headers)")
    }

    /// The store refuses a header with a control character whoever records it: the app still
    /// gets its answer, the error handler hears why, and nothing is recorded.
    @Test func aHeaderWithAControlCharacterIsNotRecorded() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "userdebug-capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appendingPathComponent("store.sqlite3").path
        let store = try SessionStore.open(path: storePath, mode: .readWrite)
        try store.saveSession(Session(name: "app", user: User(identifier: "usr_7")), makeCurrent: true)
        let server = try SpawnedEchoServer(directory: directory)
        defer { server.stop() }
        let errors = ErrorBox()
        UserDebugCapture.start(storePath: storePath, onError: { errors.append($0) })
        defer { UserDebugCapture.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [UserDebugURLProtocol.self]
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/hostile")!)
        request.setValue("a\u{3}b", forHTTPHeaderField: "X-Hostile")
        let (_, response) = try await URLSession(configuration: configuration).data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        for _ in 0..<500 where errors.all.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        let error = try #require(errors.all.first as? StoreError)
        #expect(
            error.description.contains(#"request header "X-Hostile": control character 0x03"#), "\(error.description)")
        #expect(try store.responses(ResponseQuery(session: "app")).isEmpty)
    }
}

/// Tests/Support/echo_server.py, spawned with posix_spawn and killed by PID.
final class SpawnedEchoServer: @unchecked Sendable {
    let pid: pid_t
    private(set) var port = 0

    init(directory: URL) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let log = directory.appendingPathComponent("echo.log").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log + ".port", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let words: [String] = [
            "/usr/bin/python3", root.appendingPathComponent("Tests/Support/echo_server.py").path, log, "--lifetime",
            "60",
        ]
        let argv = words.map { word -> UnsafeMutablePointer<CChar>? in strdup(word) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        guard posix_spawn(&child, "/usr/bin/python3", &actions, nil, argv, environ) == 0 else {
            throw CocoaError(.executableLoad)
        }
        pid = child
        for _ in 0..<1000 where port == 0 {
            let text = (try? String(contentsOfFile: log + ".port", encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { port = Int(text.dropLast()) ?? 0 } else { usleep(10_000) }
        }
        #expect(port > 0, "the echo server did not start")
    }

    func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}

/// The errors `UserDebugCapture` reported, from its queue.
final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []

    func append(_ error: any Error) { lock.withLock { errors.append(error) } }

    var all: [any Error] { lock.withLock { errors } }
}
