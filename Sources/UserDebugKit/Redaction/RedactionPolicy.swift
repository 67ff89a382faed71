/// What counts as secret: header names, JSON/form field names and URL query parameters.
///
/// Every comparison is case-insensitive. Names are split into words at `_`, `-`, `.`, spaces and
/// camelCase boundaries (`X-Api-Key` → x·api·key, `refreshToken` → refresh·token, `APIKey` →
/// api·key), and the words are joined for matching (`xapikey`, `refreshtoken`). A name is secret
/// when, joined, it
/// 1. is one of `fieldNames` (exact: `auth`, `jwt`, `pin`, …), or
/// 2. contains one of `fieldPatterns` (`token`, `secret`, `password`, `apikey`, …), or
/// 3. ends with the word `key`/`keys`: alone (`key`), or after a word that is not in
///    `nonSecretKeyQualifiers` (`api_key`, `privateKey`, `sessionKey`, `X-Functions-Key` are
///    secret; `monkey` and `keyboardLayout` are not, having no word `key`; `primaryKey`,
///    `publicKey`, `sortKey`, `idempotencyKey` are not, being names of non-secrets), or
/// 4. ends with the word `session` or `sid` (`user_session`, `connect.sid`: session cookies and
///    their copies in bodies),
/// and it is not one of `exemptNames` (`tokenType`, `total_tokens`: words that merely mention
/// tokens). Query parameters are secret when listed in `queryParameters` or secret by the field
/// rule. Headers are judged more broadly, because a header exists to be sent and its name is
/// all one knows: a header is secret when listed in `headerNames`, when secret by the field
/// rule (`X-Session-Token`), when its lower-cased name contains one of `headerSubstrings`
/// (`X-Upstream-Auth`, `Authentication`, `X-Signature`, `X-Session`), or when a word of it
/// contains `key` other than after a non-secret qualifier (`X-Api-Key`, `Sec-WebSocket-Key`;
/// not `Idempotency-Key`), unless it is one of `nonSecretHeaderNames` (`WWW-Authenticate`: a
/// server's challenge, whose `error="invalid_token"` is what one debugs).
///
/// The rule errs toward redacting: an over-redacted `cacheToken` costs a `--reveal`, a leaked
/// password costs a rotation.
public struct RedactionPolicy: Sendable, Equatable {
    /// Lower-cased header names that are always secret.
    public var headerNames: Set<String>
    /// Joined lower-cased names (see the type's rule) that are secret as a whole.
    public var fieldNames: Set<String>
    /// Joined lower-cased substrings that make a name secret.
    public var fieldPatterns: [String]
    /// Lower-cased query parameter (and form field) names that are always secret.
    public var queryParameters: Set<String>
    /// Joined lower-cased words that may stand before `key` in a non-secret name.
    public var nonSecretKeyQualifiers: Set<String>
    /// Joined lower-cased names never redacted although a pattern matches them.
    public var exemptNames: Set<String>
    /// Lower-cased substrings that make any header name secret.
    public var headerSubstrings: [String]
    /// Lower-cased header names known to carry no secret although a substring matches them.
    public var nonSecretHeaderNames: Set<String>

