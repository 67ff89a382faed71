import Foundation
import TestSupport
import Testing

/// The deferred "From the backend" section against a real local HTTP server (python3): it
/// resolves into actions, shows "failed" for an error status and "timed out" for a server that
/// never answers — and the menu still comes out, with every other entry, in each case.
@Suite(.serialized, .desktopTier) final class MenuBackendTests {
    /// Answers /me (only with the session's token), /fail with 500, and never answers /hang.
    static let server = #"""
        import http.server, json, sys, time
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path == "/hang":
                    time.sleep(3600)
                if self.path == "/me" and self.headers.get("Authorization") == "Bearer " + sys.argv[1]:
                    body = json.dumps({"id": "usr_1", "plan": "pro", "accessToken": "srv-secret-77", "Weird Key": 1}).encode()
                    self.send_response(200)
                elif self.path == "/keyed":
                    body = json.dumps({sys.argv[1]: "active", "plan": "pro"}).encode()
                    self.send_response(200)
                else:
                    body = b'{"error": "no"}'
                    self.send_response(500 if self.path == "/fail" else 401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    let home: UserDebugHome
    let server: Spawned

    /// Started with posix_spawn and stopped with SIGKILL by pid: Foundation's Process passes the
    /// runner's blocked signals on, so a terminate() here left servers running after the tests.
    init() throws {
        home = try UserDebugHome()
        server = try Spawned.start(
            ["/usr/bin/env", "python3", "-c", Self.server, Samples.canary],
            environment: ProcessInfo.processInfo.environment, pipeOutput: true)
        guard let line = server.receiveLine(), let port = Int(line) else {
            server.kill()
            server.wait()
            throw FixtureError(message: "the test server did not start")
        }
        let session = Samples.session.replacingOccurrences(
            of: "https://api.example.com", with: "http://127.0.0.1:\(port)")
        try home.ok(["session", "import", "-"], stdin: session)
    }

    deinit {
        server.kill()
        server.wait()
    }

    func menu(path: String, timeout: Double = 10) throws -> (RunResult, [String: Any]) {
        try home.file("config/config.json", #"{"backend": {"path": "\#(path)", "timeoutSeconds": \#(timeout)}}"#)
        let result = try home.ok(["menu", "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result)")
        let section = try #require(
            (object["elements"] as? [[String: Any]])?.first { $0["id"] as? String == "backend" }, "\(result)")
        #expect(
            (object["elements"] as? [[String: Any]])?.first?["id"] as? String == "copy-id",
            "the rest of the menu is there")
        return (result, section)
    }

    @Test func theSectionResolvesIntoActionsOnTheAnswer() throws {
        let (result, section) = try menu(path: "/me")
        #expect(section["type"] as? String == "deferred" && section["state"] as? String == "resolved", "\(section)")
        let children = try #require(section["children"] as? [[String: Any]])
        #expect(
            children.compactMap { $0["id"] as? String } == [
                "backend.body", "backend.field.id", "backend.field.plan", "backend.field.accesstoken",
            ])
        let token = try #require(children.first { $0["id"] as? String == "backend.field.accesstoken" })
        #expect(token["secret"] as? Bool == true && token["subtitle"] is NSNull)
        #expect(!result.out.contains("srv-secret-77") && !result.out.contains(Samples.canary))
        #expect(try home.ok(["run", "backend.field.plan"]).out == "pro\n")
        let body = try home.ok(["run", "backend.body"]).out
        #expect(body.contains("\"plan\"") && !body.contains("srv-secret-77"))
    }

    /// An answer whose member is named by the session's token (a map of sessions): no action
    /// id carries the token, so neither the menu, rofi's rows nor a trace show it.
    @Test func aMemberNamedByTheTokenGetsNoAction() throws {
        let (result, section) = try menu(path: "/keyed")
        let children = try #require(section["children"] as? [[String: Any]], "\(section)")
        #expect(children.compactMap { $0["id"] as? String } == ["backend.body", "backend.field.plan"])
        #expect(!result.out.contains(Samples.canary))
        #expect(!(try home.ok(["menu"]).out.contains(Samples.canary)))
        #expect(!(try home.ok(["rofi"]).out.contains(Samples.canary)))
    }

    @Test func anErrorStatusShowsAsAFailedEntry() throws {
        let (_, section) = try menu(path: "/fail")
        #expect(section["state"] as? String == "failed")
        #expect(section["message"] as? String == "HTTP 500")
        #expect((section["title"] as? String)?.hasPrefix("From the backend: failed") == true)
    }

    @Test func aServerThatNeverAnswersShowsAsTimedOut() throws {
        let (_, section) = try menu(path: "/hang", timeout: 0.5)
        #expect(section["state"] as? String == "timedOut", "\(section)")
        #expect((section["children"] as? [Any])?.isEmpty == true)
        let text = try home.ok(["menu"]).out
        #expect(text.contains("From the backend: timed out after 0.5 s"))
    }

    /// `run` of an action the backend section would have made says why it is not there: the
    /// section timed out (75, try again) or failed (69, with the backend's error).
    @Test func runOfABackendActionThatNeverCameSaysWhy() throws {
        try home.file("config/config.json", #"{"backend": {"path": "/hang", "timeoutSeconds": 0.5}}"#)
        let timedOut = try home.run(["run", "backend.field.plan"])
        #expect(timedOut.status == 75, "\(timedOut)")
        #expect(timedOut.err.contains("which failed: timed out after 0.5 s") && !timedOut.err.contains("no action"))
        try home.file("config/config.json", #"{"backend": {"path": "/fail", "timeoutSeconds": 5}}"#)
        let failed = try home.run(["run", "backend.body"])
        #expect(failed.status == 69, "\(failed)")
        #expect(
            failed.err.contains("'backend.body' comes from 'From the backend', which failed: HTTP 500"), "\(failed)")
    }
}
