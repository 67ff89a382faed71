import Foundation
import Testing

/// HAR and Postman exports checked by their real consumers from PyPI: haralyzer reads the HAR,
/// postman-runner runs the collection with the exported environment against the echo server.
@Suite struct ExportHARAndPostmanTests {
    /// A session on the echo server and a few exchanges of every kind: JSON, binary, redirect,
    /// the user's id in the path, the token in a header, a body and a query.
    static func recordedHome(_ server: EchoServer) throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: server.baseURL)
        let base = server.baseURL
        try home.ok(
            ["response", "record", "-", "--tag", "sample"],
            stdin: """
                [{"request": {"method": "POST", "url": "\(base)/v1/users/usr_42/orders?expand=items&access_token=\(Samples.canary)",
                   "headers": {"Content-Type": "application/json", "Authorization": "Bearer \(Samples.canary)", "X-User": "usr_42",
                               "Cookie": "sid=\(Samples.canary); theme=dark"},
                   "body": "{\\"owner\\":\\"usr_42\\",\\"note\\":\\"it's \\\\\\"quoted\\\\\\" ë\\",\\"refresh_token\\":\\"\(Samples.canary)\\"}"},
                  "response": {"status": 201, "headers": {"Content-Type": "application/json", "Set-Cookie": "sid=\(Samples.canary); Path=/"},
                   "body": "{\\"id\\":\\"ord_1\\",\\"token\\":\\"\(Samples.canary)\\"}"},
                  "startedAt": "2026-11-30T10:00:00.123Z", "durationMs": 87.5},
                 {"request": {"method": "GET", "url": "\(base)/v1/users/usr_42/avatar"},
                  "response": {"status": 200, "headers": {"Content-Type": "image/png"}, "body": {"base64": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"}}},
                 {"request": {"method": "GET", "url": "\(base)/old"},
                  "response": {"status": 302, "headers": {"Location": "\(base)/new"}}}]
                """)
        return home
    }

    @Test func exportedHARPassesTheSpecChecksAndLoadsInHaralyzer() throws {
        try Consumers.require()
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        let home = try Self.recordedHome(server)
        for reveal in [false, true] {
            let har = try home.ok(["export", "har", "--to", "stdout"] + (reveal ? ["--reveal"] : []))
            let path = try home.file("export-\(reveal).har", har.stdout)
            let check = try runTool(Consumers.python, [Consumers.support("har_check.py"), path])
            #expect(check.status == 0 && check.out == "ok 3\n", "\(check)")
            #expect(har.out.contains(Samples.canary) == reveal)
        }
    }

    @Test func harExportImportExportIsStable() throws {
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        let home = try Self.recordedHome(server)
        for reveal in [["--reveal"], []] {
            let first = try home.ok(["export", "har", "--to", "stdout"] + reveal)
            let path = try home.file("first.har", first.stdout)
            try home.ok(
                ["session", "import", "-", "--name", "copy"],
                stdin: """
                    {"user": {"identifier": "usr_42", "name": "Zoë"}, "token": "\(Samples.canary)", "baseURL": "\(server.baseURL)"}
                    """)
            let imported = try home.ok(["response", "import", path, "--session", "copy"])
            #expect(imported.out.split(separator: "\n").count == 3)
            let second = try home.ok(["export", "har", "--to", "stdout", "--session", "copy"] + reveal)
            #expect(second.out == first.out)
            try home.ok(["session", "remove", "copy"])
            try home.ok(["session", "use", "local"])
        }
    }

    @Test func postmanRunnerRunsTheCollectionWithTheEnvironmentAgainstTheServer() throws {
        try Consumers.require()
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        let home = try Self.recordedHome(server)
        let collection = try home.ok(["export", "postman-collection", "--to", "stdout"])
        #expect(!collection.out.contains(Samples.canary))
        #expect(!collection.out.contains(server.baseURL), "the base URL is {{baseUrl}}")
        #expect(collection.out.contains("{{baseUrl}}/v1/users/{{userId}}/orders"))
        let environment = try home.ok(["export", "postman-env", "--reveal", "--to", "stdout"])
        let directory = home.root.appendingPathComponent("postman")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let collectionPath = try home.file("postman/api.postman_collection.json", collection.stdout)
        let environmentPath = try home.file("postman/local.postman_environment.json", environment.stdout)
        let check = try runTool(
            Consumers.python, [Consumers.support("postman_check.py"), collectionPath, environmentPath])
        #expect(check.status == 0 && check.out == "ok 3\n", "\(check)")

        let run = try runTool(
            Consumers.postmanRunner, ["--collection", collectionPath, "--environment", environmentPath, "--run-all"],
            directory: directory)
        #expect(run.status == 0, "\(run)")
        let received = try server.requests()
        #expect(received.map(\.method) == ["POST", "GET", "GET"], "\(received.map(\.target))")
        let orders = try #require(received.first)
        #expect(orders.target.hasPrefix("/v1/users/usr_42/orders?expand=items"))
        #expect(orders.header("Authorization") == "Bearer \(Samples.canary)")
        #expect(orders.header("X-User") == "usr_42")
        #expect(String(decoding: orders.body, as: UTF8.self).contains("usr_42"))
        #expect(received.allSatisfy { $0.header("Authorization") == "Bearer \(Samples.canary)" })
    }

    @Test func withoutRevealTheEnvironmentsTokenIsAPlaceholderThatIsOff() throws {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: "http://127.0.0.1:9")
        let environment = try home.run(["export", "postman-env", "--to", "stdout"])
        #expect(environment.status == 0)
        #expect(!environment.out.contains(Samples.canary))
        #expect(environment.err.contains("--reveal"))
        let object = try #require(try JSONSerialization.jsonObject(with: environment.stdout) as? [String: Any])
        let values = try #require(object["values"] as? [[String: Any]])
        let token = try #require(values.first { $0["key"] as? String == "authToken" })
        #expect(token["type"] as? String == "secret")
        #expect(token["disabled"] as? Bool == true)
        #expect(token["enabled"] as? Bool == false)
        let user = try #require(values.first { $0["key"] as? String == "userId" })
        #expect(user["value"] as? String == "usr_42")
        #expect(user["disabled"] == nil)
        let revealed = try home.ok(["export", "postman-env", "--to", "stdout", "--reveal"])
        #expect(revealed.out.contains(Samples.canary))
        #expect(!revealed.out.contains("\"disabled\""))
    }

    @Test(arguments: [
        ["export", "curl"], ["export", "curl", "1"], ["export", "har"], ["export", "har", "--all-sessions"],
        ["export", "postman-env"], ["export", "postman-collection"], ["print-response", "--full"],
    ])
    func noExportShowsTheCanaryWithoutReveal(_ arguments: [String]) throws {
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        let home = try Self.recordedHome(server)
        let result = try home.run(arguments + ["--to", "stdout"])
        #expect(result.status == 0, "\(result)")
        #expect(!result.out.isEmpty)
        #expect(!result.out.contains(Samples.canary) && !result.err.contains(Samples.canary), "\(result)")
        for file in FileManager.default.enumerator(atPath: home.root.appendingPathComponent("state").path)?.allObjects
            as? [String] ?? []
        {
            let contents =
                FileManager.default.contents(atPath: home.root.appendingPathComponent("state/\(file)").path) ?? Data()
            #expect(!String(decoding: contents, as: UTF8.self).contains(Samples.canary), "state/\(file)")
        }
    }
}
