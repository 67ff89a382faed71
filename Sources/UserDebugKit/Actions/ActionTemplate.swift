/// The text of a config action with placeholders over the records: `{{user.identifier}}`,
/// `{{session.baseURL}}`, `{{response.status}}`, optionally piped through `url`
/// (`{{user.identifier | url}}` percent-encodes for a URL path or query).
///
/// Deliberately small: names and one filter, no expressions, no loops, nothing that runs. An
/// unknown name is an error when the config is read, not an empty string at run time, and a
/// template cannot produce a literal `{{` (nothing needs one yet).
///
/// Names: `user.identifier`, `user.name`, `user.FIELD` (any other field of the user; secret-
/// looking ones such as `user.apiKey` count as secrets); `session.name`, `session.token`
/// (a secret), `session.baseURL`, `session.environment`; `response.id`, `response.status`,
/// `response.method`, `response.url`, `response.body` — of the session's last recorded response,
/// redacted like `print-response` unless `--reveal`.
public struct ActionTemplate: Sendable, Equatable {
    /// A value the template reads.
    public enum Placeholder: Sendable, Equatable, CustomStringConvertible {
        /// A user field: `identifier`, `name` or any other.
        case user(String)
        /// A session field: `name`, `token`, `baseURL`, `environment`.
        case session(String)
        /// A field of the last response: `id`, `status`, `method`, `url`, `body`.
        case response(String)

        /// The name as a template writes it, without braces: `user.identifier`.
        public var description: String {
            switch self {
            case .user(let field): return "user." + field
            case .session(let field): return "session." + field
            case .response(let field): return "response." + field
            }
        }
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case value(Placeholder, urlEncoded: Bool)
    }

    /// A template that cannot be read; `message` names the placeholder.
    public struct SyntaxError: Error, Sendable, Equatable {
        /// What is wrong, naming the placeholder as written: `{{user.id | lower}}: unknown filter
        /// "lower"; the one filter is "url"`.
        public var message: String
    }

    static let sessionFields = ["name", "token", "baseURL", "environment"]
    static let responseFields = ["id", "status", "method", "url", "body"]

    let segments: [Segment]

