/// Recorded requests as a Postman Collection v2.1 whose requests use the variables of
/// `PostmanEnvironment` instead of the session's values, so the same collection runs for any
/// account or backend by switching the environment.
///
/// Per request, in this order:
/// 1. the session's token, wherever it appears literally (URL, header values, body), becomes
///    `{{authToken}}`;
/// 2. the rest goes through the caller's redaction step (cookies, secret fields and query
///    items; see the `redactor:` initializer of the Redaction layer);
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

    /// The collection of `responses`' requests, in the order given; `redact` is applied to each
    /// request once its token has become `{{authToken}}` (identity to export as recorded).
    public init(
        _ responses: [BackendResponse], session: Session,
        redactingRequests redact: (BackendRequest) -> BackendRequest
    ) {
        var items: [JSONValue] = []
        var leftOut = 0
        for response in responses {
            let (item, binary) = PostmanCollection.item(response.request, session: session, redact: redact)
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

    static func item(
        _ original: BackendRequest, session: Session, redact: (BackendRequest) -> BackendRequest
    ) -> (JSONValue, Bool) {
        // Decoded first, so that the token inside a compressed body becomes the variable too.
        let request = redact(templated(original.decodingBody(), session: session))
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

    /// The request with the session's token replaced by the `{{authToken}}` variable everywhere
    /// (a token too short to be searched for safely is left to the redaction step).
    private static func templated(_ original: BackendRequest, session: Session) -> BackendRequest {
        var request = original
        let variable = "{{\(PostmanEnvironment.tokenKey)}}"
        if let token = session.token, token.utf8.count >= Redacted.minimumSecretLength {
            request.url = ByteSearch.replacing(token, with: variable, in: request.url)
            request.headers = request.headers.map {
                HTTPHeader(name: $0.name, value: ByteSearch.replacing(token, with: variable, in: $0.value))
            }
            request.body = ByteSearch.replacing(Array(token.utf8), with: Array(variable.utf8), in: request.body)
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
            text = ByteSearch.replacing(quotedID, with: "\"{{\(PostmanEnvironment.userIDKey)}}\"", in: text)
        }
        var body: [JSONObject.Member] = [
            .init(key: "mode", value: .string("raw")), .init(key: "raw", value: .string(text)),
        ]
        if request.headers.contentType?.lowercased().contains("json") == true {
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
}
