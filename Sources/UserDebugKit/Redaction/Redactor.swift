/// The one redaction step every output path (clipboard, stdout, cURL, HAR, Postman) goes
/// through unless the user passed `--reveal`. Pure: it returns new values and never fails.
///
/// What it hides:
/// - the session token and every `knownSecrets` value wherever it appears (header values, URL,
///   bodies, user fields), literally or encoded: percent-encoded (any hex case, once or twice),
///   JSON-escaped (`\/`, `\u0054`), as XML character references, and base64 or base64url
///   (padded or not, at any byte offset inside a longer encoded text, as in `Basic` credentials):
///   a token echoed back by the backend is still the token;
/// - JWT-shaped values under any name (`KnownSecretSearch.jwtRanges`);
/// - values of secret headers (see `RedactionPolicy`); an `Authorization` value keeps its scheme
///   (`Bearer [redacted]`, `Basic [redacted]`) because which scheme was used is what one debugs
///   (other secret headers keep it only when it is a known scheme word), and cookies keep their
///   names (`session=[redacted]; theme=[redacted]`), `Set-Cookie` its attributes;
/// - URL userinfo passwords, secret query items and matrix parameters (`;jsessionid=…`), and
///   secret members of JSON carried in a query value (also in `Location`/`Referer`-style headers);
/// - secret parts of bodies in every format `redactBodyFormat` knows (JSON at any depth, also
///   after a BOM, as JSONP, one document per line, or as a JSON string inside JSON; forms;
///   multipart; XML and HTML; `name=value` and `name: value` pairs in other text), splicing the
///   placeholder into the original bytes so everything else stays byte for byte as captured.
///
/// `null`, booleans and empty strings are left as they are: they cannot hold a secret, and
/// `"passwordSet": true` or `"token": null` is exactly the kind of fact one debugs.
public struct Redactor: Sendable {
    /// What a secret is replaced with: `Redacted.placeholder`, which formats recognise.
    public static let placeholder = Redacted.placeholder
    /// The placeholder inside URLs and form bodies: `Redacted.urlPlaceholder`.
    public static let urlPlaceholder = Redacted.urlPlaceholder
    /// Known secrets shorter than this are not searched for: `Redacted.minimumSecretLength`.
    public static let minimumSecretLength = Redacted.minimumSecretLength

    /// What counts as secret by name.
    public var policy: RedactionPolicy
    /// Literal values to hide wherever they appear (typically the session's token).
    public var knownSecrets: [String]

    /// A redactor with a policy and the literal secrets to hide.
    public init(policy: RedactionPolicy = .default, knownSecrets: [String] = []) {
        self.policy = policy
        self.knownSecrets = knownSecrets
    }

    var secretBytes: [[UInt8]] {
        knownSecrets.map { Array($0.utf8) }.filter { $0.count >= Redactor.minimumSecretLength }
    }

    /// The session with its token replaced, secret-looking user fields replaced, and its own
    /// token hidden wherever else it appears.
    public func redact(_ session: Session) -> Session {
        var redactor = self
        if let token = session.token { redactor.knownSecrets.append(token) }
        var result = session
        if let token = session.token, !token.isEmpty { result.token = Redactor.placeholder }
        if case .object(let fields) = redactor.redact(JSONValue.object(session.user.fields)) {
            result.user.fields = fields
        }
        result.baseURL = session.baseURL.map(redactor.redactURL)
        return result
    }

    /// The exchange with secret headers, URL parts and body members replaced in both halves; bodies
    /// decoded first, or replaced when they cannot be read (see `redactBody(_:headers:)`).
    public func redact(_ response: BackendResponse) -> BackendResponse {
        var result = response
        result.request = redact(response.request)
        (result.body, result.headers) = redactBody(response.body, headers: redactHeaders(response.headers))
        return result
    }

    /// The request with secret headers, URL parts and body members replaced.
    public func redact(_ request: BackendRequest) -> BackendRequest {
        var result = request
        result.url = redactURL(request.url)
        (result.body, result.headers) = redactBody(request.body, headers: redactHeaders(request.headers))
        return result
    }

    /// The headers in their order with secret values replaced.
    public func redactHeaders(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        headers.map { header in
            HTTPHeader(name: header.name, value: redactHeaderValue(name: header.name, value: header.value))
        }
    }

    /// One header's value as it may be shown.
    public func redactHeaderValue(name: String, value: String) -> String {
        let lowered = name.lowercased()
        let shown: String
        if value.isEmpty {
            shown = value
        } else if policy.isSensitiveHeader(name) {
            switch lowered {
            case "authorization", "proxy-authorization": shown = Redactor.redactCredentials(value)
            case "cookie": shown = Redactor.redactCookiePairs(value)
            case "set-cookie": shown = Redactor.redactSetCookie(value)
            default: shown = Redactor.redactKnownSchemeCredentials(value)
            }
        } else if Redactor.urlHeaders.contains(lowered) {
            shown = redactURL(value)
        } else {
            shown = value
        }
        return replacingKnownSecrets(in: shown)
    }

    /// A body as it may be shown: JSON and form bodies have their secret members replaced,
    /// any body has the known secrets replaced. `contentType` picks form parsing; a body without
    /// one is treated as a form only when it looks exactly like one.
    public func redactBody(_ body: [UInt8], contentType: String?) -> [UInt8] {
        guard !body.isEmpty else { return body }
        return replacingKnownSecrets(in: redactBodyFormat(body, contentType: contentType))
    }

    /// Whether any known secret appears in `bytes`, literally or encoded (for marking a payload
    /// as a secret).
    public func containsKnownSecret(_ bytes: [UInt8]) -> Bool {
        !KnownSecretSearch(secrets: secretBytes).ranges(in: bytes).isEmpty
    }

    /// `text` with every known secret (literal or encoded) and every JWT-shaped value replaced
    /// by the placeholder.
    public func replacingKnownSecrets(in text: String) -> String {
        let bytes = Array(text.utf8)
        let replaced = replacingKnownSecrets(in: bytes)
        return replaced == bytes ? text : String(decoding: replaced, as: UTF8.self)
    }

    func replacingKnownSecrets(in bytes: [UInt8]) -> [UInt8] {
        KnownSecretSearch(secrets: secretBytes).hiding(in: bytes)
    }

    /// Headers whose value is a URL that may carry the same secrets as the request URL.
    static let urlHeaders: Set<String> = ["location", "content-location", "referer"]
}
