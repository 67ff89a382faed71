/// The one redaction step every output path (clipboard, stdout, cURL, HAR, Postman) goes
/// through unless the user passed `--reveal`. Pure: it returns new values and never fails.
///
/// What it hides:
/// - the session token and every `knownSecrets` value, wherever it literally appears (header
///   values, URL, bodies, user fields): a token echoed back by the backend is still the token;
/// - values of secret headers (see `RedactionPolicy`); an `Authorization` value keeps its scheme
///   (`Bearer [redacted]`, `Basic [redacted]`) because which scheme was used is what one debugs,
///   and cookies keep their names (`session=[redacted]; theme=[redacted]`), `Set-Cookie` its
///   attributes;
/// - URL userinfo passwords and secret query items (also in `Location`/`Referer`-style headers);
/// - secret members of JSON bodies at any depth and secret fields of form bodies, splicing the
///   placeholder into the original bytes so everything else stays byte for byte as captured.
///
/// `null`, booleans and empty strings are left as they are: they cannot hold a secret, and
/// `"passwordSet": true` or `"token": null` is exactly the kind of fact one debugs.
public struct Redactor: Sendable {
    /// What a secret is replaced with.
    public static let placeholder = "[redacted]"
    /// The placeholder percent-encoded, used inside URLs and form bodies: `[` and `]` are not
    /// allowed there and make curl treat the URL as a glob pattern.
    public static let urlPlaceholder = "%5Bredacted%5D"
    /// Known secrets shorter than this are not searched for: replacing a 3-byte "secret"
    /// everywhere would shred unrelated text while protecting nothing real.
    public static let minimumSecretLength = 6

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

    /// The exchange with secret headers, URL parts and body members replaced in both halves.
    public func redact(_ response: BackendResponse) -> BackendResponse {
        var result = response
        result.request.url = redactURL(response.request.url)
        result.request.headers = redactHeaders(response.request.headers)
        result.request.body = redactBody(
            response.request.body, contentType: Redactor.contentType(response.request.headers))
        result.headers = redactHeaders(response.headers)
        result.body = redactBody(response.body, contentType: Redactor.contentType(response.headers))
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
            default: shown = Redactor.placeholder
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
        var result = body
        if let json = redactJSONBytes(body) {
            result = json
        } else if Redactor.isForm(body, contentType: contentType) {
            result = Array(redactQuery(String(decoding: body, as: UTF8.self)).utf8)
        }
        return replacingKnownSecrets(in: result)
    }

    /// Whether any known secret appears in `bytes` (for marking a payload as a secret).
    public func containsKnownSecret(_ bytes: [UInt8]) -> Bool {
        secretBytes.contains { Redactor.firstRange(of: $0, in: bytes, from: 0) != nil }
    }

    /// `text` with every known secret replaced by the placeholder.
    public func replacingKnownSecrets(in text: String) -> String {
        let secrets = secretBytes
        guard !secrets.isEmpty else { return text }
        let bytes = Array(text.utf8)
        let replaced = Redactor.replacing(secrets, in: bytes)
        return replaced == bytes ? text : String(decoding: replaced, as: UTF8.self)
    }

    func replacingKnownSecrets(in bytes: [UInt8]) -> [UInt8] {
        Redactor.replacing(secretBytes, in: bytes)
    }

    static func replacing(_ secrets: [[UInt8]], in bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        for secret in secrets {
            guard var found = firstRange(of: secret, in: result, from: 0) else { continue }
            var out: [UInt8] = []
            out.reserveCapacity(result.count)
            var copied = 0
            while true {
                out += result[copied..<found.lowerBound]
                out += placeholder.utf8
                copied = found.upperBound
                guard let next = firstRange(of: secret, in: result, from: copied) else { break }
                found = next
            }
            out += result[copied...]
            result = out
        }
        return result
    }

    static func firstRange(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Range<Int>? {
        guard let first = needle.first, haystack.count - start >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) {
                return index..<index + needle.count
            }
            index += 1
        }
        return nil
    }

    /// Headers whose value is a URL that may carry the same secrets as the request URL.
    static let urlHeaders: Set<String> = ["location", "content-location", "referer"]

    static func contentType(_ headers: [HTTPHeader]) -> String? {
        headers.first { $0.name.lowercased() == "content-type" }?.value
    }
}
