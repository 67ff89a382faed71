import Foundation
import Testing

/// The repository root, from this file's path (tests never read anything outside the project).
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// What a user reads: README.md, then every page of docs/ by name. Tests that run the documented
/// recipes take them from here, wherever the text lives.
func userDocumentation() throws -> String {
    let docs = repositoryRoot.appendingPathComponent("docs")
    let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
    return try ([repositoryRoot.appendingPathComponent("README.md")] + pages.map { docs.appendingPathComponent($0) })
        .map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
}

/// One request as the echo server received it, bytes as on the wire.
struct EchoedRequest {
    var method: String
    var target: String
    var headers: [(name: Data, value: Data)]
    var body: Data

    /// Whether a header with exactly these name and value bytes arrived.
    func hasHeader(_ name: String, _ value: Data) -> Bool {
        headers.contains { $0.name == Data(name.utf8) && $0.value == value }
    }

    func header(_ name: String) -> String? {
        headers.first { String(decoding: $0.name, as: UTF8.self).lowercased() == name.lowercased() }
            .map { String(decoding: $0.value, as: UTF8.self) }
    }
}

/// `Tests/Support/echo_server.py` on 127.0.0.1, on a port the kernel picks, for one test: started
/// with a lifetime (it exits on its own if the test dies) and stopped by its PID.
///
/// Spawned with posix_spawn rather than Foundation's Process: Process watches every child with a
/// blocking wait on a Dispatch worker, and a few long-lived servers on a 2-core machine would hold
/// all the workers, so no other test's process would ever be seen to exit.
final class EchoServer: @unchecked Sendable {
    let pid: pid_t
    let logPath: String
    private(set) var port = 0
    private var stopped = false

    init(directory: URL) throws {
        logPath = directory.appendingPathComponent("echo-\(UUID().uuidString).log").path
        let portPath = logPath + ".port"
        let script = repositoryRoot.appendingPathComponent("Tests/Support/echo_server.py").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, portPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, logPath + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let words: [String] = ["/usr/bin/python3", script, logPath, "--lifetime", "120"]
        let argv = words.map { word -> UnsafeMutablePointer<CChar>? in strdup(word) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let spawned = posix_spawn(&child, "/usr/bin/python3", &actions, nil, argv, environ)
        guard spawned == 0 else { throw CocoaError(.executableLoad) }
        pid = child
        // The port is the first line the server prints; give it 10 s on a loaded machine.
        for _ in 0..<1000 {
            let text = (try? String(contentsOfFile: portPath, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n"), let number = Int(text.dropLast()) {
                port = number
                break
            }
            usleep(10_000)
        }
        #expect(
            port > 0,
            "the echo server did not start: \((try? String(contentsOfFile: logPath + ".err", encoding: .utf8)) ?? "")")
    }

    deinit { stop() }

    var baseURL: String { "http://127.0.0.1:\(port)" }
    /// How a login to this server names its session after the `@`: the host and the port.
    var hostAndPort: String { "127.0.0.1:\(port)" }

    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Lets `GET /gated/NAME` answer (it waits for this, 30 s at most).
    func release(_ name: String) {
        _ = FileManager.default.createFile(atPath: logPath + ".gate-" + name, contents: nil)
    }

    /// The gated answers given so far: "NAME released" (or "NAME unreleased", after 30 s).
    func answered() -> [String] {
        let text = (try? String(contentsOfFile: logPath + ".answered", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Every request received so far, in order.
    func requests() throws -> [EchoedRequest] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let headers = (object["headers"] as? [[String]] ?? []).map { pair in
                (name: Data(base64Encoded: pair[0]) ?? Data(), value: Data(base64Encoded: pair[1]) ?? Data())
            }
            return EchoedRequest(
                method: object["method"] as? String ?? "", target: object["target"] as? String ?? "",
                headers: headers, body: Data(base64Encoded: object["body_b64"] as? String ?? "") ?? Data())
        }
    }
}

/// The project's venv of PyPI consumers (haralyzer, postman-runner), made by Scripts/deps.sh --test.
enum Consumers {
    static let venv = repositoryRoot.appendingPathComponent(".build/pyenv/bin")
    static var python: String { venv.appendingPathComponent("python").path }
    static var postmanRunner: String { venv.appendingPathComponent("postman-runner").path }
    static func support(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("Tests/Support/\(name)").path
    }

    /// Fails the test (never skips it) when the consumers are not installed.
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: python)
                && FileManager.default.isExecutableFile(atPath: postmanRunner),
            "run Scripts/deps.sh --test: it installs haralyzer and postman-runner into .build/pyenv",
            sourceLocation: sourceLocation)
    }
}

extension UserDebugHome {
    /// A session whose base URL is `baseURL`, with the canary token.
    func recordSession(baseURL: String) throws {
        try ok(
            ["session", "import", "-"],
            stdin: """
                {"name": "local", "user": {"identifier": "usr_42", "name": "Zoë"}, "token": "\(Samples.canary)", "baseURL": "\(baseURL)"}
                """)
    }
}
