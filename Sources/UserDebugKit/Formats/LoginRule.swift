public import FoundationEssentials

/// A rule of the config's `login` section: a response to a request whose method and path match
/// is a login, and the session (user and token) is read from its JSON body.
///
/// ```json
/// "login": [{"match": "POST /v1/login", "user": "$.user", "token": "$.token"}]
/// ```
///
/// `match` is `METHOD PATH` or just `PATH` (any method); the path is the URL's path without the
/// query, and `*` in it stands for any characters, `/` included (`POST */login`). Only a `2xx`
/// answer with a JSON body is a login: a refused one (`401`) changes nothing. The user is the
/// first of `user`'s paths that finds an object with an identifier (`id`, `identifier`,
/// `userId`, …) or a bare string or integer (taken as the identifier); the token the first of
/// `token`'s paths that finds a non-empty string, unless that string is an export's placeholder
/// (`[redacted]`, `{{authToken}}`), which leaves the session without a token.
public struct LoginRule: Sendable, Equatable {
    /// The method, upper-cased; nil matches any.
    public var method: String?
    /// The URL path pattern; `*` matches any run of characters.
    public var path: String
    /// Where the user may be, tried in order.
    public var userPaths: [JSONPath]
    /// Where the token may be, tried in order; a login without one records the session without a token.
    public var tokenPaths: [JSONPath]
    /// The session's name; nil: `IDENTIFIER@HOST` (the user's identifier, the URL's host).
    public var sessionName: String?
    /// The session's environment label, nil to keep the existing session's one.
    public var environment: String?
    /// The session's base URL; nil: the existing session's one, else the login URL's origin.
    public var baseURL: String?

    /// Where common APIs put the user: `$.user`, `$.data.user`.
    public static let defaultUserPaths = ["$.user", "$.data.user"].map { try! JSONPath($0) }
    /// Where common APIs put the token: `$.token`, `$.access_token`, `$.accessToken`,
    /// `$.data.token`, `$.data.access_token`.
    public static let defaultTokenPaths = [
        "$.token", "$.access_token", "$.accessToken", "$.data.token",
        "$.data.access_token",
    ].map { try! JSONPath($0) }

    /// A rule for `match` (`METHOD PATH` or `PATH`) with the default paths.
    /// - Throws: `DocumentError` when `match` is not of that shape.
    public init(match: String) throws(DocumentError) {
        let words = match.split(separator: " ", omittingEmptySubsequences: true)
        guard (1...2).contains(words.count), let path = words.last, path.hasPrefix("/") || path.hasPrefix("*") else {
            throw DocumentError(
                path: match, message: "expected \"METHOD /path\" or \"/path\" (e.g. \"POST /v1/login\")")
        }
        method = words.count == 2 ? words[0].uppercased() : nil
        self.path = String(path)
        userPaths = Self.defaultUserPaths
        tokenPaths = Self.defaultTokenPaths
    }

    /// Whether `request` is one this rule recognises.
    public func matches(_ request: BackendRequest) -> Bool {
        if let method, method != "*", method != request.method.uppercased() { return false }
        guard let parts = LoginURL(request.url) else { return false }
        return Self.glob(Array(path.utf8)[...], Array(parts.path.utf8)[...])
    }

    /// `*` matches any run of bytes; everything else itself.
    private static func glob(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == UInt8(ascii: "*") {
            let rest = pattern.dropFirst()
            var candidate = text
            while true {
                if glob(rest, candidate) { return true }
                guard !candidate.isEmpty else { return false }
                candidate = candidate.dropFirst()
            }
        }
        return text.first == first && glob(pattern.dropFirst(), text.dropFirst())
    }

    /// What a login response gave: the session, and the origin of the URL it came from (the
    /// base URL when neither the rule nor an existing session of that name has one).
    public struct Login: Sendable, Equatable {
        /// The session: name, user, token; `baseURL` and `environment` only when the rule gives them.
        public var session: Session
        /// `scheme://host[:port]` of the login request.
        public var origin: String?
        /// The placeholder found where the token is (`[redacted]`: a redacted export imported
        /// back); the session then has no token.
        public var tokenPlaceholder: String?

        /// A login of `session`, made at `origin` when known; `tokenPlaceholder` when the token
        /// found was an export's placeholder.
        public init(session: Session, origin: String? = nil, tokenPlaceholder: String? = nil) {
            self.session = session
            self.origin = origin
            self.tokenPlaceholder = tokenPlaceholder
        }
    }

    /// The login `response` is, when it is a successful answer to a request this rule matches.
    /// `name` (the command line's `--session`) names the session before the rule's `session` does.
    /// - Throws: `DocumentError` when the rule matched but the body is not JSON, holds no user
    ///   where the rule says, or a user without an identifier.
    public func login(from response: BackendResponse, name: String?, now: Date = Date()) throws(DocumentError)
        -> Login?
    {
        guard (200...299).contains(response.status), matches(response.request) else { return nil }
        let content = BodyContent(response.body, headers: response.headers)
        guard case .text = content.kind, let body = try? JSONParser().parse(content.bytes) else {
            throw DocumentError(path: "$", message: "the body is not JSON")
        }
        let user = try findUser(in: body)
        var token = tokenPaths.lazy.compactMap { $0.value(in: body)?.stringValue }.first { !$0.isEmpty }
        // A redacted export of a login says "[redacted]" where the token was: not a credential.
        let placeholder = token.flatMap { Redacted.isPlaceholder($0) ? $0 : nil }
        if placeholder != nil { token = nil }
        let url = LoginURL(response.request.url)
        let sessionName =
            name ?? self.sessionName ?? Self.defaultSessionName(identifier: user.identifier, url: response.request.url)
        try SessionDocument.validateName(sessionName, at: "$.name")
        let session = Session(
            name: sessionName, user: user, token: token, baseURL: baseURL, environment: environment, createdAt: now)
        return Login(session: session, origin: url?.origin, tokenPlaceholder: placeholder)
    }