    /// The built-in policy, which configuration can extend but never shrink.
    public static let `default` = RedactionPolicy(
        headerNames: [
            "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
            "x-access-token", "x-refresh-token", "x-csrf-token", "x-xsrf-token", "x-session-id",
            "x-amz-security-token", "x-goog-api-key", "ocp-apim-subscription-key", "x-hub-signature",
            "x-hub-signature-256",
        ],
        fieldNames: ["auth", "jwt", "sid", "session", "pwd", "pass", "pin", "otp", "bearer", "signature"],
        fieldPatterns: [
            "token", "secret", "password", "passwd", "passphrase", "apikey", "privatekey", "accesskey",
            "credential", "authorization", "cookie", "sessionid", "sessid",
        ],
        queryParameters: [
            "access_token", "id_token", "refresh_token", "token", "api_key", "apikey", "key", "client_secret",
            "code", "password", "secret", "sig", "signature", "auth", "session", "sessionid",
            "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        ],
        nonSecretKeyQualifiers: [
            "public", "primary", "foreign", "sort", "partition", "cache", "idempotency", "hot", "shortcut",
            "lookup", "index", "group", "object", "translation", "i18n", "react", "route",
        ],
        exemptNames: [
            "tokentype", "tokentypehint", "maxtokens", "totaltokens", "prompttokens", "completiontokens",
            "inputtokens", "outputtokens", "accesscontrolallowcredentials",
        ],
        headerSubstrings: ["auth", "token", "session", "signature", "secret", "cookie"],
        nonSecretHeaderNames: ["www-authenticate", "proxy-authenticate"]
    )

    /// Last words that make a name secret (rule 4).
    static let secretLastWords: Set<String> = ["session", "sid"]

    /// A policy; names are normalized (lower-cased, field names joined as in the type's rule).
    public init(
        headerNames: Set<String>,
        fieldNames: Set<String> = [],
        fieldPatterns: [String],
        queryParameters: Set<String>,
        nonSecretKeyQualifiers: Set<String> = [],
        exemptNames: Set<String> = [],
        headerSubstrings: [String] = [],
        nonSecretHeaderNames: Set<String> = []
    ) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.fieldNames = Set(fieldNames.map(RedactionPolicy.joinedWords))
        self.fieldPatterns = fieldPatterns.map(RedactionPolicy.joinedWords).filter { !$0.isEmpty }
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
        self.nonSecretKeyQualifiers = Set(nonSecretKeyQualifiers.map(RedactionPolicy.joinedWords))
        self.exemptNames = Set(exemptNames.map(RedactionPolicy.joinedWords))
        self.headerSubstrings = headerSubstrings.map { $0.lowercased() }.filter { !$0.isEmpty }
        self.nonSecretHeaderNames = Set(nonSecretHeaderNames.map { $0.lowercased() })
    }

    /// This policy with more secret names; the existing ones all stay (configuration adds to
    /// the default, it cannot weaken it).
    public func adding(
        headerNames moreHeaders: [String] = [],
        fieldNames moreFields: [String] = [],
        fieldPatterns morePatterns: [String] = [],
        queryParameters moreParameters: [String] = []
    ) -> RedactionPolicy {
        var policy = self
        policy.headerNames.formUnion(moreHeaders.map { $0.lowercased() })
        policy.nonSecretHeaderNames.subtract(moreHeaders.map { $0.lowercased() })
        policy.fieldNames.formUnion(moreFields.map(RedactionPolicy.joinedWords))
        policy.fieldPatterns += morePatterns.map(RedactionPolicy.joinedWords).filter { !$0.isEmpty }
        policy.queryParameters.formUnion(moreParameters.map { $0.lowercased() })
        // A name the user asks to redact must not stay exempt.
        policy.exemptNames.subtract(moreFields.map(RedactionPolicy.joinedWords))
        return policy
    }

    /// Whether a JSON member or form field of this name holds a secret.
    public func isSensitiveField(_ name: String) -> Bool {
        let words = RedactionPolicy.words(of: name)
        let joined = words.joined()
        if joined.isEmpty || exemptNames.contains(joined) { return false }
        if fieldNames.contains(joined) { return true }
        if fieldPatterns.contains(where: { RedactionPolicy.contains(joined, $0) }) { return true }
        if let last = words.last, RedactionPolicy.secretLastWords.contains(last) { return true }
        guard let last = words.last, last == "key" || last == "keys" else { return false }
        if words.count == 1 { return true }
        return !nonSecretKeyQualifiers.contains(words[words.count - 2])
    }

