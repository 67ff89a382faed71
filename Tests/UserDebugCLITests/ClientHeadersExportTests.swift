import Foundation
import Testing

/// The headers curl adds to every request by itself (`User-Agent: curl/x.y.z`, `Accept: */*`)
/// are not the app's: an export of requests leaves them out unless `--keep-client-headers`.
/// Checked with real curl requests captured against the echo server, and the collection run by
/// the real postman-runner against it.
@Suite struct ClientHeadersExportTests {
    /// A home whose session points at `server`, with two captured curl requests: one with curl's
    /// own headers only, one where the app set its own User-Agent and Accept.
    static func capturedHome(_ server: EchoServer) throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: server.baseURL)
        try home.ok(["capture", "--", "curl", "-s", server.baseURL + "/status/200"])
        try home.ok([
            "capture", "--", "curl", "-s", "-H", "User-Agent: ShopApp/2.1 (Linux)", "-H", "Accept: application/json",
            server.baseURL + "/status/201",
        ])
        return home
    }

    static let curlAgent = #"curl/[0-9.]+"#

    @Test func thePostmanCollectionLeavesCurlsHeadersOutAndTheRunnerSendsItsOwn() throws {
        try Consumers.require()
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        let home = try Self.capturedHome(server)
        // What curl really sent: its own User-Agent and Accept.
        let captured = try server.requests()
        #expect(captured.first?.header("User-Agent")?.range(of: Self.curlAgent, options: .regularExpression) != nil)
        #expect(captured.first?.header("Accept") == "*/*")

        let collection = try home.ok(["export", "postman-collection", "--to", "stdout"]).out
        #expect(collection.range(of: Self.curlAgent, options: .regularExpression) == nil, "\(collection)")
        #expect(!collection.contains("*/*"), "\(collection)")
        #expect(collection.contains("ShopApp/2.1 (Linux)") && collection.contains("application/json"))

        let sent = try runCollection(collection, home: home, server: server, after: captured.count)
        #expect(sent.count == 2, "\(sent.map(\.target))")
        for request in sent {
            let agent = request.header("User-Agent") ?? ""
            #expect(agent.range(of: Self.curlAgent, options: .regularExpression) == nil, "\(agent)")
        }
        #expect(sent.last?.header("User-Agent") == "ShopApp/2.1 (Linux)")
        #expect(sent.last?.header("Accept") == "application/json")
    }

    @Test func keepClientHeadersKeepsThem() throws {
        try Consumers.require()
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        let home = try Self.capturedHome(server)
        let captured = try server.requests()
        let curlSent = try #require(captured.first?.header("User-Agent"))
        let collection = try home.ok(["export", "postman-collection", "--keep-client-headers", "--to", "stdout"]).out
        #expect(collection.contains(curlSent) && collection.contains("*/*"), "\(collection)")
        let sent = try runCollection(collection, home: home, server: server, after: captured.count)
        #expect(sent.first?.header("User-Agent") == curlSent)
        #expect(sent.first?.header("Accept") == "*/*")
    }

    @Test func theCurlExportLeavesThemOutAndItsCommandStillSendsCurlsOwn() throws {
        let server = try EchoServer(directory: FileManager.default.temporaryDirectory)
        defer { server.stop() }
        let home = try Self.capturedHome(server)
        let first = try home.ok(["export", "curl", "1", "--to", "stdout"]).out
        #expect(!first.contains("User-Agent") && !first.contains("*/*"), "\(first)")
        let kept = try home.ok(["export", "curl", "1", "--keep-client-headers", "--to", "stdout"]).out
        #expect(kept.contains("User-Agent: curl/") && kept.contains("Accept: */*"), "\(kept)")
        let own = try home.ok(["export", "curl", "2", "--to", "stdout"]).out
        #expect(own.contains("User-Agent: ShopApp/2.1 (Linux)") && own.contains("Accept: application/json"), "\(own)")
        // The exported command, run, is the request again (curl adds its own headers back).
        let before = try server.requests().count
        let run = try runTool("/bin/sh", ["-c", first])
        #expect(run.status == 0, "\(run)")
        let again = try #require(try server.requests().dropFirst(before).first)
        #expect(again.target == "/status/200")
        #expect(again.header("User-Agent")?.hasPrefix("curl/") == true)
    }

    @Test func theHelpOfTheExportsNamesTheFlag() throws {
        let home = try UserDebugHome()
        for command in [["export", "postman-collection"], ["export", "curl"]] {
            #expect(try home.ok(command + ["--help"]).out.contains("--keep-client-headers"))
        }
    }

    /// Runs `collection` with the session's environment through postman-runner; the requests
    /// the server received from it.
    func runCollection(_ collection: String, home: UserDebugHome, server: EchoServer, after: Int) throws
        -> [EchoedRequest]
    {
        let environment = try home.ok(["export", "postman-env", "--reveal", "--to", "stdout"])
        let directory = home.root.appendingPathComponent("postman-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let collectionPath = directory.appendingPathComponent("api.postman_collection.json")
        let environmentPath = directory.appendingPathComponent("local.postman_environment.json")
        try Data(collection.utf8).write(to: collectionPath)
        try environment.stdout.write(to: environmentPath)
        let check = try runTool(
            Consumers.python, [Consumers.support("postman_check.py"), collectionPath.path, environmentPath.path])
        #expect(check.status == 0, "\(check)")
        let run = try runTool(
            Consumers.postmanRunner,
            ["--collection", collectionPath.path, "--environment", environmentPath.path, "--run-all"],
            directory: directory)
        #expect(run.status == 0, "\(run)")
        return Array(try server.requests().dropFirst(after))
    }
}
