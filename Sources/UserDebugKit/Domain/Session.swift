public import FoundationEssentials

/// A named login of the app under development: the user, the auth token, the backend it talks to.
public struct Session: Sendable, Hashable {
    /// The session's name (unique in a store), e.g. `staging` or `alice@prod`.
    public var name: String
    /// The logged-in user.
    public var user: User
    /// The auth token (a secret: never shown unless asked for).
    public var token: String?
    /// The backend's base URL, e.g. `https://api.staging.example`: the backend section asks
    /// `baseURL` + its path, and the Postman export turns it into `{{baseUrl}}`.
    public var baseURL: String?
    /// The environment label, e.g. `staging`.
    public var environment: String?
    /// When the session was first recorded.
    public var createdAt: Date
    /// When the session was last changed.
    public var updatedAt: Date

    /// A session named `name`; `updatedAt` defaults to `createdAt`, which defaults to now.
    public init(
        name: String,
        user: User,
        token: String? = nil,
        baseURL: String? = nil,
        environment: String? = nil,
        createdAt: Date = Date(),
        updatedAt: Date? = nil
    ) {
        self.name = name
        self.user = user
        self.token = token
        self.baseURL = baseURL
        self.environment = environment
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }

    /// The token when there is one that can be used: nil when there is none, it is empty, or it
    /// is an export's placeholder (`[redacted]`, `{{authToken}}`) a store recorded before
    /// imports recognised them.
    public var usableToken: String? {
        guard let token, !token.isEmpty, !Redacted.isPlaceholder(token) else { return nil }
        return token
    }
}