    /// Whether a header of this name carries a secret (the broader header rule of the type).
    public func isSensitiveHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if headerNames.contains(lowered) || isSensitiveField(name) { return true }
        if nonSecretHeaderNames.contains(lowered) { return false }
        if headerSubstrings.contains(where: { RedactionPolicy.contains(lowered, $0) }) { return true }
        guard RedactionPolicy.contains(lowered, "key") else { return false }
        let words = RedactionPolicy.words(of: name)
        return words.indices.contains { index in
            let word = words[index]
            guard RedactionPolicy.contains(word, "key") else { return false }
            let qualified = index > 0 && nonSecretKeyQualifiers.contains(words[index - 1])
            return !((word == "key" || word == "keys") && qualified)
        }
    }

    /// Whether a URL query parameter (or form field) of this name carries a secret.
    public func isSensitiveQueryParameter(_ name: String) -> Bool {
        queryParameters.contains(name.lowercased()) || isSensitiveField(name)
    }

    /// Whether `text` holds `pattern`, compared as UTF-8 bytes: `String.contains` builds a search
    /// table each call, which made judging a million member names take most of a minute.
    static func contains(_ text: String, _ pattern: String) -> Bool {
        var text = text
        var pattern = pattern
        // In the strings' own UTF-8 storage: no copy, no allocation.
        return text.withUTF8 { text in
            pattern.withUTF8 { pattern in
                guard !pattern.isEmpty else { return true }
                guard text.count >= pattern.count else { return false }
                return (0...(text.count - pattern.count)).contains { start in
                    UnsafeBufferPointer(rebasing: text[start..<(start + pattern.count)]).elementsEqual(pattern)
                }
            }
        }
    }

    /// `name` with the letters that look like Latin ones (Cyrillic `о` in `tоken`, Greek `ο`,
    /// fullwidth `ｔｏｋｅｎ`) replaced by them, and invisible characters (zero-width spaces and
    /// joiners, the word joiner, soft hyphen, BOM) left out: a name that reads as `token` is
    /// judged as `token`. An ASCII name is returned as it is, without a look at its characters.
    static func foldingLookalikes(_ name: String) -> String {
        var name = name
        if name.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) { return name }
        var folded = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            let value = scalar.value
            if [0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF].contains(value) { continue }
            if (0xFF21...0xFF3A).contains(value) || (0xFF41...0xFF5A).contains(value) {
                folded.append(Unicode.Scalar(value - 0xFEE0)!)
            } else if let latin = lookalikes[value] {
                folded.append(latin)
            } else {
                folded.append(scalar)
            }
        }
        return String(folded)
    }

    /// Cyrillic and Greek letters drawn like a Latin letter in common fonts, and that letter.
    static let lookalikes: [UInt32: Unicode.Scalar] = [
        0x0430: "a", 0x0435: "e", 0x043E: "o", 0x0440: "p", 0x0441: "c", 0x0443: "y", 0x0445: "x",
        0x0456: "i", 0x0458: "j", 0x0455: "s", 0x043A: "k", 0x0501: "d", 0x04BB: "h", 0x0410: "A",
        0x0412: "B", 0x0415: "E", 0x041A: "K", 0x041C: "M", 0x041D: "H", 0x041E: "O", 0x0420: "P",
        0x0421: "C", 0x0422: "T", 0x0425: "X", 0x0406: "I", 0x0408: "J", 0x0405: "S", 0x03BF: "o",
        0x03B1: "a", 0x03BA: "k", 0x03BD: "v", 0x03C1: "p", 0x03C4: "t", 0x03B9: "i", 0x039F: "O",
        0x039A: "K", 0x03A4: "T", 0x0391: "A", 0x0395: "E", 0x0399: "I", 0x039D: "N", 0x0392: "B",
        0x0397: "H", 0x039C: "M", 0x03A1: "P", 0x03A7: "X", 0x0396: "Z",
    ]

    static func joinedWords(_ name: String) -> String {
        words(of: name).joined()
    }

    /// Lower-cased words: split at non-alphanumerics, at a lower-to-upper step (`apiKey`) and
    /// before the last capital of a capital run followed by a lower-case letter (`APIKey`).
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current: [Character] = []
        let characters = Array(foldingLookalikes(name))
        func flush() {
            if !current.isEmpty { words.append(String(current).lowercased()) }
            current = []
        }
        for (index, character) in characters.enumerated() {
            guard character.isLetter || character.isNumber else {
                flush()
                continue
            }
            if let previous = current.last, character.isUppercase {
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { flush() }
            }
            current.append(character)
        }
        flush()
        return words
    }
}
