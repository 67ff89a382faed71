/// A recorded body made ready to be read: its `Content-Encoding` undone (see `ContentEncoding`),
/// and whether what came out is text.
///
/// Text is UTF-8 without control bytes other than tab, line feed, vertical tab, form feed,
/// carriage return and escape: what JSON, forms, XML and plain text are made of. Anything else
/// (an image, protobuf, a NUL byte) is binary: nothing in it can be found by name.
public struct BodyContent: Sendable, Equatable {
    /// What the body turned out to be.
    public enum Kind: Sendable, Equatable {
        /// Text, decoded if it was encoded.
        case text
        /// Bytes that are not text, decoded if they were encoded.
        case binary
        /// A coding that could not be undone; `bytes` are as recorded.
        case undecodable(ContentEncoding.Failure)
    }

    /// What the body is.
    public var kind: Kind
    /// The decoded bytes (as recorded when `undecodable`).
    public var bytes: [UInt8]
    /// The headers that describe `bytes`: without `Content-Encoding` (and with `Content-Length`
    /// corrected) once decoded, as recorded otherwise.
    public var headers: [HTTPHeader]
    /// The body's length as recorded.
    public var recordedCount: Int
    /// The codings it was recorded with, in the order applied.
    public var codings: [String]
    /// The most bytes it was decoded to.
    public var limit: Int

    /// Reads `body`, which was recorded with `headers`, decoding at most `limit` bytes. An empty
    /// body is empty text whatever its headers say (a `HEAD` or `204` answer keeps its coding).
    public init(_ body: [UInt8], headers: [HTTPHeader], limit: Int = ContentEncoding.decodedLimit) {
        recordedCount = body.count
        self.limit = limit
        codings = body.isEmpty ? [] : ContentEncoding.codings(of: headers)
        guard !codings.isEmpty else {
            self.bytes = body
            self.headers = headers
            kind = BodyContent.isText(body) ? .text : .binary
            return
        }
        do {
            bytes = try ContentEncoding.decode(body, codings: codings, limit: limit)
            self.headers = ContentEncoding.headers(headers, describingIdentityBodyOf: bytes.count)
            kind = BodyContent.isText(bytes) ? .text : .binary
        } catch .corrupt where BodyContent.isText(body) {
            // Text is no gzip, deflate or br stream: a body decoded by whoever recorded it (an app's
            // URLSession, a browser's HAR) under the header it came with. Redaction can read it.
            bytes = body
            self.headers = ContentEncoding.headers(headers, describingIdentityBodyOf: body.count)
            kind = .text
        } catch {
            bytes = body
            self.headers = headers
            kind = .undecodable(error)
        }
    }

    /// Whether `bytes` are text in the sense above.
    public static func isText(_ bytes: [UInt8]) -> Bool {
        // The controls of text are 0x09...0x0D and ESC. Validated in place: `String(validating:)`
        // would make a copy of a 60 MiB body only to throw it away.
        guard !bytes.contains(where: { $0 < 0x20 && !(0x09...0x0D).contains($0) && $0 != 0x1B }) else { return false }
        return bytes.withUnsafeBytes { isValidUTF8($0) }
    }

    /// What the body is, without any of its content, to stand in for it: `1,234 bytes,
    /// zstd-encoded`, `56 bytes, gzip-encoded (corrupt)`, `8 bytes, binary (image/png)`,
    /// `300 bytes, gzip-encoded, binary`. A name from the headers appears only when it is a plain
    /// HTTP token (RFC 9110 §5.6.2) of at most 32 characters, else as `unknown`, so a hostile
    /// header cannot put anything else into it.
    public var summary: String {
        var parts = ["\(BodyContent.grouped(recordedCount)) byte\(recordedCount == 1 ? "" : "s")"]
        switch kind {
        case .text, .binary:
            if !codings.isEmpty {
                parts.append(codings.map(BodyContent.shownName).joined(separator: ", ") + "-encoded")
            }
        case .undecodable(.unsupported(let coding)):
            parts.append(BodyContent.shownName(coding) + "-encoded")
        case .undecodable(.corrupt(let coding)):
            parts.append(BodyContent.shownName(coding) + "-encoded (corrupt)")
        case .undecodable(.tooLarge(let coding)):
            parts.append(
                BodyContent.shownName(coding) + "-encoded (larger than \(BodyContent.sizeText(limit)) decoded)")
        }
        if kind == .binary {
            // The media type without parameters: `type/subtype`, each part a token.
            let essence = (headers.contentType ?? "").prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }
            let pieces = essence.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            let isMediaType = pieces.count == 2 && pieces.allSatisfy { BodyContent.shownName($0) == $0 }
            parts.append(isMediaType ? "binary (\(essence.lowercased()))" : "binary")
        }
        return parts.joined(separator: ", ")
    }

    /// `name` when it is an HTTP token of at most 32 characters, else `unknown`.
    static func shownName(_ name: String) -> String {
        let tokenCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~")
        return !name.isEmpty && name.count <= 32 && name.allSatisfy(tokenCharacters.contains) ? name : "unknown"
    }

    /// `268435456` as `256 MiB`, a size that is not whole mebibytes in bytes.
    static func sizeText(_ count: Int) -> String {
        count % (1024 * 1024) == 0 ? "\(count / (1024 * 1024)) MiB" : "\(grouped(count)) bytes"
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ count: Int) -> String {
        let digits = Array(String(count))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}

extension BackendRequest {
    /// The request with its body decoded by its `Content-Encoding`, and that header gone; as
    /// recorded when the body cannot be decoded. For output that shows the body as it is meant
    /// (`--reveal`); redaction decodes on its own.
    public func decodingBody() -> BackendRequest {
        let content = BodyContent(body, headers: headers)
        if case .undecodable = content.kind { return self }
        var request = self
        request.body = content.bytes
        request.headers = content.headers
        return request
    }
}

extension BackendResponse {
    /// The exchange with both bodies decoded as `BackendRequest.decodingBody()` does.
    public func decodingBodies() -> BackendResponse {
        var response = self
        response.request = request.decodingBody()
        let content = BodyContent(body, headers: headers)
        if case .undecodable = content.kind { return response }
        response.body = content.bytes
        response.headers = content.headers
        return response
    }
}
