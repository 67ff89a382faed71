/// URL, query, form and header-value redaction: text formats where only the secret part is
/// replaced and every other byte stays as captured.
extension Redactor {
    /// The URL with a userinfo password, secret matrix parameters of the path and secret query
    /// (and fragment) items replaced:
    /// `https://bob:hunter2@api.example/v1;jsessionid=s?access_token=abc&page=2#id_token=x` →
    /// `https://bob:%5Bredacted%5D@api.example/v1;jsessionid=%5Bredacted%5D?access_token=%5Bredacted%5D&page=2#id_token=%5Bredacted%5D`.
    /// The user name stays (it names whose credentials they were). The placeholder is
    /// percent-encoded so the URL stays a valid URL for curl and Postman. Known secrets, encoded
    /// or not, and JWTs are replaced anywhere in it, the path included.
    public func redactURL(_ url: String) -> String {
        var rest = Substring(url)
        var out = ""
        if let schemeEnd = rest.firstRange(of: "://"), Redactor.isScheme(rest[..<schemeEnd.lowerBound]) {
            out += rest[..<schemeEnd.upperBound]
            rest = rest[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                let userinfo = authority[..<at]
                if let colon = userinfo.firstIndex(of: ":") {
                    out += userinfo[...colon]
                    out += Redactor.urlPlaceholder
                } else {
                    out += userinfo
                }
                out += authority[at...]
            } else {
                out += authority
            }
            rest = rest[authorityEnd...]
        }
        let fragmentStart = rest.firstIndex(of: "#")
        let beforeFragment = rest[..<(fragmentStart ?? rest.endIndex)]
        if let question = beforeFragment.firstIndex(of: "?") {
            out += redactMatrixParameters(beforeFragment[..<question])
            out += "?"
            out += redactQuery(String(beforeFragment[beforeFragment.index(after: question)...]))
        } else {
            out += redactMatrixParameters(beforeFragment)
        }
        if let fragmentStart {
            // OAuth implicit flows put `access_token=…` in the fragment.
            let fragment = rest[rest.index(after: fragmentStart)...]
            out += "#"
            out += fragment.contains("=") ? redactQuery(String(fragment)) : String(fragment)
        }
        return replacingKnownSecrets(in: out)
    }

    /// RFC 3986 scheme syntax, so that `/next?to=https://…` is not mistaken for an absolute URL.
    static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first | 0x20) else {
            return false
        }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// `a=1&token=abc` → `a=1&token=%5Bredacted%5D`, for query strings and form bodies. Names are
    /// compared after percent-decoding (`acc%65ss_token` is still `access_token`); pairs keep
    /// their order and bytes. A value that is a JSON document once decoded (GraphQL's
    /// `variables=%7B…%7D`) has its secret members redacted and is encoded again.
    public func redactQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = PercentDecoding.decoded(pair[..<equals])
            let value = pair[pair.index(after: equals)...]
            guard !value.isEmpty else { return String(pair) }
            if policy.isSensitiveQueryParameter(name) { return pair[...equals] + Redactor.urlPlaceholder }
            if let json = redactEmbeddedJSONValue(value) { return pair[...equals] + json }
            return String(pair)
        }.joined(separator: "&")
    }

    /// A percent-encoded query value holding a JSON document, redacted and encoded again; nil
    /// when it holds none or nothing in it is secret.
    private func redactEmbeddedJSONValue(_ value: Substring) -> String? {
        let decoded = Array(PercentDecoding.decoded(value).utf8)
        guard let first = decoded.first(where: { $0 != 0x20 }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else { return nil }
        guard let redacted = redactJSONBytes(decoded), redacted != decoded else { return nil }
        return Redactor.percentEncoded(redacted)
    }

    /// Every byte but the unreserved ones (RFC 3986) as `%XX`.
    static func percentEncoded(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `/app;jsessionid=abc;lang=de/x` → `/app;jsessionid=%5Bredacted%5D;lang=de/x`: path segments'
    /// matrix parameters (RFC 3986 §3.3) judged like query items.
    func redactMatrixParameters(_ path: Substring) -> String {
        guard path.contains(";") else { return String(path) }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            let parts = segment.split(separator: ";", omittingEmptySubsequences: false)
            guard parts.count > 1 else { return String(segment) }
            return
                ([String(parts[0])]
                + parts.dropFirst().map { parameter -> String in
                    guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
                    let name = PercentDecoding.decoded(parameter[..<equals])
                    let value = parameter[parameter.index(after: equals)...]
                    guard !value.isEmpty, policy.isSensitiveQueryParameter(name) else { return String(parameter) }
                    return parameter[...equals] + Redactor.urlPlaceholder
                }).joined(separator: ";")
        }.joined(separator: "/")
    }

    /// A body is a form when its content type says so, or, without a content type, when it is
    /// one line of printable ASCII made of `name=value` pairs (`grant_type=password&password=…`).
    static func isForm(_ body: [UInt8], contentType: String?) -> Bool {
        if let contentType { return contentType.lowercased().contains("application/x-www-form-urlencoded") }
        guard body.contains(UInt8(ascii: "=")) else { return false }
        return body.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// The value of a secret header other than `Authorization`: its first word is kept when it
    /// is a registered authentication scheme (`X-Upstream-Auth: Bearer [redacted]`), else the
    /// whole value is replaced (a first word of an unknown header may be the secret itself).
    static func redactKnownSchemeCredentials(_ value: String) -> String {
        guard let space = value.firstIndex(of: " "), authSchemes.contains(value[..<space].lowercased()) else {
            return placeholder
        }
        return value[..<space] + " " + placeholder
    }

    /// Lower-cased HTTP authentication schemes (IANA registry, and the common `Token`, `DPoP`).
    static let authSchemes: Set<String> = [
        "basic", "bearer", "digest", "dpop", "gnap", "hoba", "mutual", "negotiate", "ntlm", "privatetoken",
        "scram-sha-1", "scram-sha-256", "token", "vapid", "aws4-hmac-sha256", "concealed",
    ]

    /// `Bearer abc` → `Bearer [redacted]`: the scheme is kept, the credentials never are. A value
    /// without a scheme is replaced whole.
    static func redactCredentials(_ value: String) -> String {
        guard let space = value.firstIndex(of: " ") else { return placeholder }
        let scheme = value[..<space]
        let isScheme =
            !scheme.isEmpty
            && scheme.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "-")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        return isScheme ? scheme + " " + placeholder : placeholder
    }

    /// `a=1; b=2` → `a=[redacted]; b=[redacted]`: which cookies were sent is kept, their values never.
    static func redactCookiePairs(_ value: String) -> String {
        value.split(separator: ";").map { pair -> String in
            let trimmed = pair.drop { $0 == " " }
            guard let equals = trimmed.firstIndex(of: "=") else { return placeholder }
            return trimmed[...equals] + placeholder
        }.joined(separator: "; ")
    }

    /// `id=abc; Path=/; HttpOnly` → `id=[redacted]; Path=/; HttpOnly`: the attributes (scope,
    /// expiry, flags) are what one debugs and hold no secret.
    static func redactSetCookie(_ value: String) -> String {
        let first = value.firstIndex(of: ";") ?? value.endIndex
        let pair = value[..<first]
        let redacted = pair.firstIndex(of: "=").map { pair[...$0] + placeholder } ?? placeholder
        return redacted + value[first...]
    }
}
