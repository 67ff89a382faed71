import Foundation
import UserDebugCapture

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's own user model, as its backend sends it.
struct Account: Codable, Sendable {
    let id: String
    let name: String
    let email: String
}

/// The backend's answer to `POST /v1/login`.
struct LoginAnswer: Codable, Sendable {
    let user: Account
    let token: String
}

/// Logs in to `api` and returns the answer.
func logIn(api: URL, username: String, password: String) async throws -> LoginAnswer {
    var request = URLRequest(url: api.appendingPathComponent("v1/login"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = try JSONEncoder().encode(["username": username, "password": password])
    let (data, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.userAuthenticationRequired) }
    return try JSONDecoder().decode(LoginAnswer.self, from: data)
}

// Usage: SessionApp API_URL USERNAME   (log in)
//        SessionApp logout
let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "logout" {
    #if DEBUG
        // One call after logout.
        let ended = try UserDebugSession.loggedOut()
        print("userdebug session ended: \(ended ?? "none")")
    #endif
    print("signed out")
} else if arguments.count == 2, let api = URL(string: arguments[arguments.startIndex]) {
    let answer = try await logIn(api: api, username: arguments[arguments.startIndex + 1], password: "pw")
    print("signed in as \(answer.user.name)")
    #if DEBUG
        // One call after login: the user and token become userdebug's current session.
        let name = try UserDebugSession.loggedIn(user: answer.user, token: answer.token, baseURL: api)
        print("userdebug session: \(name)")
    #endif
} else {
    print("usage: SessionApp API_URL USERNAME | SessionApp logout")
    exit(64)
}
