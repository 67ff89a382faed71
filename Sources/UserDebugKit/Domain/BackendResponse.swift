public import FoundationEssentials

/// One HTTP header line; order and repeats are kept as captured.
public struct HTTPHeader: Sendable, Hashable {
    /// The header's name as captured (compare case-insensitively).
    public var name: String
    /// The header's value.
    public var value: String

    /// A header.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The request half of a captured exchange.
public struct BackendRequest: Sendable, Hashable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The full URL.
    public var url: String
    /// The headers in order.
    public var headers: [HTTPHeader]
    /// The body bytes (empty when there was none).
    public var body: [UInt8]

    /// A request.
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
    /// The request.
    public var request: BackendRequest
    /// The HTTP status.
    public var status: Int
    /// The response headers in order.
    public var headers: [HTTPHeader]
    /// The response body bytes.
    public var body: [UInt8]
    /// When the request started.
    public var startedAt: Date?
    /// How long it took, in milliseconds.
    public var durationMs: Double?
    /// Free-form tags such as `login`.
    public var tags: [String]

    /// A response.
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
