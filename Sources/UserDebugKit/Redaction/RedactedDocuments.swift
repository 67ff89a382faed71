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
    /// redacted by `redactor` (nil: as recorded). The token itself no longer counts as a known
    /// secret here: it has become the `{{authToken}}` variable before redaction runs.
    public init(_ responses: [BackendResponse], session: Session, redactor: Redactor?) {
        guard var plain = redactor else {
            self.init(responses, session: session, redactingRequests: { $0 })
            return
        }
        plain.knownSecrets = []
        self.init(responses, session: session, redactingRequests: plain.redact)
    }
}
