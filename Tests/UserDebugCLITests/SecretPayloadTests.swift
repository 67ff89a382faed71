import Foundation
import TestSupport
import Testing

/// Secrets that come from recorded or fetched data, not from `copy-token`: a backend field that
/// holds the session's token, one that holds a JWT, a config template over a user field that
/// holds the token, and revealed responses and users. Without `--reveal` each is redacted; with
/// it, on a selection, it is offered with the password-manager hint and cleared after
/// `clipboard.secretClearSeconds`. The canary is looked for in every output and every file of
/// the home but the store.
@Suite(.serialized) final class SecretPayloadTests {
    /// A refresh token's shape: three base64url parts, the first two JSON objects.
    static let jwt =
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfMSIsInR5cCI6InJlZnJlc2gifQ.c2lnLWNhbmFyeS1yZWZyZXNo"

    /// Answers /me, only with the session's token, with the token itself under `access` and a
    /// JWT under `refresh`.
    static let server = #"""
        import http.server, json, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.headers.get("Authorization") == "Bearer " + sys.argv[1]:
                    body = json.dumps({"id": "usr_1", "plan": "pro", "access": sys.argv[1], "refresh": sys.argv[2]}).encode()
                    self.send_response(200)
                else:
                    body = b'{"error": "no"}'
                    self.send_response(401)
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

