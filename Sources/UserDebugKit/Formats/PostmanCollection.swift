/// Recorded requests as a Postman Collection v2.1 whose requests use the variables of
/// `PostmanEnvironment` instead of the session's values, so the same collection runs for any
/// account or backend by switching the environment.
///
/// Per request, in this order:
/// 1. the session's token, wherever it appears literally (URL, header values, body), becomes
///    `{{authToken}}`;
/// 2. the rest is redacted when a redactor is given (cookies, secret fields and query items);
/// 3. a URL that starts with the session's base URL starts with `{{baseUrl}}` instead;
/// 4. the user's identifier becomes `{{userId}}` where it stands alone: a whole path segment, a
///    whole query value, a whole header value, a whole JSON string in the body (a substring would
///    turn `usr_1` inside `usr_10` into nonsense);
/// 5. any recorded `Authorization` is replaced by `Authorization: Bearer {{authToken}}` as the
///    first header. A header rather than an `auth` block, because not every runner reads `auth`
///    (postman-runner 0.2 does not), and every runner sends headers.
///
/// `Host`, `Content-Length`, `Transfer-Encoding` and `Connection` are left out: the runner
/// computes them. A binary body cannot be a `raw` body; it is left out (body mode `file` with no
/// file) and said so in the item's description and in `binaryBodiesLeftOut`.
public struct PostmanCollection: Sendable {
    /// The `info.schema` of v2.1.
    public static let schemaURL = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"

    /// The collection document.
    public var document: JSONValue
    /// How many requests had a binary body that could not be included.
    public var binaryBodiesLeftOut: Int

    /// The collection of `responses`' requests, in the order given.
    public init(_ responses: [BackendResponse], session: Session, redactor: Redactor?) {
        var items: [JSONValue] = []
        var leftOut = 0
        for response in responses {
            let (item, binary) = PostmanCollection.item(response.request, session: session, redactor: redactor)
            items.append(item)
            if binary { leftOut += 1 }
        }
        binaryBodiesLeftOut = leftOut
        document = .object(
            JSONObject([
                "info": .object(
                    JSONObject([
                        "_postman_id": .string(PostmanID.uuid(for: "collection:" + session.name)),
                        "name": .string("userdebug \(session.name)"),
                        "description": .string(
                            "Requests recorded by userdebug in session '\(session.name)'. Use with `userdebug export postman-env`."
                        ),
                        "schema": .string(PostmanCollection.schemaURL),
                    ])),
                "item": .array(items),
            ]))
    }

    static func item(_ original: BackendRequest, session: Session, redactor: Redactor?) -> (JSONValue, Bool) {
        let request = templated(original, session: session, redactor: redactor)
        let userID = session.user.identifier
        var url = PostmanURL(request.url, baseURL: session.baseURL)
        if !userID.isEmpty { url.substitute(userID, with: "{{\(PostmanEnvironment.userIDKey)}}") }
        var requestMembers: [JSONObject.Member] = [
            .init(key: "method", value: .string(request.method)),
            .init(key: "header", value: .array(headers(of: request, userID: userID))),
        ]
        var itemMembers: [JSONObject.Member] = [
            .init(key: "name", value: .string("\(request.method) \(url.displayPath)"))
        ]
        var binary = false
        if !request.body.isEmpty {
            if CurlCommand.needsFile(request.body) {
                binary = true
                itemMembers.append(
                    .init(
                        key: "description",
                        value: .string(
                            "The recorded body (\(request.body.count) bytes) is binary and is not included; choose the file to send."
                        )))
                requestMembers.append(
                    .init(
                        key: "body",
                        value: .object(
                            JSONObject(["mode": .string("file"), "file": .object(JSONObject(["src": .null]))]))))
            } else {
                requestMembers.append(.init(key: "body", value: rawBody(of: request, userID: userID)))
            }
        }
        requestMembers.append(.init(key: "url", value: url.jsonValue))
        itemMembers.append(.init(key: "request", value: .object(JSONObject(requestMembers))))
        return (.object(JSONObject(itemMembers)), binary)
    }

    /// The request with the session's token replaced by the `{{authToken}}` variable everywhere,
    /// then redacted (the token itself no longer counts as a known secret: it is a variable now).
    private static func templated(_ original: BackendRequest, session: Session, redactor: Redactor?) -> BackendRequest {
        var request = original
        let variable = "{{\(PostmanEnvironment.tokenKey)}}"
        if let token = session.token, token.utf8.count >= Redactor.minimumSecretLength {
            request.url = replacing(token, with: variable, in: request.url)
            request.headers = request.headers.map {
                HTTPHeader(name: $0.name, value: replacing(token, with: variable, in: $0.value))
            }
            request.body = replacing(Array(token.utf8), with: Array(variable.utf8), in: request.body)
        }
        if let redactor {
            var plain = redactor
            plain.knownSecrets = []
            request.url = plain.redactURL(request.url)
            request.headers = plain.redactHeaders(request.headers)
            request.body = plain.redactBody(request.body, contentType: Redactor.contentType(request.headers))
        }
        return request
    }

    /// Authorization from the token variable first, then the recorded headers that Postman does
    /// not compute itself, with a value equal to the user's id replaced by its variable.
    private static func headers(of request: BackendRequest, userID: String) -> [JSONValue] {
        var headers: [JSONValue] = [header("Authorization", "Bearer {{\(PostmanEnvironment.tokenKey)}}")]
        for header in request.headers {
            let name = header.name.lowercased()
            guard name != "authorization", !CurlCommand.isComputed(name) else { continue }
            let value = !userID.isEmpty && header.value == userID ? "{{\(PostmanEnvironment.userIDKey)}}" : header.value
            headers.append(self.header(header.name, value))
        }
        return headers
    }

    /// A text body in raw mode, the user's id (as a JSON string) replaced by its variable, marked
    /// as JSON for Postman's editor when the content type says so.
    private static func rawBody(of request: BackendRequest, userID: String) -> JSONValue {
        var text = String(decoding: request.body, as: UTF8.self)
        if !userID.isEmpty {
            var quotedID = ""
            JSONWriter.appendQuoted(userID, to: &quotedID)
            text = replacing(quotedID, with: "\"{{\(PostmanEnvironment.userIDKey)}}\"", in: text)
        }
        var body: [JSONObject.Member] = [
            .init(key: "mode", value: .string("raw")), .init(key: "raw", value: .string(text)),
        ]
        if Redactor.contentType(request.headers)?.lowercased().contains("json") == true {
            body.append(
                .init(
                    key: "options",
                    value: .object(JSONObject(["raw": .object(JSONObject(["language": .string("json")]))]))))
        }
        return .object(JSONObject(body))
    }

    private static func header(_ key: String, _ value: String) -> JSONValue {
        .object(JSONObject(["key": .string(key), "value": .string(value)]))
    }

    static func replacing(_ needle: String, with replacement: String, in text: String) -> String {
        let bytes = Array(text.utf8)
        let replaced = replacing(Array(needle.utf8), with: Array(replacement.utf8), in: bytes)
        return replaced == bytes ? text : String(decoding: replaced, as: UTF8.self)
    }

    static func replacing(_ needle: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard !needle.isEmpty else { return bytes }
        var out: [UInt8] = []
        var copied = 0
        while let found = Redactor.firstRange(of: needle, in: bytes, from: copied) {
            out += bytes[copied..<found.lowerBound]
            out += replacement
            copied = found.upperBound
        }
        return copied == 0 ? bytes : out + bytes[copied...]
    }
}
