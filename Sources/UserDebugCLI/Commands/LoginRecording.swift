import UserDebugKit

/// The config's `login` rules applied wherever responses come in (`capture`, `response record`,
/// `response import`): the last login among the responses is saved as a session and made
/// current, with one stderr line naming the session and the response; the token is never shown,
/// not even as the user's identifier a rule found.
enum LoginRecording {
    /// A login that was saved: the session as stored, and which response it came from.
    struct Found {
        var session: Session
        var index: Int
        var method: String
        var path: String
        var status: Int
        /// The export placeholder found where the token would be (the session has none).
        var tokenPlaceholder: String?
    }

    /// The rules from the config (none without a `login` section).
    static func rules(_ invocation: Invocation) throws -> [LoginRule] {
        try invocation.config().login
    }

    /// The session to record under: `--session NAME` or the current one; nil when there is none
    /// yet and a login rule may make one (`rules` not empty), else the error as before.
    static func sessionIfAny(_ invocation: Invocation, rules: [LoginRule]) throws -> Session? {
        do {
            return try invocation.session()
        } catch let error as StoreError where !rules.isEmpty {
            switch error {
            case .noCurrentSession, .noSuchSession, .missing: return nil
            default: throw error
            }
        }
    }

    /// Why there is nothing to record into when no login came either: the `--session` named
    /// does not exist, or no session is current.
    static func noSession(_ invocation: Invocation) -> StoreError {
        invocation.arguments.value("session").map { StoreError.noSuchSession($0) } ?? .noCurrentSession
    }

    /// `METHOD PATH` of `response` when it looks like a login (`LoginRule.looksLikeLogin`) and
    /// no rule of `rules` matches its request; nil otherwise.
    static func unmatchedLogin(_ response: BackendResponse, rules: [LoginRule]) -> String? {
        guard !rules.contains(where: { $0.matches(response.request) }), LoginRule.looksLikeLogin(response) else {
            return nil
        }
        return response.request.method.uppercased() + " " + LoginRule.path(of: response.request.url)
    }

    /// One stderr line for each `METHOD PATH` (in `found`, in order, each once) that answered
    /// what looks like a login no rule matched: it was filed as a response only, so it names
    /// the exact rule to add and the config file to add it to.
    static func hintUnmatched(_ found: [String], rules: [LoginRule], invocation: Invocation) {
        var seen: Set<String> = []
        for match in found where seen.insert(match).inserted {
            let quoted = jsonQuoted(match)
            let config = invocation.paths.configFile
            let fix =
                rules.isEmpty
                ? "add {\"login\": [{\"match\": \(quoted)}]} to \(config)"
                : "add {\"match\": \(quoted)} to \"login\" in \(config)"
            invocation.diagnostics.notice(
                "\(match) answered what looks like a login (a user with an identifier, and a token), "
                    + "but no login rule matched it, so no session was recorded from it; to record one, \(fix)")
        }
    }

    /// `text` as a JSON string.
    private static func jsonQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Saves the last login among `responses` (found by `rules`) and makes it current; reports
    /// the matching responses whose body held no usable login, and the ones that look like a
    /// login no rule matched (`hintUnmatched`). Nil when there was none.
    static func apply(_ responses: [BackendResponse], rules: [LoginRule], invocation: Invocation) throws -> Found? {
        hintUnmatched(responses.compactMap { unmatchedLogin($0, rules: rules) }, rules: rules, invocation: invocation)
        var last: (index: Int, login: LoginRule.Login)?
        let name = invocation.arguments.value("session")
        for (index, outcome) in LoginRule.logins(in: responses, rules: rules, name: name) {
            switch outcome {
            case .success(let login):
                last = (index, login)
            case .failure(let error):
                invocation.diagnostics.notice(
                    "login rule matched \(describe(responses[index])) but found no session in it: \(error)")
            }
        }
        guard let last else { return nil }
        let saved = try invocation.storeForWriting().saveLogin(last.login)
        let response = responses[last.index]
        return Found(
            session: saved, index: last.index, method: response.request.method,
            path: LoginRule.path(of: response.request.url), status: response.status,
            tokenPlaceholder: last.login.tokenPlaceholder)
    }

    /// `recorded session 'usr_1@api.example' (user usr_1) from response 12 (POST /v1/login → 200);
    /// it is now current`: the path without the query, which may hold secrets.
    static func report(_ found: Found, responseID: Int64?, invocation: Invocation) {
        let from = responseID.map { "response \($0)" } ?? "the response"
        var token = found.session.token == nil ? ", no token found" : ""
        if let placeholder = found.tokenPlaceholder {
            token = ", no usable token: the response held the placeholder '\(placeholder)', as a redacted export does"
        }
        // A rule's identifier path may find the token (or a JWT) where the user's id should be:
        // then the id, and the name made from it, are [redacted] here.
        let labels = invocation.noticeLabels(found.session)
        invocation.diagnostics.notice(
            "recorded session '\(labels.name)' (user \(labels.user)\(token)) from \(from) "
                + "(\(found.method) \(found.path) → \(found.status))")
        if found.tokenPlaceholder != nil {
            invocation.diagnostics.notice(
                "copy-token refuses until it has one: " + BuiltinPayloads.recordTokenHint(for: labels.name))
        }
    }

    private static func describe(_ response: BackendResponse) -> String {
        "\(response.request.method) \(LoginRule.path(of: response.request.url)) → \(response.status)"
    }
}