    /// Parses `text` into literal text and placeholders.
    /// - Throws: `SyntaxError` for a `{{` without `}}`, a second filter or one other than `url`,
    ///   or a name outside the list above. A `user.FIELD` is not checked: which fields a user has
    ///   is known only when the action runs.
    public init(_ text: String) throws(SyntaxError) {
        var segments: [Segment] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{") {
            if open.lowerBound > rest.startIndex { segments.append(.literal(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
                throw SyntaxError(message: "\"{{\" without a closing \"}}\"")
            }
            segments.append(try Self.placeholder(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { segments.append(.literal(String(rest))) }
        self.segments = segments
    }

    private static func placeholder(_ inside: String) throws(SyntaxError) -> Segment {
        let parts = inside.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        let name = parts[0]
        guard parts.count <= 2 else { throw SyntaxError(message: "{{\(inside)}}: at most one filter (\"url\")") }
        let urlEncoded = parts.count == 2
        if urlEncoded, parts[1] != "url" {
            throw SyntaxError(message: "{{\(inside)}}: unknown filter \"\(parts[1])\"; the one filter is \"url\"")
        }
        let pieces = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard pieces.count == 2, !pieces[1].isEmpty else {
            throw SyntaxError(message: "{{\(inside)}}: expected user.FIELD, session.FIELD or response.FIELD")
        }
        switch pieces[0] {
        case "user":
            return .value(.user(pieces[1]), urlEncoded: urlEncoded)
        case "session" where sessionFields.contains(pieces[1]):
            return .value(.session(pieces[1]), urlEncoded: urlEncoded)
        case "response" where responseFields.contains(pieces[1]):
            return .value(.response(pieces[1]), urlEncoded: urlEncoded)
        case "session":
            throw SyntaxError(
                message: "{{\(inside)}}: unknown session field; known: \(sessionFields.joined(separator: ", "))")
        case "response":
            throw SyntaxError(
                message: "{{\(inside)}}: unknown response field; known: \(responseFields.joined(separator: ", "))")
        default:
            throw SyntaxError(
                message: "{{\(inside)}}: unknown name \"\(pieces[0])\"; expected user, session or response")
        }
    }

    /// Every placeholder used, in order.
    public var placeholders: [Placeholder] {
        segments.compactMap { if case .value(let placeholder, _) = $0 { return placeholder } else { return nil } }
    }

    /// The placeholders that put a secret out: the token, and user fields the redaction policy
    /// names secret.
    public func secrets(policy: RedactionPolicy) -> [Placeholder] {
        placeholders.filter { placeholder in
            switch placeholder {
            case .session(let field): return field == "token"
            case .user(let field): return field != "identifier" && field != "name" && policy.isSensitiveField(field)
            case .response: return false
            }
        }
    }

    /// The placeholders a command argument may use: values that identify and cannot carry a
    /// secret. Everything else may: the token; the last response's URL (a token in its query)
    /// and body; the base URL (a key in its query, a password in it); any other user field,
    /// which holds whatever the app put there (`{{user.echo}}` may be the token itself).
    public static let argumentPlaceholders: [Placeholder] = [
        .user("identifier"), .user("id"), .user("name"), .session("name"), .session("environment"),
        .response("id"), .response("status"), .response("method"),
    ]

    /// The placeholders used that a command argument may not use (see `argumentPlaceholders`).
    public var placeholdersUnfitForArguments: [Placeholder] {
        placeholders.filter { !Self.argumentPlaceholders.contains($0) }
    }

    /// A placeholder's value that may not go into a command argument: why, and which one.
    public struct ArgumentValueProblem: Error, Sendable, Equatable {
        /// The placeholder whose value it is.
        public var placeholder: Placeholder
        /// Why, e.g. `starts with '-', so the program would read it as an option`.
        public var reason: String
    }

    /// The text with every placeholder filled in, as one argument of a command: a value may not
    /// start the argument with `-` (the program would read an option, `-K/etc/shadow` to curl)
    /// nor hold a control character (`\r\n` in a header value makes a second header). The values
    /// come from recorded data (login responses, imported HARs, the clipboard), not the config.
    /// - Throws: `ArgumentValueProblem` for such a value, else as `render(in:)`.
    public func renderArgument(in context: ActionContext) throws -> String {
        try render(in: context) { placeholder, value, startsArgument in
            if startsArgument, value.hasPrefix("-") {
                throw ArgumentValueProblem(
                    placeholder: placeholder,
                    reason: "starts with '-', so the program would read it as an option")
            }
            if let control = value.unicodeScalars.first(where: Self.isControl) {
                let code = String(control.value, radix: 16, uppercase: true)
                throw ArgumentValueProblem(
                    placeholder: placeholder,
                    reason:
                        "holds a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)), "
                        + "which could make another header or line of what the program sends")
            }
        }
    }

    /// C0 controls (tab, CR and LF included), DEL and C1 controls.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The text with every placeholder filled in from `context`.
    /// - Throws: `ActionError.missing` when the session lacks a value a placeholder needs (no
    ///   token, no such user field, no recorded response); errors of `context`'s redactor and
    ///   response lookup pass through.
    public func render(in context: ActionContext) throws -> String {
        try render(in: context) { _, _, _ in }
    }

    /// `render(in:)`, showing `check` each value as it goes in (after `| url`), with whether it
    /// starts the text.
    private func render(
        in context: ActionContext, check: (Placeholder, String, _ startsText: Bool) throws -> Void
    ) throws -> String {
        var text = ""
        var lastResponse: BackendResponse?
        for segment in segments {
            switch segment {
            case .literal(let literal):
                text += literal
            case .value(let placeholder, let urlEncoded):
                if case .response = placeholder, lastResponse == nil {
                    guard let found = try context.response(.newest(ResponseQuery())) else {
                        throw ActionError.missing(
                            "{{\(placeholder)}}: session '\(context.session.name)' has no recorded response")
                    }
                    lastResponse = try context.redactor()?.redact(found) ?? found.decodingBodies()
                }
                let raw = try Self.value(placeholder, context: context, response: lastResponse)
                let value = urlEncoded ? Self.percentEncoded(raw) : raw
                try check(placeholder, value, text.isEmpty)
                text += value
            }
        }
        return text
    }

    private static func value(_ placeholder: Placeholder, context: ActionContext, response: BackendResponse?) throws
        -> String
    {
        let session = context.session
        func required(_ value: String?) throws -> String {
            guard let value else { throw ActionError.missing("{{\(placeholder)}}: session '\(session.name)' has none") }
            return value
        }
        switch placeholder {
        case .user("identifier"): return session.user.identifier
        case .user("name"): return try required(session.user.name)
        case .user(let field):
            guard let value = session.user.fields[field] else { return try required(nil) }
            return value.scalarText ?? JSONWriter().string(value)
        case .session("name"): return session.name
        case .session("token"): return try required(session.usableToken)
        case .session("baseURL"): return try required(session.baseURL)
        case .session(_): return try required(session.environment)
        case .response("id"): return response?.id.map { String($0) } ?? ""
        case .response("status"): return String(response?.status ?? 0)
        case .response("method"): return response?.request.method ?? ""
        case .response("url"): return response?.request.url ?? ""
        case .response(_): return String(decoding: response?.body ?? [], as: UTF8.self)
        }
    }

    /// RFC 3986 unreserved characters kept, every other byte as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (no Foundation for `trimmingCharacters`).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
