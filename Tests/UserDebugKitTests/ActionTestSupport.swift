import Synchronization
import Testing

@testable import UserDebugKit

/// Shared pieces for the action tests: a session, a context, an event recorder.
enum ActionFixtures {
    static let token = "tok-canary-91"
    static let session = Session(
        name: "staging",
        user: User(
            identifier: "usr_1", name: "Zoë",
            fields: JSONObject(["email": .string("zoe@example.com"), "apiKey": .string("ak-1")])),
        token: token, baseURL: "https://api.example.com", environment: "staging")

    static let responses = [
        BackendResponse(
            id: 1, sessionName: "staging",
            request: BackendRequest(method: "POST", url: "https://api.example.com/login"),
            status: 200, body: Array("{\"token\":\"\(token)\"}".utf8), tags: ["login"]),
        BackendResponse(
            id: 2, sessionName: "staging",
            request: BackendRequest(method: "GET", url: "https://api.example.com/orders/9"),
            status: 404, body: Array("{\"error\":\"not found\"}".utf8)),
    ]

    static func context(reveal: Bool = false, environment: [String: String] = [:]) -> ActionContext {
        .inMemory(session: session, responses: responses, reveal: reveal, environment: environment)
    }

    static func action(_ id: String, _ text: String = "x") -> MenuElement {
        .action(DebugAction(id: id, title: id) { _ in Payload(text: text) })
    }
}

/// Records a menu's events in order.
final class EventRecorder: Sendable {
    private let recorded = Mutex<[MenuEvent]>([])

    var events: [MenuEvent] { recorded.withLock { $0 } }
    var observer: MenuObserver { MenuObserver { event in self.recorded.withLock { $0.append(event) } } }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
}
