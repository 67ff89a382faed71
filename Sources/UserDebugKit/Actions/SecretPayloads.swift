/// The one decision, for every action's payload, of whether it is a secret that the action did
/// not declare: recorded data, a backend answer or a config template can carry the session's
/// token, or a JWT under a name no policy knows, without the action meaning to put a secret out.
///
/// A payload is a secret when it holds the session's token (literally or percent-encoded, as a
/// template's `| url` writes it), a JWT-shaped value, or — under `--reveal`, for JSON — a member
/// the redactor would replace. Without `--reveal` such a payload has those values replaced by
/// the placeholder; with it, it is marked secret (a clipboard owner offers the password-manager
/// hint and clears it after `clipboard.secretClearSeconds`). A payload the action declared secret
/// (`copy-token`, a config action with `"secret": true`) is the secret asked for by name, and
/// passes unchanged.
///
/// The cheap checks (a byte search for the token, a scan for `eyJ…`) come first and need no
/// config, so `copy-id` on the hotkey path reads nothing more than before.
package enum SecretPayloads {
    /// `payload` as it may go out from an action running in `context`: unchanged when declared
    /// secret or not a secret, redacted without `--reveal`, marked secret with it.
    package static func settle(_ payload: Payload, in context: ActionContext) throws -> Payload {
        guard !payload.isSecret else { return payload }
        let needles = tokenForms(context.session.token)
        if holdsSecretShape(payload.bytes, needles: needles) {
            guard try context.redactor() != nil else { return marked(payload) }
            return Payload(bytes: replacingShapes(in: payload.bytes, needles: needles), kind: payload.kind)
        }
        // Without --reveal a JSON payload was built by the redactor already; with it, the
        // redactor still tells which members are secrets.
        guard payload.kind == .json, try context.redactor() == nil else { return payload }
        let redacted = try context.secretsRedactor().redactBody(payload.bytes, contentType: "application/json")
        return redacted == payload.bytes ? payload : marked(payload)
    }

    private static func marked(_ payload: Payload) -> Payload {
        var marked = payload
        marked.isSecret = true
        return marked
    }

    /// Whether `bytes` hold `token` (or its percent-encoded form) or a JWT-shaped value.
    package static func looksSecret(_ bytes: [UInt8], token: String?) -> Bool {
        holdsSecretShape(bytes, needles: tokenForms(token))
    }

    /// The test values from recorded data must pass to be shown (a menu subtitle, an id) or to
    /// become a command's argument, for many values against one token: built once, it also
    /// finds the token encoded (issue 25, item 6): base64 at any offset, hex, percent-encoding
    /// of any character (`HSTOK%43ANARY`), JSON and XML escapes, the redactor's known-secret
    /// search. Not for the hotkey path's payloads and notices, which `looksSecret` and
    /// `redacted` keep to two byte searches.
    package struct EncodedTokenCheck {
        private let needles: [[UInt8]]
        private let search: KnownSecretSearch?

        package init(token: String?) {
            needles = SecretPayloads.tokenForms(token)
            search = needles.isEmpty ? nil : KnownSecretSearch(secrets: [needles[0]])
        }

        /// Whether `bytes` hold the token in any form.
        package func holdsToken(_ bytes: [UInt8]) -> Bool {
            search.map { !$0.ranges(in: bytes).isEmpty } ?? false
        }

        /// Whether `bytes` hold the token in any form, or a JWT-shaped value.
        package func looksSecret(_ bytes: [UInt8]) -> Bool {
            SecretPayloads.holdsSecretShape(bytes, needles: needles) || holdsToken(bytes)
        }
    }

    /// `text` with `token` (and its percent-encoded form) and every JWT-shaped value replaced by
    /// the placeholder: for one-line texts shown whatever `--reveal` says (error messages, menu
    /// titles).
    package static func redacted(_ text: String, token: String?) -> String {
        let bytes = Array(text.utf8)
        let replaced = replacingShapes(in: bytes, needles: tokenForms(token))
        return replaced == bytes ? text : String(decoding: replaced, as: UTF8.self)
    }

    /// A line a command wrote to stderr, as an error message may show it: `redactor`'s body
    /// redaction (a JSON or `name=value` line with secret members, the known secrets), then the
    /// token's forms and JWTs. Errors are never revealed: `--reveal` is about the payload.
    package static func redactedDiagnostic(_ text: String, redactor: Redactor, token: String?) -> String {
        let bytes = Array(text.utf8)
        let replaced = replacingShapes(in: redactor.redactBody(bytes, contentType: nil), needles: tokenForms(token))
        return replaced == bytes ? text : String(decoding: replaced, as: UTF8.self)
    }

    /// The token as it may appear in a payload: as is, and percent-encoded when that differs.
    /// Tokens shorter than `Redacted.minimumSecretLength` are not searched for, as elsewhere.
    static func tokenForms(_ token: String?) -> [[UInt8]] {
        guard let token, token.utf8.count >= Redacted.minimumSecretLength else { return [] }
        let encoded = ActionTemplate.percentEncoded(token)
        return encoded == token ? [Array(token.utf8)] : [Array(token.utf8), Array(encoded.utf8)]
    }

    fileprivate static func holdsSecretShape(_ bytes: [UInt8], needles: [[UInt8]]) -> Bool {
        needles.contains { ByteSearch.firstRange(of: $0, in: bytes, from: 0) != nil }
            || !JWTShape.ranges(in: bytes).isEmpty
    }

    private static func replacingShapes(in bytes: [UInt8], needles: [[UInt8]]) -> [UInt8] {
        let placeholder = Array(Redacted.placeholder.utf8)
        let withoutToken = needles.reduce(bytes) { ByteSearch.replacing($1, with: placeholder, in: $0) }
        var out: [UInt8] = []
        var copied = 0
        for found in JWTShape.ranges(in: withoutToken) {
            out += withoutToken[copied..<found.lowerBound]
            out += placeholder
            copied = found.upperBound
        }
        return copied == 0 ? withoutToken : out + withoutToken[copied...]
    }
}
