import Foundation
import Testing

/// Issue 12 item 5: the exported collection sends the token only where it belongs, the session's
/// base URL origin, and not to the login that obtained it. Checked on the collection's JSON and
/// by what two echo servers (the API and a third-party tracker) receive from postman-runner.
@Suite struct PostmanTokenScopeTests {
    /// A HAR as a browser saves it: the login (its answer holds the token), an API call with the
    /// token, an API call on the same host but another port, and a tracker that saw the token.
    static func har(api: String, tracker: String) throws -> String {
        func entry(_ method: String, _ url: String, _ headers: [[String: String]], _ body: String?, _ answer: String)
            -> [String: Any]
        {
            var request: [String: Any] = [
                "method": method, "url": url, "httpVersion": "HTTP/1.1", "headers": headers, "cookies": [],
                "queryString": [], "headersSize": -1, "bodySize": -1,
            ]
            if let body { request["postData"] = ["mimeType": "application/json", "text": body] }
            return [
                "startedDateTime": "2026-11-30T10:00:00.000Z", "time": 1, "request": request,
                "response": [
                    "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                    "content": ["size": answer.utf8.count, "mimeType": "application/json", "text": answer],
                    "redirectURL": "", "headersSize": -1, "bodySize": -1,
                ],
                "cache": [:], "timings": ["send": 0, "wait": 1, "receive": 0],
            ]
        }
        let bearer = [["name": "Authorization", "value": "Bearer \(Samples.canary)"]]
        let entries = [
            entry(
                "POST", "\(api)/v1/login", [], #"{"user":"zoe","password":"pw"}"#,
                #"{"access_token":"\#(Samples.canary)","token_type":"Bearer"}"#),
            entry("GET", "\(api)/v1/me", bearer, nil, #"{"id":"usr_42"}"#),
            entry(
                "POST", "\(tracker)/collect?uid=usr_42&t=\(Samples.canary)", bearer, #"{"event":"view"}"#, "{}"),
        ]
        let document: [String: Any] = [
            "log": ["version": "1.2", "creator": ["name": "test", "version": "1"], "entries": entries]
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
    }

    static func items(_ collection: Data) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: collection) as? [String: Any])
        return try #require(object["item"] as? [[String: Any]])
    }

    static func headers(_ item: [String: Any]) -> [(String, String)] {
        let request = item["request"] as? [String: Any] ?? [:]
        return (request["header"] as? [[String: Any]] ?? []).map {
            ($0["key"] as? String ?? "", $0["value"] as? String ?? "")
        }
    }

    @Test func theTokenGoesOnlyToTheBaseOriginAndNotToTheLogin() throws {
        try Consumers.require()
        let api = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { api.stop() }
        let tracker = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { tracker.stop() }
        let home = try UserDebugHome()
        try home.recordSession(baseURL: api.baseURL)
        let harPath = try home.file("browser.har", try Self.har(api: api.baseURL, tracker: tracker.baseURL))
        try home.ok(["response", "import", harPath])
        try home.ok(
            ["response", "record", "-", "--tag", "login"],
            stdin: #"{"request": {"method": "POST", "url": "\#(api.baseURL)/v1/refresh"}, "response": {"status": 204}}"#
        )

        let collection = try home.ok(["export", "postman-collection", "--to", "stdout"])
        #expect(!collection.out.contains(Samples.canary))
        let items = try Self.items(collection.stdout)
        #expect(
            items.map { $0["name"] as? String ?? "" } == [
                "POST /v1/login", "GET /v1/me", "POST /collect", "POST /v1/refresh",
            ])
        let authorizations = items.map { item in Self.headers(item).filter { $0.0.lowercased() == "authorization" } }
        #expect(authorizations[0].isEmpty, "the login obtained the token: \(authorizations[0])")
        #expect(authorizations[1].map(\.1) == ["Bearer {{authToken}}"])
        #expect(authorizations[2].map(\.1) == ["Bearer [redacted]"], "the tracker keeps its recorded, redacted header")
        #expect(authorizations[3].isEmpty, "a response tagged login is the login: \(authorizations[3])")
        let trackerItem = String(decoding: try JSONSerialization.data(withJSONObject: items[2]), as: UTF8.self)
        #expect(!trackerItem.contains("authToken"), "\(trackerItem)")

        let revealed = try home.ok(["export", "postman-collection", "--to", "stdout", "--reveal"])
        let revealedItems = try Self.items(revealed.stdout)
        let revealedTracker = String(
            decoding: try JSONSerialization.data(withJSONObject: revealedItems[2]), as: UTF8.self)
        #expect(!revealedTracker.contains("authToken"), "\(revealedTracker)")
        #expect(Self.headers(revealedItems[0]).allSatisfy { $0.0.lowercased() != "authorization" })

        let directory = home.root.appendingPathComponent("postman")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let collectionPath = try home.file("postman/api.postman_collection.json", collection.stdout)
        let environment = try home.ok(["export", "postman-env", "--reveal", "--to", "stdout"])
        let environmentPath = try home.file("postman/local.postman_environment.json", environment.stdout)
        let run = try runTool(
            Consumers.postmanRunner, ["--collection", collectionPath, "--environment", environmentPath, "--run-all"],
            directory: directory)
        #expect(run.status == 0, "\(run)")

        let atAPI = try api.requests()
        #expect(atAPI.map(\.target) == ["/v1/login", "/v1/me", "/v1/refresh"], "\(atAPI.map(\.target))")
        #expect(atAPI.map { $0.header("Authorization") } == [nil, "Bearer \(Samples.canary)", nil])
        let atTracker = try tracker.requests()
        #expect(atTracker.count == 1)
        for request in atTracker {
            let everything =
                request.target + String(decoding: request.body, as: UTF8.self)
                + request.headers.map { String(decoding: $0.name + $0.value, as: UTF8.self) }.joined()
            #expect(!everything.contains(Samples.canary), "the tracker received the token: \(everything)")
        }
    }
}
