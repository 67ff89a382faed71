import Foundation
import Testing

@testable import UserDebugKit

@Suite struct StoreResponseTests {
    let directory: TemporaryDirectory
    let store: SessionStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try SessionStore.open(path: directory.file("userdebug.sqlite3"), mode: .readWrite)
        try store.saveSession(StoreSamples.session("staging"), makeCurrent: true)
        try store.saveSession(StoreSamples.session("prod"), makeCurrent: false)
    }

    /// Records a small mixed log: ids 1…5 in this order.
    func recordMixedLog() throws {
        try store.record(
            StoreSamples.response(url: "https://s/v1/login", status: 200, tags: ["login"]), session: "staging")
        try store.record(StoreSamples.response(url: "https://s/v1/users/1", status: 404), session: "staging")
        try store.record(
            StoreSamples.response(url: "https://p/v1/login", status: 201, tags: ["login", "auth"]), session: "prod")
        try store.record(
            StoreSamples.response(url: "https://p/v1/users/2", status: 500, tags: ["auth"]), session: "prod")
        try store.record(StoreSamples.response(url: "https://s/v1/users/3", status: 204), session: nil)
    }

    @Test func aRecordedResponseReadsBackWhole() throws {
        let response = StoreSamples.response(tags: ["login", "first", "login"])
        let id = try store.record(response, session: "prod")

        var expected = response
        expected.id = id
        expected.sessionName = "prod"
        #expect(try store.response(id: id) == expected)
    }

    @Test func binaryBodiesWithNulBytesSurvive() throws {
        let body: [UInt8] = [0, 0, 0x89, 0x50, 0x4E, 0x47, 0, 0xFF, 0xFE, 0] + Array(repeating: 0, count: 70_000)
        let id = try store.record(StoreSamples.response(body: body), session: nil)

        let loaded = try #require(try store.response(id: id))
        #expect(loaded.body == body)
        #expect(loaded.request.body == [0, 1, 0, 255])
    }

    @Test func emptyBodiesStayEmptyNotMissing() throws {
        var response = StoreSamples.response(body: [])
        response.request.body = []
        let id = try store.record(response, session: nil)

        let loaded = try #require(try store.response(id: id))
        #expect(loaded.body.isEmpty && loaded.request.body.isEmpty)
        #expect(try store.column("SELECT typeof(response_body) FROM responses") == ["blob"])
    }

    @Test func recordingWithoutASessionUsesTheCurrentOne() throws {
        let id = try store.record(StoreSamples.response(), session: nil)
        #expect(try store.response(id: id)?.sessionName == "staging")
    }

    @Test func recordingWithoutASessionWhenNoneIsCurrentFails() throws {
        try store.removeSession("staging")
        #expect(throws: StoreError.noCurrentSession) { try store.record(StoreSamples.response(), session: nil) }
    }

    @Test func recordingIntoAMissingSessionFailsAndRecordsNothing() throws {
        #expect(throws: StoreError.noSuchSession("ghost")) {
            try store.record([StoreSamples.response(), StoreSamples.response()], session: "ghost")
        }
        #expect(try store.responseCount(session: nil) == 0)
    }

    @Test func aBatchGetsIncreasingIdsInOrder() throws {
        let ids = try store.record((0..<5).map { StoreSamples.response(url: "https://s/\($0)") }, session: nil)
        #expect(ids == ids.sorted() && Set(ids).count == 5)
        #expect(try ids.map { try store.response(id: $0)?.request.url } == (0..<5).map { "https://s/\($0)" })
    }

    @Test func responsesComeNewestFirst() throws {
        try recordMixedLog()
        #expect(try store.responses(ResponseQuery()).map(\.id) == [5, 4, 3, 2, 1])
    }

    /// One row per filter: the query and the ids it must return, newest first.
    static let filterCases: [(String, ResponseQuery, [Int64])] = [
        ("session", ResponseQuery(session: "prod"), [4, 3]),
        ("tag", ResponseQuery(tag: "login"), [3, 1]),
        ("session and tag", ResponseQuery(session: "staging", tag: "login"), [1]),
        ("tag with limit", ResponseQuery(tag: "auth", limit: 1), [4]),
        ("path substring", ResponseQuery(pathContains: "/users/"), [5, 4, 2]),
        ("path substring is literal, not a pattern", ResponseQuery(pathContains: "v_/"), []),
        ("status", ResponseQuery(status: 404), [2]),
        ("status class", ResponseQuery(statusClass: 2), [5, 3, 1]),
        ("status class 5", ResponseQuery(statusClass: 5), [4]),
        ("limit", ResponseQuery(limit: 2), [5, 4]),
        ("zero limit", ResponseQuery(limit: 0), []),
        (
            "every filter at once",
            ResponseQuery(session: "prod", tag: "login", pathContains: "login", status: 201, statusClass: 2, limit: 5),
            [3]
        ),
        ("filters that exclude each other", ResponseQuery(tag: "auth", statusClass: 4), []),
    ]

    @Test(arguments: filterCases)
    func aQuerySelectsExactlyTheMatchingResponses(_ name: String, _ query: ResponseQuery, _ ids: [Int64]) throws {
        try recordMixedLog()
        #expect(try store.responses(query).map(\.id) == ids, "\(name)")
    }

    @Test func queryingAMissingSessionFails() throws {
        #expect(throws: StoreError.noSuchSession("ghost")) { try store.responses(ResponseQuery(session: "ghost")) }
        #expect(throws: StoreError.noSuchSession("ghost")) { try store.responseCount(session: "ghost") }
    }

    @Test func listingWithoutBodiesLeavesThemEmptyAndKeepsEverythingElse() throws {
        let id = try store.record(StoreSamples.response(tags: ["x"]), session: nil)

        let listed = try #require(try store.responses(ResponseQuery(includeBodies: false)).first)
        #expect(listed.body.isEmpty && listed.request.body.isEmpty)
        var withoutBodies = try #require(try store.response(id: id))
        withoutBodies.body = []
        withoutBodies.request.body = []
        #expect(listed == withoutBodies)
    }

    @Test func responsesAreCountedPerSessionAndInTotal() throws {
        try recordMixedLog()
        #expect(try store.responseCount(session: nil) == 5)
        #expect(try store.responseCount(session: "prod") == 2)
        #expect(try store.responseCount(session: "staging") == 3)
    }

    @Test func retentionByCountDropsTheOldestResponses() throws {
        store.retention = RetentionPolicy(maxCount: 3, maxBytes: nil)
        let ids = try (0..<5).map { _ in try store.record(StoreSamples.response(tags: ["t"]), session: nil) }

        #expect(try store.responses(ResponseQuery()).map(\.id) == Array(ids.suffix(3).reversed()))
        #expect(try store.responseCount(session: nil) == 3)
        #expect(try store.column("SELECT count(*) FROM response_tags") == ["3"])
    }

    @Test func retentionByBytesDropsTheOldestResponses() throws {
        let body = [UInt8](repeating: 7, count: 10_000)
        store.retention = RetentionPolicy(maxCount: nil, maxBytes: 35_000)
        let ids = try (0..<5).map { _ in try store.record(StoreSamples.response(body: body), session: nil) }

        // Each response is a little over 10,000 bytes, so three fit in 35,000 and four do not.
        #expect(try store.responses(ResponseQuery(includeBodies: false)).map(\.id) == Array(ids.suffix(3).reversed()))
    }

    @Test func aBatchLargerThanTheLimitIsKeptWhole() throws {
        store.retention = RetentionPolicy(maxCount: 2, maxBytes: nil)
        try store.record(StoreSamples.response(), session: nil)
        let batch = try store.record((0..<4).map { _ in StoreSamples.response() }, session: nil)

        #expect(try store.responses(ResponseQuery()).map(\.id) == batch.reversed())
    }

    @Test func largeBodiesWrittenThroughBlobIOReadBackExactly() throws {
        var generator = SystemRandomNumberGenerator()
        let requestBody = (0..<(SessionStore.streamedBodyBytes + 3)).map { _ in
            UInt8.random(in: 0...255, using: &generator)
        }
        let responseBody = (0..<(2 * SessionStore.streamedBodyBytes)).map { _ in
            UInt8.random(in: 0...255, using: &generator)
        }
        var response = StoreSamples.response(body: responseBody)
        response.request.body = requestBody
        var small = StoreSamples.response(body: responseBody)
        small.request.body = [1, 2, 3]
        let ids = try store.record([response, small], session: nil)
        let read = try #require(try store.response(id: ids[0]))
        #expect(read.request.body == requestBody && read.body == responseBody)
        let readSmall = try #require(try store.response(id: ids[1]))
        #expect(readSmall.request.body == [1, 2, 3] && readSmall.body == responseBody)
    }

    @Test func oneResponseLargerThanTheByteCapIsRefusedWithItsBatch() throws {
        store.retention = RetentionPolicy(maxCount: nil, maxBytes: 5_000)
        let kept = try store.record(StoreSamples.response(), session: nil)
        let big = StoreSamples.response(
            url: "https://user:pw@api.example.com/up?access_token=t0k3n-secret",
            body: [UInt8](repeating: 7, count: 6_000))
        #expect {
            try store.record([StoreSamples.response(), big], session: nil)
        } throws: { error in
            guard case .recordTooLarge(let request, let bytes, let limit) = error as? StoreError else { return false }
            return request == "POST https://api.example.com/up" && bytes > 6_000 && limit == 5_000
        }
        #expect(try store.responses(ResponseQuery()).map(\.id) == [kept], "nothing of the batch was recorded")
    }

    @Test func removedAndDroppedResponsesKeepTheTotalsRight() throws {
        store.retention = RetentionPolicy(maxCount: 4, maxBytes: nil)
        try recordMixedLog()
        try store.removeSession("prod")

        #expect(try store.responseCount(session: nil) == 2)
        #expect(try store.column("SELECT count(*) FROM responses") == ["2"])
    }

    @Test func idsAreNeverReusedAfterTheNewestResponseIsRemoved() throws {
        let first = try store.record(StoreSamples.response(), session: "prod")
        try store.removeSession("prod")
        let second = try store.record(StoreSamples.response(), session: nil)
        #expect(second > first)
    }

    /// `EXPLAIN QUERY PLAN` for `query`: one line per step.
    func plan(_ query: ResponseQuery) throws -> [String] {
        var owner: Int64?
        if let session = query.session { owner = try store.sessionID(named: session) }
        let (sql, values) = query.sql(sessionID: owner)
        return try store.database.query("EXPLAIN QUERY PLAN " + sql, values) { (statement) throws(StoreError) in
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(3)) }
            return lines
        }
    }

    /// The queries a hotkey runs must be an index seek whatever the log's size: no sort of all
    /// rows (a temp B-tree), no scan of the tag or session tables.
    static let seekCases: [(ResponseQuery, String)] = [
        (ResponseQuery(limit: 1), "SCAN r"),
        (ResponseQuery(session: "staging", limit: 1), "SEARCH r USING INDEX responses_by_session (session_id=?)"),
        (ResponseQuery(tag: "login", limit: 1), "SEARCH t USING COVERING INDEX response_tags_by_tag (tag=?)"),
        (
            ResponseQuery(session: "staging", tag: "login", limit: 1),
            "SEARCH t USING COVERING INDEX response_tags_by_session_tag (session_id=? AND tag=?)"
        ),
    ]

    @Test(arguments: seekCases)
    func theNewestResponseIsFoundWithoutSortingOrScanning(_ query: ResponseQuery, _ expectedStep: String) throws {
        try recordMixedLog()
        let lines = try plan(query)
        #expect(lines.contains(expectedStep), "\(lines)")
        #expect(!lines.contains { $0.contains("TEMP B-TREE") }, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("SCAN") && $0 != "SCAN r" }, "\(lines)")
        #expect(!(query.tag != nil && lines.contains("SCAN r")), "\(lines)")
    }
}
