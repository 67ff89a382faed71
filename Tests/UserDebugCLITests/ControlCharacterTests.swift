import Foundation
import TestSupport
import Testing

/// Control characters from hostile records never reach a server or a shell: header names and
/// values with C0 controls (other than HTAB) or DEL are refused at record, import and capture,
/// and `export curl` never writes a C0 control other than newline and tab, so pasting its
/// command into an interactive shell runs that command and nothing else.
@Suite struct ControlCharacterTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.recordSession(baseURL: "http://127.0.0.1:9")
    }

    /// A request document with one extra header, its value given as JSON string text.
    func document(headerValue json: String, inResponse: Bool = false) -> String {
        let header = #"[{"name": "X-Hostile", "value": "\#(json)"}]"#
        return """
            {"request": {"method": "POST", "url": "http://127.0.0.1:9/x", "headers": \(inResponse ? "[]" : header)},
             "response": {"status": 200, "headers": \(inResponse ? header : "[]")}}
            """
    }

    @Test(arguments: [#"a\u0003b"#, #"v\r\nX-Injected: yes"#, #"c\rX-Injected: yes"#, #"d\u007fe"#, #"\u001b[2J"#])
    func recordRefusesAControlCharacterInAHeaderValueNamingIt(_ value: String) throws {
        let before = try home.storeFingerprint()
        for inResponse in [false, true] {
            let result = try home.run(
                ["response", "record", "-"], stdin: Data(document(headerValue: value, inResponse: inResponse).utf8))
            #expect(result.status == 65, "\(value): \(result)")
            #expect(result.err.contains("X-Hostile"), "\(result.err)")
            #expect(result.err.contains(inResponse ? "$.response.headers[0]" : "$.request.headers[0]"), "\(result.err)")
        }
        #expect(try home.storeFingerprint() == before, "nothing was recorded")
    }

    @Test func aTabInAValueAndLineFeedJoinedRepeatsAreStillRecorded() throws {
        try home.ok(["response", "record", "-"], stdin: document(headerValue: #"a\tb"#))
        try home.ok(
            ["response", "record", "-"], stdin: document(headerValue: #"sid=1; Path=/\nlang=en"#, inResponse: true))
        let headers = try home.ok(["print-response", "--headers", "--to", "stdout"]).out
        #expect(headers.contains("X-Hostile: sid=1; Path=/\nX-Hostile: lang=en\n"), "\(headers)")
    }

    @Test func aControlCharacterInAHeaderNameIsRefused() throws {
        let document =
            #"{"request": {"method": "GET", "url": "http://127.0.0.1:9/", "headers": {"X-A\u0001": "v"}}, "response": {"status": 200}}"#
        let result = try home.run(["response", "record", "-"], stdin: Data(document.utf8))
        #expect(result.status == 65, "\(result)")
    }

    @Test func harImportRefusesTheWholeFileNamingTheEntryAndTheHeader() throws {
        let entry = { (value: String) in
            """
            {"startedDateTime": "2024-03-01T09:15:02Z", "time": 1,
             "request": {"method": "GET", "url": "http://127.0.0.1:9/a", "httpVersion": "HTTP/1.1", "headers": [],
                         "cookies": [], "queryString": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                          "headers": [{"name": "X-Hostile", "value": "\(value)"}],
                          "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
             "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
            """
        }
        let har =
            #"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [\#(entry("ok")), \#(entry(#"x\r\nX-Injected: yes"#))]}}"#
        let path = try home.file("hostile.har", har)
        let before = try home.storeFingerprint()
        let result = try home.run(["response", "import", path])
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains("entries[1]") && result.err.contains("X-Hostile"), "\(result.err)")
        #expect(try home.storeFingerprint() == before)
    }

    @Test func captureRefusesAResponseHeaderWithAControlCharacter() throws {
        let server = try HostileServer(.controlHeader)
        let result = try home.run(["capture", "--", "curl", "-s", server.baseURL + "/x"])
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains("X-Evil") && result.err.contains("not recorded"), "\(result.err)")
        #expect(try home.ok(["response", "list"]).out.isEmpty)
    }

    /// Record, HAR import and capture refuse with the store's one rule (`HeaderField`), which
    /// the store applies again for any other recorder (the URLSession hook, an app).
    @Test func everyPathRefusesWithTheSameRule() throws {
        let rule = "RFC 9110 forbids control characters other than tab in header fields"
        let record = try home.run(["response", "record", "-"], stdin: Data(document(headerValue: #"a\u0000b"#).utf8))
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
             {"startedDateTime": "2024-03-01T09:15:02Z", "time": 1,
              "request": {"method": "GET", "url": "http://127.0.0.1:9/a", "httpVersion": "HTTP/1.1", "cookies": [],
                          "headers": [{"name": "X-Hostile", "value": "a\\u0000b"}], "queryString": [],
                          "headersSize": -1, "bodySize": 0},
              "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                           "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1,
                           "bodySize": 0}, "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}}
            """
        let imported = try home.run(["response", "import", try home.file("nul.har", har)])
        let server = try HostileServer(.controlHeader)
        let captured = try home.run(["capture", "--", "curl", "-s", server.baseURL + "/x"])
        for result in [record, imported, captured] {
            #expect(result.status == 65 && result.err.contains(rule), "\(result)")
        }
        #expect(try home.ok(["response", "list"]).out.isEmpty)
    }

    /// A body that, pasted raw, interrupts the line (^C), clears the screen, and runs a command.
    func recordHostileBody(marker: String) throws {
        let body = #"a\u0003touch \#(marker) #\n\u001b[2J\r\u007f\u0008"#
        let document =
            #"{"request": {"method": "POST", "url": "http://127.0.0.1:9/x", "headers": {"Content-Type": "text/plain"}, "body": "\#(body)"}, "response": {"status": 200}}"#
        try home.ok(["response", "record", "-"], stdin: document)
    }

    /// Pastes `text` into an interactive `shell` on a pseudo-terminal (so ^C is an interrupt, as
    /// in a terminal), then runs `touch DONE` and returns once DONE exists (or after 30 s).
    func paste(_ text: String, into shell: String, done: String) throws -> RunResult {
        let script = #"""
            import os, pty, select, sys, time
            shell, done = sys.argv[1], sys.argv[2]
            text = sys.stdin.buffer.read()
            pid, fd = pty.fork()
            if pid == 0:
                os.environ["PS1"] = "$ "
                os.execvp(shell, [shell, "-i"])
            def drain(seconds):
                end = time.time() + seconds
                while time.time() < end:
                    ready, _, _ = select.select([fd], [], [], 0.05)
                    if ready:
                        try:
                            os.read(fd, 65536)
                        except OSError:
                            return
            drain(0.5)
            os.write(fd, text + b"\n")
            drain(1.0)
            os.write(fd, b"\x03")
            drain(0.3)
            os.write(fd, b"touch " + done.encode() + b"\n")
            end = time.time() + 30
            while not os.path.exists(done) and time.time() < end:
                drain(0.1)
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            """#
        return try runTool(
            "/usr/bin/python3", ["-c", script, shell, done], directory: home.root, stdin: Data(text.utf8),
            environment: ["PATH": "/usr/bin:/bin", "HOME": home.root.path, "TERM": "dumb"])
    }

    @Test func anExportedCommandHoldsNoRawControlCharacterAndPastesSafely() throws {
        let marker = home.root.appendingPathComponent("pwned").path
        try recordHostileBody(marker: marker)
        let export = try home.ok(["export", "curl", "--to", "stdout"])
        let controls = export.stdout.filter { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F }
        #expect(controls.isEmpty, "control bytes \(Array(controls)) in \(export.out)")
        let file = try home.file("export.sh", export.out)
        for shell in ["/bin/bash", "/usr/bin/dash"] {
            #expect(try runTool(shell, ["-n", file]).status == 0, "\(shell) -n")
            let done = home.root.appendingPathComponent("done-\(URL(fileURLWithPath: shell).lastPathComponent)").path
            let pasted = try paste(export.out, into: shell, done: done)
            #expect(FileManager.default.fileExists(atPath: done), "\(shell) never ran the next command: \(pasted)")
            #expect(!FileManager.default.fileExists(atPath: marker), "pasting into \(shell) ran the injected command")
        }
    }

    @Test func anExportOnTheClipboardHoldsNoRawControlCharacter() throws {
        try recordHostileBody(marker: "/nonexistent/pwned")
        try withXvfb { x in
            try home.ok(["export", "curl", "--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
            let copied = try Peer.read(
                ["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 30)
            #expect(copied.status == 0 && copied.bytes.starts(with: Array("curl ".utf8)))
            #expect(!copied.bytes.contains { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F }, "\(copied.bytes)")
        }
    }

    /// Records made before the check (or written to the store by another program) are not trusted:
    /// a stored header with a control character is refused by `export curl`, a URL's is percent-encoded.
    @Test func exportCurlRefusesAStoredHeaderAndEncodesAStoredURL() throws {
        try home.ok(["response", "record", "-"], stdin: document(headerValue: "plain"))
        func sql(_ statement: String) throws {
            let result = try runTool("/usr/bin/sqlite3", [home.databasePath, statement])
            #expect(result.status == 0, "\(result)")
        }
        try sql("UPDATE responses SET url = 'http://127.0.0.1:9/a' || char(3) || 'b'")
        let url = try home.ok(["export", "curl", "--to", "stdout", "--one-line"])
        #expect(url.out.contains("'http://127.0.0.1:9/a%03b'"), "\(url.out)")
        // JSON text, as the store keeps headers: the escape decodes to U+0003.
        try sql(#"UPDATE responses SET request_headers = '[["X-Hostile","a\u0003b"]]'"#)
        let header = try home.run(["export", "curl", "--to", "stdout"])
        #expect(header.status == 65, "\(header)")
        #expect(header.err.contains("X-Hostile") && header.stdout.isEmpty, "\(header)")
    }
}
