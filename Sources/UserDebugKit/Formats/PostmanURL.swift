/// A request URL in Postman's v2.1 `url` object form: `raw` (what Postman shows and what runners
/// send), and its parts (`protocol`, `host`, `port`, `path`, `query`) that Postman's editor
/// shows. Query keys and values are kept encoded as recorded, as Postman stores them.
struct PostmanURL {
    /// `{{baseUrl}}` when the URL started with the session's base URL, else `scheme://host[:port]`.
    private(set) var origin: String
    private(set) var scheme: String?
    private(set) var host: String?
    private(set) var port: String?
    private(set) var pathSegments: [String]
    private(set) var hasTrailingSlash: Bool
    private(set) var query: [(key: String, value: String?)]
    private(set) var fragment: String?
    /// Whether `origin` is the `{{baseUrl}}` variable.
    private(set) var usesBaseURL: Bool

    /// Splits `url`; a prefix equal to `baseURL` (ignoring one trailing `/`) becomes `{{baseUrl}}`
    /// when what follows is a path, a query or nothing.
    init(_ url: String, baseURL: String?) {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        query = []
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false) {
                if let equals = pair.firstIndex(of: "=") {
                    query.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
                } else {
                    query.append((String(pair), nil))
                }
            }
            rest = rest[..<question]
        }
        usesBaseURL = false
        var base = baseURL ?? ""
        if base.hasSuffix("/") { base.removeLast() }
        var path: Substring
        if !base.isEmpty, rest.hasPrefix(base), rest.dropFirst(base.count).first.map({ $0 == "/" }) ?? true {
            usesBaseURL = true
            origin = "{{\(PostmanEnvironment.baseURLKey)}}"
            path = rest.dropFirst(base.count)
        } else if let schemeEnd = rest.firstRange(of: "://") {
            scheme = String(rest[..<schemeEnd.lowerBound])
            let afterScheme = rest[schemeEnd.upperBound...]
            let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
            let authority = afterScheme[..<authorityEnd]
            let hostPort = authority.split(separator: "@").last ?? authority
            if let colon = hostPort.lastIndex(of: ":"), !hostPort[colon...].contains("]") {
                host = String(hostPort[..<colon])
                port = String(hostPort[hostPort.index(after: colon)...])
            } else {
                host = String(hostPort)
            }
            origin = String(rest[..<authorityEnd])
            path = afterScheme[authorityEnd...]
        } else {
            origin = ""
            path = rest
        }
        hasTrailingSlash = path.count > 1 && path.hasSuffix("/")
        pathSegments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// Replaces whole path segments and whole query values equal to `value` (also when
    /// percent-encoded) with `variable`.
    mutating func substitute(_ value: String, with variable: String) {
        func matches(_ text: String) -> Bool { text == value || PercentDecoding.decoded(Substring(text)) == value }
        pathSegments = pathSegments.map { matches($0) ? variable : $0 }
        query = query.map { item in (item.key, item.value.map { matches($0) ? variable : $0 }) }
    }

    /// The path as shown in an item's name: `/v1/users/{{userId}}`.
    var displayPath: String {
        "/" + pathSegments.joined(separator: "/") + (hasTrailingSlash ? "/" : "")
    }

    /// The whole URL as text.
    var raw: String {
        // `{{baseUrl}}` alone stays alone; a real origin always gets a path, as browsers show it.
        var text = origin + (usesBaseURL && pathSegments.isEmpty && !hasTrailingSlash ? "" : displayPath)
        if !query.isEmpty {
            text +=
                "?" + query.map { item in item.value.map { item.key + "=" + $0 } ?? item.key }.joined(separator: "&")
        }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// The `url` object of a v2.1 request.
    var jsonValue: JSONValue {
        var members: [JSONObject.Member] = [.init(key: "raw", value: .string(raw))]
        if usesBaseURL {
            members.append(.init(key: "host", value: .array([.string(origin)])))
        } else if let host {
            if let scheme { members.append(.init(key: "protocol", value: .string(scheme))) }
            members.append(.init(key: "host", value: .array(host.split(separator: ".").map { .string(String($0)) })))
            if let port { members.append(.init(key: "port", value: .string(port))) }
        }
        members.append(
            .init(
                key: "path", value: .array(pathSegments.map(JSONValue.string) + (hasTrailingSlash ? [.string("")] : []))
            ))
        if !query.isEmpty {
            members.append(
                .init(
                    key: "query",
                    value: .array(
                        query.map { item in
                            .object(
                                JSONObject([
                                    "key": .string(item.key), "value": item.value.map(JSONValue.string) ?? .null,
                                ]))
                        })))
        }
        if let fragment { members.append(.init(key: "hash", value: .string(fragment))) }
        return .object(JSONObject(members))
    }
}
