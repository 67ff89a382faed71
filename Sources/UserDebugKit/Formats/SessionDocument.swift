public import FoundationEssentials

/// The JSON shape of a session, read from whatever the app or a developer hands us and written
/// in one stable shape for scripts (`jq .user.identifier`).
///
/// Input (more is accepted, never less):
/// ```json
/// {"name": "staging", "user": {"identifier": "usr_1", "name": "Zoë", "plan": "pro"},
///  "token": "…", "baseURL": "https://api.staging.example", "environment": "staging"}
/// ```
/// or a bare user object (an identifier, no `"user"` member), which becomes a session named
/// `defaultName` with no token. Aliases, first present wins: `baseUrl`/`base_url`;
/// `accessToken`/`access_token`/`authToken`/`auth_token` for `token`; `env` for `environment`;
/// the user's identifier from `identifier`, `id`, `userId`, `user_id`, `uid` (a string or an
/// integer literal); the user's name from `name`, `displayName`, `username`. An alias member also
/// stays in `User.fields`, so nothing of the input is lost. `null` counts as absent.
/// `createdAt`/`updatedAt` are read back when present, so an exported session re-imports as is.
public enum SessionDocument {
    static let identifierKeys = ["identifier", "id", "userId", "user_id", "uid"]
    static let userNameKeys = ["name", "displayName", "username"]
    static let tokenKeys = ["token", "accessToken", "access_token", "authToken", "auth_token"]
    static let baseURLKeys = ["baseURL", "baseUrl", "base_url"]
    static let environmentKeys = ["environment", "env"]
    /// Longest session name accepted, in characters; names appear in menus and file names.
    public static let maxNameLength = 128

    /// Reads a session from `value`; `defaultName` names it when the document does not.
    /// `now` stamps `createdAt`/`updatedAt` when the document has none.
    public static func decode(_ value: JSONValue, defaultName: String, now: Date = Date()) throws(DocumentError)
        -> Session
    {
        let root = DocumentNode(value)
        _ = try root.object()
        let userNode: DocumentNode
        var name = defaultName
        var nameNode: DocumentNode?
        var token: String?
        var baseURL: String?
        var environment: String?
        if let user = root.member("user") {
            userNode = user
            nameNode = root.member("name")
            if let nameNode { name = try nameNode.string() }
            token = try root.firstMember(tokenKeys)?.node.string()
            baseURL = try root.firstMember(baseURLKeys)?.node.string()
            environment = try root.firstMember(environmentKeys)?.node.string()
        } else if root.firstMember(identifierKeys) != nil {
            userNode = root
        } else {
            throw root.error("missing \"user\" (or, for a bare user object, \"identifier\")")
        }
        try validateName(name, at: nameNode?.path ?? "$.name")
        // A redacted export says "[redacted]" (or "{{authToken}}") where the token was: importing
        // it must not make the placeholder look like a real credential.
        if let found = token, found.isEmpty || Redacted.isPlaceholder(found) { token = nil }
        let createdAt = try date(root.member("createdAt")) ?? now
        let updatedAt = try date(root.member("updatedAt")) ?? createdAt
        return Session(
            name: name, user: try decodeUser(userNode), token: token, baseURL: baseURL,
            environment: environment, createdAt: createdAt, updatedAt: updatedAt
        )
    }

    /// The placeholder a session document holds where its token would be (`[redacted]`,
    /// `{{authToken}}`: an export imported back), which `decode` records as no token; nil when
    /// the token member is absent, a real token, or not a string.
    public static func tokenPlaceholder(in value: JSONValue) -> String? {
        let root = DocumentNode(value)
        guard root.member("user") != nil, let token = root.firstMember(tokenKeys)?.node.value.stringValue,
            Redacted.isPlaceholder(token)
        else { return nil }
        return token
    }

    /// Reads a user object: identifier and name by their aliases, every other member kept.
    static func decodeUser(_ node: DocumentNode) throws(DocumentError) -> User {
        let object = try node.object()
        guard let identifierNode = node.firstMember(identifierKeys)?.node else {
            throw node.error("missing \"identifier\"")
        }
        let identifier: String
        switch identifierNode.value {
        case .string(let text):
            identifier = text
        case .number(let literal) where isIntegerLiteral(literal):
            identifier = literal
        case .number(let literal):
            throw identifierNode.error("expected a string or an integer, got the number \(literal)")
        default:
            throw identifierNode.wrongKind(expected: "a string or an integer")
        }
        guard !identifier.isEmpty else { throw identifierNode.error("the identifier is empty") }
        let nameMember = node.firstMember(userNameKeys)
        let name = try nameMember?.node.string()
        // `identifier` and `name` are the User's own properties (a `null` one included, or the
        // output would carry the key twice); an alias (`id`, `displayName`) is also data the app
        // gave us, so it stays in the fields.
        let fields = object.members.filter { $0.key != "identifier" && $0.key != "name" }
        return User(identifier: identifier, name: name, fields: JSONObject(fields))
    }

    /// Names appear on terminals, in menus and as command-line arguments: no control or BiDi
    /// characters (they could hide or reorder text), no leading `-` (it would read as an option).
    static func validateName(_ name: String, at path: String) throws(DocumentError) {
        let problem: String?
        if name.isEmpty {
            problem = "the session name is empty"
        } else if name.unicodeScalars.contains(where: { TerminalSafety.isUnsafe($0) }) {
            problem = "the session name contains a control character"
        } else if name.hasPrefix("-") {
            problem = "the session name must not start with '-'"
        } else if name.count > maxNameLength {
            problem = "the session name is longer than \(maxNameLength) characters"
        } else {
            problem = nil
        }
        if let problem { throw DocumentError(path: path, message: problem) }
    }

    private static func isIntegerLiteral(_ literal: String) -> Bool {
        !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    static func date(_ node: DocumentNode?) throws(DocumentError) -> Date? {
        guard let node else { return nil }
        let text = try node.string()
        guard let date = ISO8601.parse(text) else {
            throw node.error("expected an ISO 8601 date-time with a zone, like 2024-03-01T09:15:02.123Z")
        }
        return date
    }

    /// The stable output shape: `name`, `current` (only when `isCurrent` is given),
    /// `environment`, `baseURL`, `token`, `user` (identifier, name, then the rest sorted),
    /// `createdAt`, `updatedAt`. Optional members are always present (as `null`) so that scripts
    /// see one shape. Values are written as given: redacting them is the caller's step (the
    /// `reveal:` variant of the Redaction layer does it).
    public static func encode(_ session: Session, isCurrent: Bool?) -> JSONValue {
        var members: [JSONObject.Member] = [JSONObject.Member(key: "name", value: .string(session.name))]
        if let isCurrent { members.append(JSONObject.Member(key: "current", value: .bool(isCurrent))) }
        members.append(JSONObject.Member(key: "environment", value: optional(session.environment)))
        members.append(JSONObject.Member(key: "baseURL", value: optional(session.baseURL)))
        members.append(JSONObject.Member(key: "token", value: optional(session.token)))
        members.append(JSONObject.Member(key: "user", value: session.user.jsonValue))
        members.append(JSONObject.Member(key: "createdAt", value: .string(ISO8601.format(session.createdAt))))
        members.append(JSONObject.Member(key: "updatedAt", value: .string(ISO8601.format(session.updatedAt))))
        return .object(JSONObject(members))
    }

    private static func optional(_ text: String?) -> JSONValue {
        text.map(JSONValue.string) ?? .null
    }
}
