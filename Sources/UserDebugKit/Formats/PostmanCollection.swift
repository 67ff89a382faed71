/// Recorded requests as a Postman Collection v2.1 whose requests use the variables of
/// `PostmanEnvironment` instead of the session's values, so the same collection runs for any
/// account or backend by switching the environment.
///
/// The token goes only where the app sent it: to the origin (scheme, host, port) of the
/// session's base URL. Per request, in this order:
/// 1. on that origin, the session's token, wherever it appears literally (URL, header values,
///    body), becomes `{{authToken}}`; on any other origin (a tracker from a HAR import) it is
///    left to the redaction step, so that running the collection never sends it there;
/// 2. the rest goes through the caller's redaction step (cookies, secret fields and query
///    items; see the `redactor:` initializer of the Redaction layer);
/// 3. a URL that starts with the session's base URL starts with `{{baseUrl}}` instead;
/// 4. the user's identifier becomes `{{userId}}` where it stands alone: a whole path segment, a
///    whole query value, a whole header value, a whole JSON string in the body (a substring would
///    turn `usr_1` inside `usr_10` into nonsense);
/// 5. on the base URL's origin, except for the request that obtained the token (the login: see
///    `isLogin`), any recorded `Authorization` is replaced by `Authorization: Bearer
///    {{authToken}}` as the first header. A header rather than an `auth` block, because not
///    every runner reads `auth` (postman-runner 0.2 does not), and every runner sends headers.
///    Other requests keep their recorded `Authorization` (as redacted).
///
/// `Host`, `Content-Length`, `Transfer-Encoding` and `Connection` are left out: the runner
/// computes them. A binary body cannot be a `raw` body; it is left out (body mode `file` with no
/// file) and said so in the item's description and in `binaryBodiesLeftOut`.
public struct PostmanCollection: Sendable {
    /// The `info.schema` of v2.1.
    public static let schemaURL = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"

    /// The whole collection (`info`, then `item` with one request per response, in the order
    /// given), for `JSONWriter`.
    public var document: JSONValue
    /// How many requests had a binary body that could not be included.
    public var binaryBodiesLeftOut: Int

    /// The collection of `responses`' requests, in the order given; `redact` is applied to each
    /// request once its token has become `{{authToken}}` (identity to export as recorded).
    /// `isLogin` says which exchange obtained the token (default: `isLogin(_:token:)`).
    public init(
        _ responses: [BackendResponse], session: Session,
        isLogin: ((BackendResponse) -> Bool)? = nil,
        redactingRequests redact: (BackendRequest) -> BackendRequest
    ) {
        var items: [JSONValue] = []
        var leftOut = 0
        let baseOrigin = session.baseURL.flatMap(PostmanCollection.origin(of:))
        for response in responses {
            let sameOrigin = baseOrigin != nil && PostmanCollection.origin(of: response.request.url) == baseOrigin
            let login = isLogin?(response) ?? PostmanCollection.isLogin(response, token: session.token)
            let (item, binary) = PostmanCollection.item(
                response.request, session: session, sameOrigin: sameOrigin, authorize: sameOrigin && !login,
                redact: redact)
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

    /// Whether the exchange obtained the token: tagged `login`, or answered with the token (in
    /// its body or headers) to a request that did not carry it.
    public static func isLogin(_ response: BackendResponse, token: String?) -> Bool {
        if response.tags.contains(where: { $0.lowercased() == "login" }) { return true }
        guard let token, token.utf8.count >= Redacted.minimumSecretLength else { return false }
        let needle = Array(token.utf8)
        func has(_ bytes: [UInt8]) -> Bool { ByteSearch.firstRange(of: needle, in: bytes, from: 0) != nil }
        let request = response.request
        let sent =
            has(Array(request.url.utf8)) || request.headers.contains { has(Array($0.value.utf8)) }
            || has(request.body)
        let answered = has(response.body) || response.headers.contains { has(Array($0.value.utf8)) }
        return answered && !sent
    }

    /// `scheme://host:port` of an http(s) URL, lower-cased, with the default port written out
    /// and userinfo dropped; nil for anything else. The authority ends at `/`, `?`, `#` or `\`
    /// (which browsers and Postman read as `/`), so `http://evil\@api.example` is evil's.
    static func origin(of url: String) -> String? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest[..<(rest.firstIndex { "/?#\\".contains($0) } ?? rest.endIndex)]
        var hostPort = authority[(authority.lastIndex(of: "@").map(authority.index(after:)) ?? authority.startIndex)...]
        guard !hostPort.isEmpty, hostPort.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { return nil }
        var port = scheme == "https" ? "443" : "80"
        if let colon = hostPort.lastIndex(of: ":"), !hostPort[colon...].contains("]") {
            let digits = hostPort[hostPort.index(after: colon)...]
            guard digits.allSatisfy(\.isNumber) else { return nil }
            if !digits.isEmpty { port = String(Int(digits) ?? -1) }
            hostPort = hostPort[..<colon]
        }
        return "\(scheme)://\(hostPort.lowercased()):\(port)"
    }

    static func item(
        _ original: BackendRequest, session: Session, sameOrigin: Bool, authorize: Bool,
        redact: (BackendRequest) -> BackendRequest
    ) -> (JSONValue, Bool) {
        // Decoded first, so that the token inside a compressed body becomes the variable too.
        let decoded = original.decodingBody()
        let request = redact(sameOrigin ? templated(decoded, session: session) : decoded)
        let userID = session.user.identifier
        var url = PostmanURL(request.url, baseURL: session.baseURL)
        if !userID.isEmpty { url.substitute(userID, with: "{{\(PostmanEnvironment.userIDKey)}}") }
        var requestMembers: [JSONObject.Member] = [
            .init(key: "method", value: .string(request.method)),
            .init(key: "header", value: .array(headers(of: request, userID: userID, authorize: authorize))),
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

    /// Authorization from the token variable first when `authorize`, then the recorded headers
    /// that Postman does not compute itself (a recorded Authorization only when not replaced),
    /// with a value equal to the user's id replaced by its variable.
    private static func headers(of request: BackendRequest, userID: String, authorize: Bool) -> [JSONValue] {
        var headers: [JSONValue] =
            authorize ? [header("Authorization", "Bearer {{\(PostmanEnvironment.tokenKey)}}")] : []
        for header in request.headers {
            let name = header.name.lowercased()
            guard !(authorize && name == "authorization"), !CurlCommand.isComputed(name) else { continue }
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
