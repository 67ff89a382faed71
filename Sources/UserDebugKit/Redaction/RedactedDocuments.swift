/// The documents of Formats written through a `Redactor`. Formats write what they are given and
/// know no secrets; these entry points, one layer up, decide what is hidden before writing.
extension SessionDocument {
    /// `encode(_:isCurrent:)` of the session as it may be shown: unless `reveal`, the token is
    /// `"[redacted]"` when there is one and the user's secret-looking fields go through
    /// `redactor`; with `reveal` everything is as stored.
    public static func encode(_ session: Session, reveal: Bool, isCurrent: Bool?, redactor: Redactor = Redactor())
        -> JSONValue
    {
        encode(reveal ? session : redactor.redact(session), isCurrent: isCurrent)
    }
}

extension PostmanCollection {
    /// The collection of `responses`' requests with cookies, secret fields and query items
    /// redacted by `redactor` (nil: as recorded). On the base URL's origin the token has become
    /// the `{{authToken}}` variable before redaction runs; what is left of it (encoded forms, or
    /// the token itself in a request to another origin) is redacted as a known secret. The login
    /// is recognised by its `login` tag or by an answer holding the token, literally or encoded,
    /// to a request that did not send it.
    public init(_ responses: [BackendResponse], session: Session, redactor: Redactor?) {
        let finder = Redactor(knownSecrets: [session.token].compactMap { $0 })
        let isLogin = { (response: BackendResponse) -> Bool in
            if response.tags.contains(where: { $0.lowercased() == "login" }) { return true }
            let request = response.request
            let sent =
                finder.containsKnownSecret(Array(request.url.utf8)) || finder.containsKnownSecret(request.body)
                || request.headers.contains { finder.containsKnownSecret(Array($0.value.utf8)) }
            let answered =
                finder.containsKnownSecret(response.body)
                || response.headers.contains { finder.containsKnownSecret(Array($0.value.utf8)) }
            return answered && !sent
        }
        self.init(responses, session: session, isLogin: isLogin, redactingRequests: redactor?.redact ?? { $0 })
    }
}
