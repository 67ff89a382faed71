/// Bodies as the redactor sees them: decoded first, and never shown when they cannot be read.
extension Redactor {
    /// A recorded body and the headers it was recorded with, as they may be shown: the body
    /// decoded by its `Content-Encoding` and redacted like any text body (the headers then lose
    /// `Content-Encoding`). A body that redaction cannot read — a coding that cannot be undone
    /// (`zstd`, anything unknown), a corrupt or truncated stream, one that decodes to more than
    /// `ContentEncoding.decodedLimit`, binary content — is replaced by a marker that says what it
    /// is and nothing of what it holds: `[body: 1,234 bytes, zstd-encoded, shown with --reveal]`.
    public func redactBody(_ body: [UInt8], headers: [HTTPHeader]) -> (body: [UInt8], headers: [HTTPHeader]) {
        guard !body.isEmpty else { return (body, headers) }
        let content = BodyContent(body, headers: headers)
        guard content.kind != .text else {
            return (redactBody(content.bytes, contentType: content.headers.contentType), content.headers)
        }
        let marker = Array(replacingKnownSecrets(in: Redactor.bodyMarker(content.summary)).utf8)
        return (marker, ContentEncoding.headers(headers, describingIdentityBodyOf: marker.count))
    }

    /// What stands in for a body that is not shown, given `BodyContent.summary`.
    public static func bodyMarker(_ summary: String) -> String {
        "[body: \(summary), shown with --reveal]"
    }
}