    init() throws {
        home = try UserDebugHome()
        server = try Spawned.start(
            ["/usr/bin/env", "python3", "-c", Self.server, Samples.canary, Self.jwt],
            environment: ProcessInfo.processInfo.environment, pipeOutput: true)
        guard let line = server.receiveLine(), let port = Int(line) else {
            server.kill()
            server.wait()
            throw FixtureError(message: "the test server did not start")
        }
        let session = """
            {"name": "staging", "user": {"identifier": "usr_1", "name": "Zoë", "echo": "\(Samples.canary)",
             "apiKey": "ak-secret-1"}, "token": "\(Samples.canary)", "baseURL": "http://127.0.0.1:\(port)"}
            """
        try home.ok(["session", "import", "-"], stdin: session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
        try home.file(
            "config/config.json",
            """
            {"backend": {"path": "/me", "timeoutSeconds": 10},
             "clipboard": {"secretClearSeconds": 2},
             "actions": [
               {"id": "echo", "title": "Echo", "template": "{{user.echo}}"},
               {"id": "echo-url", "title": "Echo URL", "template": "https://x.example/?q={{user.echo | url}}"}
             ]}
            """)
    }

    deinit {
        server.kill()
        server.wait()
    }

    func xclipOut(_ x: Xvfb, target: String = "UTF8_STRING") throws -> Peer.Output {
        try Peer.read(["xclip", "-o", "-selection", "clipboard", "-t", target], environment: x.environment, limit: 30)
    }

    /// Runs `arguments` to the clipboard and returns what the owner serves and its TARGETS.
    func copied(_ arguments: [String], _ x: Xvfb) throws -> (result: RunResult, text: String, targets: String) {
        let result = try home.run(arguments + ["--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
        #expect(result.status == 0, "\(arguments): \(result)")
        let text = String(decoding: try xclipOut(x).bytes, as: UTF8.self)
        let targets = String(decoding: try xclipOut(x, target: "TARGETS").bytes, as: UTF8.self)
        return (result, text, targets)
    }

    /// Every file under the home but the store (and its current-session copy, which holds the
    /// token by design) that holds `secret`.
    func filesHolding(_ secret: String) -> [String] {
        let enumerator = FileManager.default.enumerator(at: home.root, includingPropertiesForKeys: nil)
        var found: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            guard !url.lastPathComponent.hasPrefix("userdebug.sqlite3"),
                let bytes = readWholeFile(url.path), String(decoding: bytes, as: UTF8.self).contains(secret)
            else { continue }
            found.append(url.path)
        }
        return found
    }

    func expectNoLeak(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in [Samples.canary, Self.jwt] {
            #expect(
                !result.out.contains(secret) && !result.err.contains(secret), "\(result)",
                sourceLocation: sourceLocation)
        }
    }

    @Test func aBackendFieldHoldingTheTokenIsRedactedWithoutReveal() throws {
        try withXvfb { x in
            for id in ["backend.field.access", "backend.field.refresh"] {
                let (result, text, targets) = try copied(["run", id, "--trace"], x)
                expectNoLeak(result)
                #expect(text == "[redacted]", "\(id)")
                #expect(!targets.contains("x-kde-passwordManagerHint"), "\(id): \(targets)")
            }
            let stdout = try home.ok(["run", "backend.field.access", "--to", "stdout"])
            expectNoLeak(stdout)
            #expect(stdout.out == "[redacted]\n" && stdout.err.contains("--reveal"), "\(stdout)")
        }
        #expect(filesHolding(Samples.canary).isEmpty && filesHolding(Self.jwt).isEmpty)
    }

    @Test func aRevealedBackendSecretIsHintedAndCleared() throws {
        try withXvfb { x in
            for (id, secret) in [("backend.field.access", Samples.canary), ("backend.field.refresh", Self.jwt)] {
                let (result, text, targets) = try copied(["run", id, "--reveal"], x)
                #expect(text == secret, "\(id)")
                #expect(targets.contains("x-kde-passwordManagerHint"), "\(id): \(targets)")
                #expect(result.err.contains("copied a secret") && result.err.contains("cleared in 2 s"), "\(result)")
                #expect(eventually(timeout: 20) { (try? xclipOut(x))?.status != 0 }, "\(id) was not cleared")
            }
        }
    }

    @Test func theMenuShowsNeitherTheTokenNorTheJWT() throws {
        for arguments in [["menu"], ["menu", "--json"], ["menu", "--trace"]] {
            let result = try home.ok(arguments)
            expectNoLeak(result)
            #expect(result.out.contains("backend.field.refresh"), "\(result)")
        }
        let json = try home.ok(["menu", "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let backend = try #require((object["elements"] as? [[String: Any]])?.first { $0["id"] as? String == "backend" })
        for child in try #require(backend["children"] as? [[String: Any]]) {
            let id = child["id"] as? String ?? ""
            if id == "backend.field.access" || id == "backend.field.refresh" {
                #expect(child["secret"] as? Bool == true && child["subtitle"] is NSNull, "\(child)")
            }
        }
    }

    @Test func aConfigTemplateOverAUserFieldHoldingTheTokenIsASecret() throws {
        try withXvfb { x in
            for id in ["echo", "echo-url"] {
                let (hidden, text, targets) = try copied(["run", id], x)
                expectNoLeak(hidden)
                #expect(!text.contains(Samples.canary) && text.contains("redacted"), "\(text)")
                #expect(!targets.contains("x-kde-passwordManagerHint"))
                let (_, revealed, revealedTargets) = try copied(["run", id, "--reveal"], x)
                #expect(revealed.contains(Samples.canary), "\(id): \(revealed)")
                #expect(revealedTargets.contains("x-kde-passwordManagerHint"), "\(id): \(revealedTargets)")
            }
        }
        #expect(filesHolding(Samples.canary).isEmpty)
    }

    @Test func revealedResponsesAndUsersOnTheClipboardAreHinted() throws {
        try withXvfb { x in
            for arguments in [
                ["print-response", "--reveal"], ["print-response", "--reveal", "--headers"], ["dump-json", "--reveal"],
            ] {
                let (result, _, targets) = try copied(arguments, x)
                #expect(targets.contains("x-kde-passwordManagerHint"), "\(arguments): \(targets)")
                #expect(result.err.contains("copied a secret"), "\(arguments): \(result)")
                #expect(eventually(timeout: 20) { (try? xclipOut(x))?.status != 0 }, "\(arguments) was not cleared")
            }
            for arguments in [["print-response"], ["dump-json"]] {
                let (result, text, targets) = try copied(arguments, x)
                expectNoLeak(result)
                #expect(!text.contains(Samples.canary) && !text.contains("ak-secret-1"), "\(arguments): \(text)")
                #expect(!targets.contains("x-kde-passwordManagerHint"), "\(arguments): \(targets)")
            }
        }
    }

    /// A recorded exchange whose secrets are not the session's token: a `password` member in the
    /// request body, a `client_secret` in the response body.
    static let keysResponse = """
        {"request": {"method": "POST", "url": "https://api.example.com/v1/keys",
          "headers": {"Content-Type": "application/json"}, "body": "{\\"password\\":\\"pw-canary-5e1d\\"}"},
         "response": {"status": 200, "headers": {"Content-Type": "application/json"},
          "body": "{\\"client_secret\\":\\"cs-canary-5e1d\\"}"}, "tags": ["keys"]}
        """

    @Test func revealedExportsOfSecretsOtherThanTheTokenAreHinted() throws {
        try home.ok(["response", "record", "-"], stdin: Self.keysResponse)
        try withXvfb { x in
            for (arguments, secret) in [
                (["export", "har", "last"], "cs-canary-5e1d"),
                (["export", "postman-collection", "last"], "pw-canary-5e1d"),
            ] {
                let (hidden, text, targets) = try copied(arguments, x)
                expectNoLeak(hidden)
                #expect(
                    !text.contains(secret) && !targets.contains("x-kde-passwordManagerHint"), "\(arguments): \(text)")
                let (result, revealed, revealedTargets) = try copied(arguments + ["--reveal"], x)
                #expect(revealed.contains(secret) && !revealed.contains(Samples.canary), "\(arguments): \(revealed)")
                #expect(revealedTargets.contains("x-kde-passwordManagerHint"), "\(arguments): \(revealedTargets)")
                #expect(result.err.contains("copied a secret"), "\(arguments): \(result)")
                #expect(eventually(timeout: 20) { (try? xclipOut(x))?.status != 0 }, "\(arguments) was not cleared")
            }
            // A revealed export with nothing secret in it stays an ordinary copy.
            try home.ok(["response", "record", "-"], stdin: Samples.notFound)
            let (_, plain, plainTargets) = try copied(["export", "har", "last", "--reveal"], x)
            #expect(
                plain.contains("not found") && !plainTargets.contains("x-kde-passwordManagerHint"), "\(plainTargets)")
        }
    }
}