    /// `IDENTIFIER@HOST`, or `IDENTIFIER@HOST:PORT` when the URL names a port other than its
    /// scheme's (so logins to two local servers on two ports are two sessions, not one that each
    /// overwrites); `IDENTIFIER@unknown` without a usable URL. The login rules and the Swift API
    /// (`UserDebugSession.loggedIn`) name a session this way.
    public static func defaultSessionName(identifier: String, url: String?) -> String {
        guard let url, let parts = LoginURL(url) else { return "\(identifier)@unknown" }
        return "\(identifier)@\(parts.hostAndPort)"
    }

    /// The logins among `responses`, in order, each with the index of its response and the rule
    /// (the first that matches a response decides); failed ones carry why.
    public static func logins(in responses: [BackendResponse], rules: [LoginRule], name: String?)
        -> [(index: Int, outcome: Result<Login, DocumentError>)]
    {
        guard !rules.isEmpty else { return [] }
        var found: [(index: Int, outcome: Result<Login, DocumentError>)] = []
        for (index, response) in responses.enumerated() {
            guard let rule = rules.first(where: { $0.matches(response.request) }) else { continue }
            do throws(DocumentError) {
                if let login = try rule.login(from: response, name: name) { found.append((index, .success(login))) }
            } catch {
                found.append((index, .failure(error)))
            }
        }
        return found
    }

    /// Whether `response` looks like a login whatever its URL: a `2xx` JSON answer with a user
    /// object holding an identifier where the default rule looks (`$.user`, `$.data.user`) and a
    /// non-empty token at one of the default token paths. For the hint that a login rule is
    /// missing; a rule decides what is recorded.
    /// A login answer is small: a larger body (a 60 MiB export in a HAR) is not parsed for this.
    public static func looksLikeLogin(_ response: BackendResponse) -> Bool {
        guard (200...299).contains(response.status), response.body.count <= loginBodyLimit else { return false }
        let content = BodyContent(response.body, headers: response.headers)
        guard case .text = content.kind, content.bytes.count <= loginBodyLimit,
            let body = try? JSONParser().parse(content.bytes)
        else { return false }
        let hasUser = defaultUserPaths.contains { path in
            guard let value = path.value(in: body), case .object = value else { return false }
            return (try? SessionDocument.decodeUser(DocumentNode(value, path: path.description))) != nil
        }
        return hasUser && defaultTokenPaths.contains { $0.value(in: body)?.stringValue?.isEmpty == false }
    }

    /// The largest body `looksLikeLogin` reads (64 KiB).
    static let loginBodyLimit = 1 << 16

    private func findUser(in body: JSONValue) throws(DocumentError) -> User {
        for path in userPaths {
            guard let value = path.value(in: body) else { continue }
            switch value {
            case .object:
                return try SessionDocument.decodeUser(DocumentNode(value, path: path.description))
            case .string(let text) where !text.isEmpty:
                return User(identifier: text)
            case .number(let literal) where !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }):
                return User(identifier: literal)
            default:
                continue
            }
        }
        let tried = userPaths.map(\.description).joined(separator: ", ")
        throw DocumentError(path: "$", message: "no user object at \(tried)")
    }
}

/// The parts of an absolute http(s) URL a login rule needs: its path (no query or fragment), its
/// host, and its origin (`scheme://host[:port]`, without any `user@`).
struct LoginURL {
    var path: String
    var host: String
    var origin: String
    /// The host and, when it is not the scheme's default (80, 443), the port.
    var hostAndPort: String

    init?(_ url: String) {
        guard HTTPURL.problem(url) == nil, let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon]
        let rest = url[colon...].dropFirst(3)  // "://", which HTTPURL checked
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        let afterAuthority = rest.dropFirst(authority.count)
        let path = afterAuthority.prefix { $0 != "?" && $0 != "#" }
        self.path = path.isEmpty ? "/" : String(path)
        if hostAndPort.hasPrefix("["), let close = hostAndPort.firstIndex(of: "]") {
            host = String(hostAndPort[...close])
        } else {
            host = String(hostAndPort.prefix { $0 != ":" })
        }
        origin = scheme.lowercased() + "://" + hostAndPort
        let port = hostAndPort.dropFirst(host.count).drop { $0 == ":" }
        let defaultPort = scheme.lowercased() == "https" ? "443" : "80"
        self.hostAndPort = port.isEmpty || port == defaultPort ? host : host + ":" + port
    }
}

extension LoginRule {
    /// The path of `url` without its query or fragment (which may hold secrets), for messages.
    public static func path(of url: String) -> String {
        LoginURL(url)?.path ?? "?"
    }
}
