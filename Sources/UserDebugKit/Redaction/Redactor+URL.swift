/// URL, query, form and header-value redaction: text formats where only the secret part is
/// replaced and every other byte stays as captured.
extension Redactor {
    /// The URL with a userinfo password and secret query (and fragment) items replaced:
    /// `https://bob:hunter2@api.example/v1?access_token=abc&page=2#id_token=x` →
    /// `https://bob:%5Bredacted%5D@api.example/v1?access_token=%5Bredacted%5D&page=2#id_token=%5Bredacted%5D`.
    /// The user name stays (it names whose credentials they were). The placeholder is
    /// percent-encoded so the URL stays a valid URL for curl and Postman. Known secrets are
    /// replaced anywhere in it, the path included.
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
            out += beforeFragment[...question]
            out += redactQuery(String(beforeFragment[beforeFragment.index(after: question)...]))
        } else {
            out += beforeFragment
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
    /// their order and bytes.
    public func redactQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = PercentDecoding.decoded(pair[..<equals])
            let value = pair[pair.index(after: equals)...]
            guard !value.isEmpty, policy.isSensitiveQueryParameter(name) else { return String(pair) }
            return pair[...equals] + Redactor.urlPlaceholder
        }.joined(separator: "&")
    }

    /// A body is a form when its content type says so, or, without a content type, when it is
    /// one line of printable ASCII made of `name=value` pairs (`grant_type=password&password=…`).
    static func isForm(_ body: [UInt8], contentType: String?) -> Bool {
        if let contentType { return contentType.lowercased().contains("application/x-www-form-urlencoded") }
        guard body.contains(UInt8(ascii: "=")) else { return false }
        return body.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

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
