import Foundation
import TestSupport
import Testing

/// Issue 24, item 4: every state of `FirstHourState`'s table, reached as a new user reaches it;
/// the hint is read from stderr as printed, its command is run as printed (its real arguments:
/// the sample's path, the session's name and base URL, the config's path), and the command that
/// failed then succeeds, or reaches the next state.
@Suite struct FirstHourHintTests {
    @Test func noStoreNamesTheSampleSessionAndImportingItFixesIt() throws {
        let home = try UserDebugHome()
        let before = try home.run(["copy-id", "--to", "stdout"])
        #expect(before.status == 66, "\(before)")
        #expect(before.err.contains("no store yet at \(home.databasePath)"), "\(before)")
        #expect(!before.err.contains("…") && !before.err.contains("FILE"), "\(before.err)")
        let hint = try HintCommand(printedIn: before.err, startingWith: "userdebug session import /")
        #expect(hint.words.last?.hasSuffix("/config/sample-session.json") == true, "\(hint.words)")
        try hint.run(home).expectSuccess()
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_8f14e45f\n")
    }

    @Test func noCurrentSessionNamesTheSessionToUseAndUsingItFixesIt() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["session", "set", "--session", "second one", "--id", "usr_2", "--keep-current"])
        try home.ok(["session", "remove", "staging"])
        let before = try home.run(["copy-id", "--to", "stdout"])
        #expect(before.status == 66, "\(before)")
        #expect(before.err.contains("no current session; choose one: userdebug session use 'second one'"), "\(before)")
        try HintCommand(printedIn: before.err, startingWith: "userdebug session use ").run(home).expectSuccess()
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_2\n")

        // A store whose last session was removed: the sample again, as with no store.
        try home.ok(["session", "remove", "second one"])
        let empty = try home.run(["copy-id", "--to", "stdout"])
        #expect(empty.status == 66 && empty.err.contains("no current session: none is recorded yet"), "\(empty)")
        try HintCommand(printedIn: empty.err, startingWith: "userdebug session import /").run(home).expectSuccess()
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_8f14e45f\n")
    }

    /// With a session but no recorded response the hint records one, never "session import";
    /// with responses but none matching, it lists the session's own.
    @Test func aSessionWithoutResponsesAndAFilterThatMatchesNone() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "set", "--session", "bare", "--id", "usr_b"])
        for arguments in [
            ["print-response", "--to", "stdout"], ["print-response", "--tag", "login", "--to", "stdout"],
        ] {
            let result = try home.run(arguments)
            #expect(result.status == 66, "\(result)")
            #expect(
                result.err.contains(
                    "no recorded response matches (session 'bare'); record one: "
                        + "userdebug response record --session bare FILE (a response JSON)"), "\(result)")
            #expect(!result.err.contains("session import") && !result.err.contains("Record a session first"))
        }
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
        let filtered = try home.run(["print-response", "--status", "5xx", "--to", "stdout"])
        #expect(filtered.status == 66, "\(filtered)")
        #expect(
            filtered.err.contains(
                "no recorded response matches (session 'bare', status 5xx); see what it has: "
                    + "userdebug response list --session bare"), "\(filtered)")
        let listed = try HintCommand(printedIn: filtered.err, startingWith: "userdebug response list ").run(home)
        try listed.expectSuccess()
        // The next state: the list shows what there is to ask for (its status and URL).
        #expect(listed.out.contains("200") && listed.out.contains("/login"), "\(listed)")
        #expect(try home.ok(["print-response", "--status", "2xx", "--to", "stdout"]).out.contains("usr_1"))
    }

    @Test func aBrokenConfigNamesItsPlaceAndMovingItAsideFixesIt() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.file("config/config.json", "{\"hotkeys\": {},\n}\n")
        let before = try home.run(["menu", "--json"])
        #expect(before.status == 78, "\(before)")
        #expect(before.err.contains("\(home.configPath):2:1:"), "\(before)")
        #expect(before.err.contains("fix it, or move it aside (the defaults apply): mv \(home.configPath) "))
        try HintCommand(printedIn: before.err, startingWith: "mv ").run(home).expectSuccess()
        #expect(try home.ok(["menu", "--json"]).out.contains("usr_1"))
        #expect(FileManager.default.fileExists(atPath: home.configPath + ".broken"), "the user's file is kept")
    }
}

