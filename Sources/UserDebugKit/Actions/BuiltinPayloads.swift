/// What the built-in debug actions produce, as pure functions of the records (no I/O), so the
/// CLI, menus and the in-app API all produce the same bytes.
public enum BuiltinPayloads {
    /// The user's identifier, exactly, with no newline.
    public static func identifier(of session: Session) -> Payload {
        Payload(text: session.user.identifier)
    }

    /// The user's display name (falls back to the identifier when there is none).
    public static func name(of session: Session) -> Payload {
        Payload(text: session.user.name ?? session.user.identifier)
    }

    /// The auth token: a secret, produced only when asked for by name. Nil without a usable one
    /// (none, empty, or an export's placeholder: see `Session.usableToken`).
    public static func token(of session: Session) -> Payload? {
        guard let token = session.usableToken else { return nil }
        return Payload(text: token, isSecret: true)
    }

    /// Why `session` has no usable token and what to do, for `copy-token`'s error: a stored
    /// placeholder is named (a redacted export imported before imports recognised it).
    public static func noTokenMessage(for session: Session) -> String {
        let why =
            if let token = session.token, Redacted.isPlaceholder(token) {
                "its token is the placeholder '\(token)' a redacted export writes, not a credential"
            } else {
                "it was recorded without one (a login or import without a token, a redacted export "
                    + "imported back, or a logout)"
            }
        return "session '\(session.name)' has no token: \(why); " + recordTokenHint(for: session.name)
    }

    /// How to give session `name` a real token: a real login, or `session set --token-stdin`.
    public static func recordTokenHint(for name: String) -> String {
        let plain = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "@._-+:".unicodeScalars.contains($0)
        }
        let quoted = plain ? name : "'" + name.replacing("'", with: #"'\''"#) + "'"
        return "record a real login, or pipe the token to: userdebug session set --session \(quoted) --token-stdin"
    }

    /// The user as pretty JSON (identifier, name, then the other fields sorted), secret-looking
    /// fields redacted unless `redactor` is nil.
    public static func userJSON(of session: Session, redactor: Redactor?) -> Payload {
        let shown = redactor?.redact(session) ?? session
        return Payload(text: JSONWriter(keyOrder: .given, indent: 2).string(shown.user.jsonValue), kind: .json)
    }

    /// How much of a response to print.
    public enum ResponsePart: String, Sendable, CaseIterable {
        /// The response body only.
        case body
        /// The status line and response headers.
        case headers
        /// Request and response, headers and bodies, as HTTP-like text.
        case full
        /// The whole record as a JSON document.
        case json
    }

    /// A recorded response rendered as `part`, redacted unless `redactor` is nil.
    public static func response(_ response: BackendResponse, part: ResponsePart, redactor: Redactor?) -> Payload {
        if part == .headers {
            // The headers as recorded, `Content-Encoding` included: no body is shown, so none is decoded.
            var headersOnly = response
            headersOnly.body = []
            headersOnly.request.body = []
            return Payload(text: statusAndHeaders(redactor?.redact(headersOnly) ?? headersOnly))
        }
        let shown = redactor?.redact(response) ?? response.decodingBodies()
        switch part {
        case .body:
            return Payload(bytes: shown.body, kind: bodyKind(shown.body, contentType: shown.header("content-type")))
        case .headers:
            return Payload(text: statusAndHeaders(shown))
        case .full:
            var bytes = Array("\(shown.request.method) \(shown.request.url)\n".utf8)
            for header in shown.request.headers { bytes += Array("\(header.name): \(header.value)\n".utf8) }
            if !shown.request.body.isEmpty { bytes += [0x0A] + shown.request.body + [0x0A] }
            bytes += [0x0A] + Array(statusAndHeaders(shown).utf8)
            if !shown.body.isEmpty { bytes += [0x0A] + shown.body }
            return Payload(bytes: bytes, kind: bodyKind(bytes, contentType: nil) == .binary ? .binary : .text)
        case .json:
            return Payload(text: JSONWriter(indent: 2).string(ResponseDocument.encode(shown)), kind: .json)
        }
    }

    private static func statusAndHeaders(_ response: BackendResponse) -> String {
        var text = "HTTP \(response.status)\n"
        for header in response.headers { text += "\(header.name): \(header.value)\n" }
        return text
    }

    private static func bodyKind(_ bytes: [UInt8], contentType: String?) -> Payload.Kind {
        guard String(validating: bytes, as: UTF8.self) != nil else { return .binary }
        if let type = contentType?.lowercased(), type.contains("json") { return .json }
        return .text
    }
}
