/// Which recorded responses to list. Every filter that is set must match; results come newest
/// first (highest id first).
public struct ResponseQuery: Sendable, Equatable {
    /// The session's name; nil for all sessions.
    public var session: String?
    /// A tag the response must carry.
    public var tag: String?
    /// A substring of the request URL (case-sensitive, taken literally).
    public var pathContains: String?
    /// The exact HTTP status.
    public var status: Int?
    /// The first digit of the status: 2 matches 200...299.
    public var statusClass: Int?
    /// At most this many responses; nil for all (0 or less selects none).
    public var limit: Int?
    /// Whether request and response bodies are loaded. When false they are left empty and never
    /// read from disk, so listing a million responses stays cheap.
    public var includeBodies: Bool

    /// A query; with no arguments, every response with its bodies.
    public init(
        session: String? = nil,
        tag: String? = nil,
        pathContains: String? = nil,
        status: Int? = nil,
        statusClass: Int? = nil,
        limit: Int? = nil,
        includeBodies: Bool = true
    ) {
        self.session = session
        self.tag = tag
        self.pathContains = pathContains
        self.status = status
        self.statusClass = statusClass
        self.limit = limit
        self.includeBodies = includeBodies
    }

    /// The SELECT for this query, given the session's row id (and a single response's id, for
    /// `SessionStore.response(id:)`), with its parameters.
    ///
    /// With a tag, the walk starts in `response_tags` (an index on tag or session+tag, already in
    /// id order) and looks each response up by id; without one it walks `responses` backwards by
    /// id or through `responses_by_session`. Either way `limit: 1` is one index seek. The session
    /// name comes from a correlated lookup rather than a join, so the planner cannot choose to
    /// drive the query from `sessions` and sort.
    func sql(sessionID: Int64?, responseID: Int64? = nil) -> (sql: String, values: [SQLValue]) {
        var conditions: [String] = []
        var values: [SQLValue] = []
        let from: String
        let order: String
        if let tag {
            from = "response_tags AS t CROSS JOIN responses AS r ON r.id = t.response_id"
            order = "t.response_id DESC"
            conditions.append("t.tag = ?")
            values.append(.text(tag))
            if let sessionID {
                conditions.append("t.session_id = ?")
                values.append(.integer(sessionID))
            }
        } else {
            from = "responses AS r"
            order = "r.id DESC"
            if let sessionID {
                conditions.append("r.session_id = ?")
                values.append(.integer(sessionID))
            }
        }
        if let responseID {
            conditions.append("r.id = ?")
            values.append(.integer(responseID))
        }
        if let pathContains {
            conditions.append("instr(r.url, ?) > 0")
            values.append(.text(pathContains))
        }
        if let status {
            conditions.append("r.status = ?")
            values.append(.integer(Int64(status)))
        }
        if let statusClass {
            conditions.append("r.status BETWEEN ? AND ?")
            values.append(.integer(Int64(statusClass) * 100))
            values.append(.integer(Int64(statusClass) * 100 + 99))
        }
        let bodies = includeBodies ? "r.request_body, r.response_body" : "X'', X''"
        var sql = """
            SELECT r.id, (SELECT s.name FROM sessions AS s WHERE s.id = r.session_id), r.status, r.method, r.url, \
            r.started_at_ms, r.duration_ms, r.tags, r.request_headers, r.response_headers, \(bodies) FROM \(from)
            """
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.joined(separator: " AND ")
        }
        sql += " ORDER BY \(order)"
        if let limit {
            sql += " LIMIT ?"
            values.append(.integer(Int64(max(0, limit))))
        }
        return (sql, values)
    }
}

extension ResponseQuery {
    /// Whether `response` passes every filter that is set (the in-memory twin of the SQL).
    public func matches(_ response: BackendResponse) -> Bool {
        if let session, response.sessionName != nil, response.sessionName != session { return false }
        if let tag, !response.tags.contains(tag) { return false }
        if let pathContains, !response.request.url.contains(pathContains) { return false }
        if let status, response.status != status { return false }
        if let statusClass, response.status / 100 != statusClass { return false }
        return true
    }
}

/// Which one recorded response is meant: by id, or the newest a query selects (what an action
/// or `userdebug print-response` names).
public enum ResponseSelector: Sendable, Equatable {
    /// The response with this store id.
    case id(Int64)
    /// The newest response matching the query.
    case newest(ResponseQuery)

    /// "no recorded response matches (session 'staging', tag 'login')": why nothing was found,
    /// and after "; " the command that fixes it (`FirstHourState`): a session with no response
    /// yet (`sessionHasResponses` false, or no filter) gets how to record one, against its
    /// `baseURL` when it has one; a filtered miss gets `response list` of the session.
    public func notFoundMessage(session: String, baseURL: String? = nil, sessionHasResponses: Bool = true) -> String {
        switch self {
        case .id(let id):
            return "no response with id \(id)"
        case .newest(let query):
            var filters: [String] = []
            if let tag = query.tag { filters.append("tag '\(tag)'") }
            if let path = query.pathContains { filters.append("URL containing '\(path)'") }
            if let status = query.status { filters.append("status \(status)") }
            if let statusClass = query.statusClass { filters.append("status \(statusClass)xx") }
            let name = query.session ?? session
            if filters.isEmpty || !sessionHasResponses {
                return FirstHourState.noResponses(session: name, baseURL: baseURL).message
            }
            return FirstHourState.noMatch(session: name, filters: filters).message
        }
    }
}