/// The states of the table that need a peer: a local HTTP server (python3) that is bound but not
/// listening until told to (so a connection is refused, as to a backend that is down), and an
/// installation prefix without the popup.
@Suite(.serialized, .desktopTier) struct FirstHourHintPeerTests {
    /// Binds a port, prints it, listens once a line arrives on stdin; answers every GET with JSON.
    static let server = #"""
        import http.server, json, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = json.dumps({"id": "usr_1", "path": self.path}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        server.daemon_threads = True
        server.server_bind()
        print(server.server_address[1], flush=True)
        sys.stdin.readline()
        server.server_activate()
        print("listening", flush=True)
        server.serve_forever()
        """#

    /// The server, bound; `listen()` makes it answer.
    final class Backend {
        let process: Spawned
        let port: Int

        init() throws {
            process = try Spawned.start(
                ["/usr/bin/env", "python3", "-c", FirstHourHintPeerTests.server],
                environment: ProcessInfo.processInfo.environment, pipeInput: true, pipeOutput: true)
            guard let line = process.receiveLine(), let port = Int(line) else {
                process.kill()
                process.wait()
                throw FixtureError(message: "the test server did not start")
            }
            self.port = port
        }

        func listen() throws {
            process.send(Array("go\n".utf8))
            guard process.receiveLine() == "listening" else { throw FixtureError(message: "the server did not listen") }
        }

        deinit {
            process.kill()
            process.wait()
        }
    }

    @Test func aSessionWithABaseURLIsToldToCaptureFromItAndCapturingFixesIt() throws {
        let backend = try Backend()
        try backend.listen()
        let home = try UserDebugHome()
        let base = "http://127.0.0.1:\(backend.port)"
        try home.ok(["session", "set", "--session", "local", "--id", "usr_l", "--base-url", base])
        let before = try home.run(["print-response", "--to", "stdout"])
        #expect(before.status == 66, "\(before)")
        #expect(
            before.err.contains("record one: userdebug capture --session local -- curl -sS \(base)"), "\(before)")
        try HintCommand(printedIn: before.err, startingWith: "userdebug capture ").run(home).expectSuccess()
        #expect(try home.ok(["print-response", "--to", "stdout"]).out.contains("usr_1"))
    }

    @Test func aBackendThatIsDownIsNamedByItsURLAndAnswersOnceStarted() throws {
        let backend = try Backend()
        let home = try UserDebugHome()
        let url = "http://127.0.0.1:\(backend.port)/me"
        try home.ok(
            ["session", "set", "--session", "down", "--id", "usr_d", "--base-url", "http://127.0.0.1:\(backend.port)"])
        try home.file("config/config.json", #"{"backend": {"path": "/me", "timeoutSeconds": 5}}"#)
        let before = try home.run(["run", "backend.body", "--to", "stdout"])
        #expect(before.status == 69, "\(before)")
        #expect(before.err.contains("nothing answers at \(url) (curl: (7)"), "\(before)")
        #expect(before.err.contains("start the backend at \(url), or point the session at it:"), "\(before)")
        let hint = try HintCommand(printedIn: before.err, startingWith: "curl -sS ")
        #expect(hint.words == ["curl", "-sS", url])
        #expect(try hint.run(home).status != 0, "nothing answers yet")
        try backend.listen()
        try hint.run(home).expectSuccess()
        #expect(try home.ok(["run", "backend.body", "--to", "stdout"]).out.contains("/me"))
    }

    /// An installed userdebug without its popup: the hint names the prefix it is installed in;
    /// install.sh with it (given the built binary, as a clone's build would be) puts the popup
    /// there, and `menu --popup` gets past "not installed" (to the display it needs).
    @Test func aMissingPopupNamesThePrefixToInstallInto() throws {
        let home = try UserDebugHome()
        let prefix = home.root.appendingPathComponent("prefix").path
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        let installed = prefix + "/bin/userdebug"
        try copyExecutable(UserDebugHome.binary, to: installed)
        var environment = home.environment
        environment["PATH"] = "/usr/bin:/bin"
        environment["DISPLAY"] = nil
        try runTool(installed, ["session", "import", "-"], stdin: Data(Samples.session.utf8), environment: environment)
            .expectSuccess()
        let before = try runTool(installed, ["menu", "--popup"], environment: environment)
        #expect(before.status == 69, "\(before)")
        #expect(before.err.contains("userdebug-popup is not installed beside userdebug nor on PATH"), "\(before)")
        #expect(before.err.contains("or use a launcher: userdebug menu --dmenu"), "\(before)")
        let hint = try HintCommand(printedIn: before.err, startingWith: "PREFIX=")
        #expect(hint.words == ["PREFIX=\(prefix)", "Scripts/install.sh"], "\(hint.words)")
        var install = environment
        install["PREFIX"] = prefix
        install["USERDEBUG_INSTALL_BINARY"] = UserDebugHome.binary
        try runTool("/bin/bash", [InstallTests.installScript], environment: install).expectSuccess()
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/userdebug-popup"))
        let after = try runTool(installed, ["menu", "--popup"], environment: environment)
        #expect(!after.err.contains("not installed"), "\(after)")
    }
}

/// The command a hint printed: from `prefix` to the end of its line, a "; " or a " (" (what
/// follows is prose), split into words as a POSIX shell splits plain and single-quoted words.
struct HintCommand {
    let words: [String]

    init(printedIn text: String, startingWith prefix: String) throws {
        guard let start = text.range(of: prefix) else {
            throw FixtureError(message: "no hint starting with '\(prefix)' in: \(text)")
        }
        var rest = String(text[start.lowerBound...])
        for end in ["\n", "; ", " ("] {
            if let cut = rest.range(of: end) { rest = String(rest[..<cut.lowerBound]) }
        }
        var words: [String] = []
        var word: String? = nil
        var quoted = false
        for character in rest {
            if quoted {
                if character == "'" { quoted = false } else { word!.append(character) }
            } else if character == "'" {
                quoted = true
                word = word ?? ""
            } else if character == " " {
                if let done = word { words.append(done) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let done = word { words.append(done) }
        self.words = words
    }

    /// Runs it as printed: `userdebug` is the built binary in the test's home, any other program
    /// is looked up in /usr/bin and /bin.
    func run(_ home: UserDebugHome) throws -> RunResult {
        if words.first == "userdebug" { return try home.run(Array(words.dropFirst())) }
        let program = ["/usr/bin/", "/bin/"].map { $0 + words[0] }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        return try runTool(program ?? words[0], Array(words.dropFirst()), environment: home.environment)
    }
}

extension RunResult {
    /// Records an issue unless it exited 0.
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(status == 0, "\(self)", sourceLocation: sourceLocation)
    }
}
