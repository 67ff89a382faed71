/// Labels: the short texts a list or a message shows to name something — a response's tag, a
/// session's name, a user's identifier. The user or a login rule chose them, so they are shown
/// as they are, unless one holds a secret: a tag pasted from the wrong column (the token itself,
/// a JWT, `access_token=…`), a session a login rule named after an identifier that is the token.
extension Redactor {
    /// `label` as a list or a message may show it: itself, or the placeholder in its place when
    /// any part of it is a secret. The whole label goes, not only the secret part: a label is
    /// one word, and a token's neighbours in it are a clue to the token.
    public func redactLabel(_ label: String) -> String {
        isSecretLabel(label) ? Redactor.placeholder : label
    }

    /// Whether `label` holds a secret: what redaction of a text would change in it (a known
    /// secret in any of its encodings, a JWT, a `name=value` or `name: value` pair or JSON
    /// member the policy names secret).
    public func isSecretLabel(_ label: String) -> Bool {
        let bytes = Array(label.utf8)
        return redactBody(bytes, contentType: nil) != bytes
    }
}
