import Foundation
import Testing
import UserDebugCapture

@testable import UserDebugKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sessions that follow the app: a login the URLSession hook sees becomes the current session by
/// a login rule, and `UserDebugSession` records and ends one directly. In the serialized suite of
/// the other capture tests: `UserDebugCapture.start` is process-wide.
extension URLProtocolCaptureTests {
    static func temporaryLoginStore() throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "userdebug-login-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("store.sqlite3").path)
    }

    @Test func aLoginThroughAHookedSessionBecomesTheCurrentSession() async throws {
        let (directory, storePath) = try Self.temporaryLoginStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try SpawnedEchoServer(directory: directory)
        defer { server.stop() }
        let errors = ErrorBox()
        // No session yet: the login makes the first one.
        UserDebugCapture.start(
            storePath: storePath, session: nil, loginRules: [try LoginRule(match: "POST /v1/login")],
            onError: { errors.append($0) })
        defer { UserDebugCapture.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [UserDebugURLProtocol.self]
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/login")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"username": "hooked", "password": "pw"}"#.utf8)
        let (data, _) = try await URLSession(configuration: configuration).data(for: request)
        #expect(String(decoding: data, as: UTF8.self).contains("usr_hooked"))

        let store = try SessionStore.open(path: storePath, mode: .readWrite)
        var current: Session?
        for _ in 0..<500 where current == nil {
            current = try? store.currentSession()
            if current == nil { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        let session = try #require(current, "no session after the login: \(errors.all)")
        #expect(session.name == "usr_hooked@127.0.0.1:\(server.port)")
        #expect(session.user.identifier == "usr_hooked" && session.user.name == "Hooked Login")
        #expect(session.token == "tok-login-canary-83c1f0")
        #expect(session.baseURL == "http://127.0.0.1:\(server.port)")
        var recorded: [BackendResponse] = []
        for _ in 0..<500 where recorded.isEmpty {
            recorded = try store.responses(ResponseQuery(session: session.name))
            if recorded.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        #expect(recorded.map(\.request.method) == ["POST"], "the login response is recorded under its session")
        #expect(errors.all.isEmpty, "\(errors.all)")
    }

    struct Account: Encodable {
        var id: Int
        var displayName: String
        var email: String
    }

    @Test func theAppRecordsItsSessionAfterLoginAndEndsItAtLogout() throws {
        let (directory, storePath) = try Self.temporaryLoginStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = try UserDebugSession.loggedIn(
            user: Account(id: 4711, displayName: "Ada", email: "ada@example.test"), token: "tok-app-1",
            baseURL: URL(string: "https://api.staging.example/v1"), environment: "staging", storePath: storePath)
        #expect(name == "4711@api.staging.example")
        let store = try SessionStore.open(path: storePath, mode: .readWrite)
        let session = try #require(try store.currentSession())
        #expect(session.name == name && session.user.identifier == "4711" && session.user.name == "Ada")
        #expect(session.user.fields["email"] == .string("ada@example.test"))
        #expect(session.token == "tok-app-1" && session.environment == "staging")
        #expect(session.baseURL == "https://api.staging.example/v1")

        #expect(try UserDebugSession.loggedOut(storePath: storePath) == name)
        #expect(try store.currentSession() == nil, "after logout no session is current")
        #expect(try store.session(named: name)?.token == nil, "the token is gone")
        #expect(try store.session(named: name)?.user.identifier == "4711", "the user stays")
        #expect(try UserDebugSession.loggedOut(storePath: storePath) == nil)

        // From a login response's body, with the default paths; a body without a user is refused.
        let body = Data(#"{"data": {"user": {"uid": "u-9"}, "access_token": "tok-2"}}"#.utf8)
        let fromBody = try UserDebugSession.loggedIn(
            responseBody: body, url: URL(string: "https://api.example/login")!, storePath: storePath)
        #expect(fromBody == "u-9@api.example")
        #expect(try store.currentSession()?.token == "tok-2")
        #expect(throws: DocumentError.self) {
            try UserDebugSession.loggedIn(
                responseBody: Data(#"{"ok": true}"#.utf8), url: URL(string: "https://api.example/login")!,
                storePath: storePath)
        }
        struct Nameless: Encodable { var email = "x@example.test" }
        #expect(throws: DocumentError.self) {
            try UserDebugSession.loggedIn(user: Nameless(), token: nil, storePath: storePath)
        }
    }
}
