import Foundation
import Testing

/// `capture -- curl …` against the echo server: curl's output and exit status are what curl alone
/// gives, and the store holds what went over the wire.
@Suite(.desktopTier) struct CaptureTests {
    static func responses(_ home: UserDebugHome) throws -> [[String: Any]] {
        let list = try home.ok(["response", "list", "--limit", "0"]).out
        return try list.split(separator: "\n").map { line in
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let id = try #require(summary["id"] as? Int)
            let full = try home.ok(["print-response", String(id), "--json", "--reveal", "--to", "stdout"]).stdout
            return try #require(try JSONSerialization.jsonObject(with: full) as? [String: Any])
        }.reversed()
    }

    @Test func curlsOutputAndStatusPassThroughAndTheExchangeIsRecorded() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        let body = "it's \"$x\" ë\n\tand\0NUL"
        let bodyFile = try home.file("body.bin", body)
        let curlArguments = ["-s", "-H", "X-Trace: one", "--data-binary", "@" + bodyFile, server.baseURL + "/bytes"]
        let direct = try runTool("/usr/bin/curl", curlArguments)
        let captured = try home.run(["capture", "--tag", "cap", "--", "curl"] + curlArguments)
        #expect(captured.status == direct.status)
        #expect(captured.stdout == direct.stdout, "curl's output must pass through unchanged")
        #expect(captured.stdout == Data([0, 1, 2, 255, 0, 10, 13, 39]))
        #expect(captured.err.contains("recorded response 1 (POST → 200)"), "\(captured.err)")

        let recorded = try #require(try Self.responses(home).first)
        let request = try #require(recorded["request"] as? [String: Any])
        #expect(request["method"] as? String == "POST")
        #expect(request["url"] as? String == server.baseURL + "/bytes")
        #expect(request["body"] as? String == body, "NUL is valid UTF-8: the body is kept as text, NUL included")
        let headers = try #require(request["headers"] as? [[String: String]])
        #expect(headers.contains { $0["name"] == "X-Trace" && $0["value"] == "one" })
        let response = try #require(recorded["response"] as? [String: Any])
        #expect(response["status"] as? Int == 200)
        #expect(
            (response["body"] as? [String: String])?["base64"]
                == Data([0, 1, 2, 255, 0, 10, 13, 39]).base64EncodedString())
        #expect(
            (response["headers"] as? [[String: String]])?.contains {
                $0["name"] == "Content-Type" && $0["value"] == "application/octet-stream"
            } == true)
        #expect(recorded["tags"] as? [String] == ["cap"])
        #expect(recorded["durationMs"] is NSNumber && recorded["startedAt"] is String)
    }

    @Test func curlsFailureStatusIsKeptAndTheResponseStillRecorded() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        let result = try home.run(["capture", "--", "curl", "-sf", server.baseURL + "/status/503"])
        #expect(result.status == 22, "\(result)")
        #expect(
            try Self.responses(home).first?["response"].flatMap { ($0 as? [String: Any])?["status"] as? Int } == 503)

        let refused = try home.run(["capture", "--", "curl", "-s", "http://127.0.0.1:9/"])
        #expect(refused.status == 7, "\(refused)")
        #expect(refused.err.contains("got no response"))
        #expect(try Self.responses(home).count == 1)
    }

    @Test func aRedirectFollowedWithLIsOneRecordPerHopAndChunkedBodiesAreDechunked() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        let result = try home.run(["capture", "--", "curl", "-sL", server.baseURL + "/redirect?to=/chunked"])
        #expect(result.status == 0 && result.out == "hello chunked world", "\(result)")
        let recorded = try Self.responses(home)
        #expect(recorded.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int } == [302, 200])
        #expect((recorded.last?["response"] as? [String: Any])?["body"] as? String == "hello chunked world")
    }

    @Test func verboseRunsCurlUntouchedAndRecordsNothing() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        let result = try home.run(["capture", "--", "curl", "-sv", server.baseURL + "/status/200"])
        #expect(result.status == 0)
        #expect(result.err.contains("> GET /status/200"), "curl's own -v output is shown")
        #expect(result.err.contains("not recording"))
        #expect(try Self.responses(home).isEmpty)
    }

    @Test func aCurlEndedByASignalGivesTheStatusAShellWould() throws {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: "http://127.0.0.1:9")
        let curl = try home.file("bin/curl", "#!/bin/sh\nkill -KILL $$\n")
        #expect(chmod(curl, 0o755) == 0)
        let result = try home.run(["capture", "--", curl, "-s", "http://127.0.0.1:9/"])
        #expect(result.status == 128 + SIGKILL, "\(result)")
        #expect(result.err.contains("got no response"), "\(result)")
    }

    @Test(arguments: [
        (["capture", "--", "wget", "http://x/"], 64, "capture -- curl"),
        (["capture"], 64, "capture -- curl"),
    ])
    func capturingSomethingElseIsAUsageError(_ arguments: [String], status: Int32, message: String) throws {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: "http://127.0.0.1:9")
        let result = try home.run(arguments)
        #expect(result.status == status && result.err.contains(message), "\(result)")
    }

    @Test func withoutASessionCurlDoesNotRun() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let result = try home.run(["capture", "--", "curl", "-s", server.baseURL + "/status/200"])
        #expect(result.status == 66, "\(result)")
        #expect(try server.requests().isEmpty)
    }
}
