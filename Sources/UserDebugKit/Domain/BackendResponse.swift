public import FoundationEssentials

/// One HTTP header line; order and repeats are kept as captured.
public struct HTTPHeader: Sendable, Hashable {
    /// The header's name as captured (compare case-insensitively).
    public var name: String
    /// The value as captured. Document readers split a value that holds line breaks into one
    /// header per line, so every curl command and HAR file written from it has one line per header.
    public var value: String

    /// A header line `name: value`, kept as given (no case folding, no trimming).
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The request half of a captured exchange.
public struct BackendRequest: Sendable, Hashable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The full URL, scheme and host included (`capture` rebuilds it from curl's `Host` header).
    public var url: String
    /// The headers in the order sent, repeats kept; a `URLSession` capture has them sorted by
    /// name, as `URLRequest` keeps no order.
    public var headers: [HTTPHeader]
    /// The body bytes (empty when there was none).
    public var body: [UInt8]

    /// A request as captured; nothing is normalised (the method keeps its case, the URL its
    /// percent-encoding).
    public init(method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A captured backend exchange: the request, the response, timing, tags and the session it
/// belongs to.
public struct BackendResponse: Sendable, Hashable {
    /// The store's row id once recorded (1, 2, …); nil before.
    public var id: Int64?
    /// The name of the session it belongs to; nil before it is recorded.
    public var sessionName: String?
    /// The request this answers; each hop of a redirect curl followed is an exchange of its own.
    public var request: BackendRequest
    /// The final status code (interim `1xx` answers are not kept); documents are refused unless
    /// it is 100–599.
    public var status: Int
    /// The response headers in order.
    public var headers: [HTTPHeader]
    /// The response body as the source handed it over, empty when there was none; `capture` keeps
    /// a compressed body compressed, with its `Content-Encoding`.
    public var body: [UInt8]
    /// When the request started; nil when the source did not say (a HAR export then writes the
    /// Unix epoch, which HAR requires).
    public var startedAt: Date?
    /// Milliseconds from sending the request to the last byte of the response; nil when not known
    /// (a HAR `time` of `-1` reads as nil).
    public var durationMs: Double?
    /// Free-form tags such as `login`.
    public var tags: [String]

    /// A response as captured. `id` and `sessionName` describe a record read back from the store:
    /// `SessionStore.record` ignores both (the session is its own argument) and returns the new id.
    public init(
        id: Int64? = nil,
        sessionName: String? = nil,
        request: BackendRequest,
        status: Int,
        headers: [HTTPHeader] = [],
        body: [UInt8] = [],
        startedAt: Date? = nil,
        durationMs: Double? = nil,
        tags: [String] = []
    ) {
        self.id = id
        self.sessionName = sessionName
        self.request = request
        self.status = status
        self.headers = headers
        self.body = body
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.tags = tags
    }

    /// The first response header named `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.value(named: name)
    }
}
