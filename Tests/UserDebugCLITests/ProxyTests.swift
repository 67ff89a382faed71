import Foundation
import TestSupport
import Testing

/// `userdebug proxy` with the real mitmdump (Debian's mitmproxy, Scripts/deps.sh --proxy) in a
/// private confdir and a private USERDEBUG_HOME: curl through it to a local HTTPS server (Python's
/// ssl, a certificate made here with openssl) and to the HTTP echo server. Every process a test
/// starts runs in a process group of its own, killed in a `defer`.
@Suite(.desktopTier, .processDeadline(240)) struct ProxyTests {
    static let token = "tok-proxy-canary-5d1e"

    /// A home with the login rule and a session whose base URL is `baseURL`.
    static func home(baseURL: String?) throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.file("config/config.json", #"{"login": [{"match": "POST /v1/login"}]}"#)
        if let baseURL { try home.recordSession(baseURL: baseURL) }
        return home
    }

    @Test func httpsAndHTTPThroughTheProxyTheLoginFollowedOnlyTheChosenHostsRecorded() throws {
        let home = try UserDebugHome()
        try home.file("config/config.json", #"{"login": [{"match": "POST /v1/login"}]}"#)
        let tls = try TLSServer(directory: home.root)
        defer { tls.stop() }
        let echo = try EchoServer(directory: home.root)
        defer { echo.stop() }
        try home.recordSession(baseURL: "https://localhost:\(tls.port)")
        // mitmproxy checks the upstream server's certificate: the test's own is trusted through
        // the confdir's config.yaml, as a user would trust a staging server's private CA.
        let confdir = home.root.appendingPathComponent("data/mitmproxy")
        try home.file("data/mitmproxy/config.yaml", "ssl_verify_upstream_trusted_ca: \(tls.certificate)\n")
        let proxy = try ProxyRun(home: home, arguments: [])
        defer { proxy.stop() }
        let first = try proxy.firstLine()
        #expect(first.contains("listening on 127.0.0.1:\(proxy.port)"), "\(first)")
        #expect(first.contains(#"recording hosts matching ^(?:localhost)$"#), "\(first)")
        #expect(first.contains("https_proxy=http://127.0.0.1:\(proxy.port)"), "\(first)")
        let mode = try FileManager.default.attributesOfItem(atPath: confdir.path)[.posixPermissions] as? Int
        #expect(mode == 0o700, "the confdir holds the CA's key")
        let ca = confdir.appendingPathComponent("mitmproxy-ca-cert.pem").path

        // The app's login over HTTPS: the session follows it the moment the response completes.
        let login = try proxy.curl(
            [
                "--cacert", ca, "-H", "Content-Type: application/json", "-d", #"{"username": "ana"}"#,
                "https://localhost:\(tls.port)/v1/login",
            ])
        #expect(login.status == 0 && login.out.contains("usr_ana"), "\(login)\n\(proxy.logs())")
        #expect(
            eventually { (try? home.run(["copy-id", "--to", "stdout"]).out) == "usr_ana\n" },
            "copy-id after the login: \(proxy.logs())")
        // A host outside --hosts passes through unrecorded; the next recorded flow shows the
        // recorder went past it (flows are recorded in the order they complete).
        let other = try proxy.curl([echo.baseURL + "/not-recorded"])
        #expect(other.status == 0 && other.out.contains("not-recorded"), "\(other)")
        let me = try proxy.curl(["--cacert", ca, "https://localhost:\(tls.port)/v1/me"])
        #expect(me.status == 0, "\(me)")
        #expect(eventually { (try? home.run(["response", "list"]).out.contains("/v1/me")) == true }, "\(proxy.logs())")
        let list = try home.ok(["response", "list", "--all-sessions"]).out
        #expect(!list.contains("not-recorded") && list.contains("/v1/login"), "\(list)")
        // What was recorded is the app's exchange, the token redacted on output as everywhere.
        let shown = try home.ok(["print-response", "--tag", "proxy", "--path", "/v1/login", "--to", "stdout"]).out
        #expect(shown.contains("usr_ana") && !shown.contains(Self.token), "\(shown)")

        // A response over the size cap goes through to the app, unrecorded with one line; the
        // proxy keeps serving and recording.
        // 300 MB: mitmdump streams it (stream_large_bodies), its peak memory grows by less than the cap.
        let mitmdump = try #require(proxy.mitmdumpPID(), "\(proxy.logs())")
        let peakBefore = try #require(peakKilobytes(mitmdump))
        let size = 300 * 1024 * 1024
        let big = try proxy.curl(
            [
                "--cacert", ca, "-o", "/dev/null", "-w", "%{size_download}",
                "https://localhost:\(tls.port)/big?bytes=\(size)",
            ])
        #expect(big.status == 0 && big.out == "\(size)", "\(big)")
        #expect(eventually { proxy.logs().contains("not recorded: GET localhost/big") }, "\(proxy.logs())")
        let peakAfter = try #require(peakKilobytes(mitmdump))
        #expect(peakAfter - peakBefore < 32 * 1024, "mitmdump's peak grew from \(peakBefore) kB to \(peakAfter) kB")
        let after = try proxy.curl(["--cacert", ca, "https://localhost:\(tls.port)/v1/after-big"])
        #expect(after.status == 0, "\(after)")
        #expect(eventually { (try? home.run(["response", "list"]).out.contains("/v1/after-big")) == true })
        #expect(!(try home.ok(["response", "list"]).out.contains("/big?")), "the big one is not recorded")
    }

    @Test func httpWithHostsAndSessionThenSIGTERMStopsMitmdumpAndLeavesNothing() throws {
        let home = try Self.home(baseURL: nil)
        let echo = try EchoServer(directory: home.root)
        defer { echo.stop() }
        let confdir = home.root.appendingPathComponent("private-confdir").path
        let proxy = try ProxyRun(
            home: home, arguments: ["--hosts", #"^127\.0\.0\.1$"#, "--session", "app", "--confdir", confdir])
        defer { proxy.stop() }
        let first = try proxy.firstLine()
        #expect(first.contains(#"recording hosts matching ^127\.0\.0\.1$"#), "\(first)")
        #expect(FileManager.default.fileExists(atPath: confdir + "/mitmproxy-ca-cert.pem"))
        let login = try proxy.curl(["-d", #"{"username": "bo", "password": "pw"}"#, echo.baseURL + "/v1/login"])
        #expect(login.status == 0, "\(login)")
        #expect(
            eventually { (try? home.run(["copy-id", "--to", "stdout"]).out) == "usr_bo\n" }, "\(proxy.logs())")
        #expect(proxy.logs().contains("recorded session 'app' (user usr_bo)"), "\(proxy.logs())")
        #expect(try home.ok(["session", "show"]).out.contains(#""name": "app""#))

        // A websocket: the handshake (101) is recorded, the messages pass through.
        let websocket = try runTool(
            "/usr/bin/python3",
            [repositoryRoot.appendingPathComponent("Tests/Support/ws_check.py").path, "\(proxy.port)"])
        #expect(websocket.status == 0 && websocket.out == "echoed hello\n", "\(websocket)\n\(proxy.logs())")
        #expect(
            eventually {
                (try? home.run(["response", "list", "--path", "/ws"]).out.contains(#""status":101"#)) == true
            },
            "\(proxy.logs())")

        // SIGTERM to userdebug alone: it passes it on to mitmdump and waits for it.
        kill(proxy.pid, SIGTERM)
        let status = proxy.waitForExit(seconds: 60)
        #expect(status == 0, "\(proxy.logs())")
        #expect(proxy.groupIsEmpty(), "mitmdump outlived userdebug proxy")
        let refused = try runTool(
            "/usr/bin/curl", ["-sS", "--max-time", "5", "--proxy", "http://127.0.0.1:\(proxy.port)", echo.baseURL],
            environment: home.environment)
        #expect(refused.status != 0, "nothing listens any more")
    }

    @Test func hostileTrafficIsSkippedWithALineAndSIGKILLLeavesTheStoreConsistent() throws {
        let home = try UserDebugHome()
        try home.file("config/config.json", #"{"login": [{"match": "POST /v1/login"}]}"#)
        let tls = try TLSServer(directory: home.root)
        defer { tls.stop() }
        try home.recordSession(baseURL: "https://localhost:\(tls.port)")
        // lazy, without the upstream certificate: mitmdump answers the client's TLS before it
        // connects upstream, so it can offer the client HTTP/2 (the server speaks HTTP/1.1).
        try home.file(
            "data/mitmproxy/config.yaml",
            "ssl_verify_upstream_trusted_ca: \(tls.certificate)\nconnection_strategy: lazy\nupstream_cert: false\n")
        let ca = home.root.appendingPathComponent("data/mitmproxy/mitmproxy-ca-cert.pem").path
        let base = "https://localhost:\(tls.port)"
        let proxy = try ProxyRun(home: home, arguments: [])
        defer { proxy.stop() }
        _ = try proxy.firstLine()

        // A header that is not UTF-8: passed to the app, skipped with a line.
        let latin = try proxy.curl(["--cacert", ca, "-D", "-", base + "/latin1"])
        #expect(latin.status == 0 && latin.out.hasSuffix("ok"), "\(latin)")
        #expect(
            eventually { proxy.logs().contains("not recorded: GET localhost/latin1: a response header is not UTF-8") },
            "\(proxy.logs())")
        // A control character in a header (over HTTP/1.1: HTTP/2 would refuse it between curl and
        // mitmdump): response record refuses it, with a line naming it.
        let control = try proxy.curl(["--cacert", ca, "--http1.1", base + "/control"])
        #expect(control.status == 0 && control.out == "ok", "\(control)")
        #expect(
            eventually { proxy.logs().contains(#"header "X-Place": control character 0x01 in the value"#) },
            "\(proxy.logs())")
        // HTTP/2 between the app and the proxy: recorded as any other.
        let h2 = try proxy.curl([
            "--cacert", ca, "--http2", "-w", "%{http_version}", "-o", "/dev/null", base + "/v1/h2",
        ])
        #expect(h2.status == 0 && h2.out == "2", "\(h2)")
        #expect(eventually { (try? home.run(["response", "list"]).out.contains("/v1/h2")) == true }, "\(proxy.logs())")
        // A server that never finishes: the client gives up, nothing is recorded, the proxy serves on.
        let stalled = try proxy.curl(["--cacert", ca, "--max-time", "2", base + "/stall"])
        #expect(stalled.status == 28, "curl's timeout: \(stalled)")
        let next = try proxy.curl(["--cacert", ca, base + "/v1/after-hostile"])
        #expect(next.status == 0, "\(next)")
        #expect(eventually { (try? home.run(["response", "list"]).out.contains("/v1/after-hostile")) == true })
        let list = try home.ok(["response", "list"]).out
        #expect(!list.contains("/latin1") && !list.contains("/stall") && !list.contains("/control"), "\(list)")

        // SIGKILL to the whole proxy (mitmdump, the addon's recorder) while requests keep coming.
        let load = try GroupProcess(
            [
                "/bin/sh", "-c",
                "while :; do /usr/bin/curl -s --max-time 5 --proxy http://127.0.0.1:\(proxy.port) --cacert '\(ca)' "
                    + "-d '{\"username\": \"ana\"}' \(base)/v1/login >/dev/null; done",
            ], environment: home.environment, directory: home.root)
        defer { load.stop() }
        #expect(eventually { (try? home.run(["copy-id", "--to", "stdout"]).out) == "usr_ana\n" }, "\(proxy.logs())")
        proxy.stop()
        load.stop()
        // The recorder may still be committing what it read before its input closed: wait for it.
        let check = try runTool(
            "/usr/bin/sqlite3", ["-cmd", ".timeout 10000", home.databasePath, "PRAGMA integrity_check;"])
        #expect(check.out == "ok\n", "\(check)")
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_ana\n")
        let counted = try home.ok(["response", "list", "--limit", "0"]).out
        #expect(counted.contains("/v1/login"), "\(counted)")
        // And a new proxy on the same store and confdir records again.
        let again = try ProxyRun(home: home, arguments: [])
        defer { again.stop() }
        _ = try again.firstLine()
        #expect(try again.curl(["--cacert", ca, base + "/v1/after-kill"]).status == 0)
        #expect(eventually { (try? home.run(["response", "list"]).out.contains("/v1/after-kill")) == true })
    }

    @Test func responseRecordStreamRecordsEachLineAndNamesTheRefusedOnes() throws {
        let home = try Self.home(baseURL: "https://a.test")
        let lines = [
            #"{"request": {"method": "GET", "url": "https://a.test/1"}, "response": {"status": 200}}"#,
            "not json", "",
            #"{"request": {"method": "GET", "url": "ftp://x"}, "response": {"status": 200}}"#,
            #"{"request": {"method": "GET", "url": "https://a.test/2"}, "response": {"status": 200, "headers": [{"name": "X", "value": "a\u0001b"}]}}"#,
            #"{"request": {"method": "POST", "url": "https://a.test/v1/login"}, "response": {"status": 200, "body": "{\"user\": {\"id\": \"usr_s\"}}"}}"#,
        ]
        let result = try home.run(
            ["response", "record", "--stream", "-"], stdin: Data(lines.joined(separator: "\n").utf8))
        #expect(result.status == 65 && result.out == "1\n2\n", "\(result)")
        for part in [
            "line 2: column 1", "line 4: at $.request.url",
            "line 5 (GET https://a.test/2): at $.response.headers[0].value", "3 of 6 lines",
        ] {
            #expect(result.err.contains(part), "\(part): \(result.err)")
        }
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_s\n", "the login rule applies per line")
    }

    @Test func withoutMitmdumpExits69AndTheAddonAndTrustGuideAreThere() throws {
        let home = try Self.home(baseURL: "https://api.example.test")
        let missing = try home.run(["proxy"], extraEnvironment: ["PATH": "/nonexistent"])
        #expect(missing.status == 69, "\(missing)")
        #expect(missing.err.contains("mitmdump not found") && missing.err.contains("Scripts/deps.sh --proxy"))
        let addon = try home.ok(["proxy", "--addon"]).out
        #expect(
            addon.hasSuffix("config/proxy/userdebug_addon.py\n")
                && FileManager.default.fileExists(atPath: String(addon.dropLast())))
        let guide = try home.ok(["proxy", "--ca"]).out
        for part in [
            "--cacert", "certutil -d sql:", "-http-proxy", "network_security_config",
            "/data/mitmproxy/mitmproxy-ca-cert.pem",
        ] {
            #expect(guide.contains(part), "\(part): \(guide)")
        }
        let bad = try home.run(["proxy", "--listen", "localhost"])
        #expect(bad.status == 64 && bad.err.contains("--listen needs HOST:PORT"), "\(bad)")
        let mode = try home.run(["proxy", "--mode", "reverse:ftp://x"])
        #expect(mode.status == 64, "\(mode)")

        // Installed: BINDIR/../share/userdebug/proxy/userdebug_addon.py, as install.sh lays it out.
        let prefix = home.root.appendingPathComponent("prefix")
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("share/userdebug/proxy"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        let binary = prefix.appendingPathComponent("bin/userdebug").path
        try copyExecutable(UserDebugHome.binary, to: binary)
        let installed = prefix.appendingPathComponent("share/userdebug/proxy/userdebug_addon.py").path
        try FileManager.default.copyItem(atPath: String(addon.dropLast()), toPath: installed)
        let found = try runTool(binary, ["proxy", "--addon"], environment: home.environment)
        #expect(found.status == 0 && found.out == installed + "\n", "\(found)")
    }
}

/// VmHWM (the peak resident set, kB) of a process.
func peakKilobytes(_ pid: pid_t) -> Int? {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
    return Int(line.dropFirst(6).filter(\.isNumber))
}

/// Polls `check` every 50 ms until it holds or 30 s pass (a bound on a hang, not a timing).
func eventually(_ check: () -> Bool) -> Bool {
    for _ in 0..<600 {
        if check() { return true }
        usleep(50_000)
    }
    return check()
}

/// A free TCP port on 127.0.0.1 (bound, read, closed).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw FixtureError(message: "no free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A program in a process group of its own, its output in files; `stop` kills the group.
final class GroupProcess: @unchecked Sendable {
    let pid: pid_t
    let outPath: String
    let errPath: String
    private var reaped = false

    init(_ argv: [String], environment: [String: String], directory: URL) throws {
        let base = directory.appendingPathComponent("proc-\(UUID().uuidString)").path
        outPath = base + ".out"
        errPath = base + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argvC = argv.map { strdup($0) } + [nil]
        defer { argvC.forEach { free($0) } }
        let envC = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envC.forEach { free($0) } }
        var child = pid_t()
        let spawned = posix_spawn(&child, argv[0], &actions, &attributes, argvC, envC)
        guard spawned == 0 else {
            throw FixtureError(message: "spawn \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        pid = child
    }

    deinit { stop() }

    var out: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var err: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// The exit status (128 + signal) once it exits, nil at the deadline.
    func waitForExit(seconds: Int) -> Int32? {
        for _ in 0..<(seconds * 20) {
            var status: Int32 = 0
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid {
                reaped = true
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
            usleep(50_000)
        }
        return nil
    }

    /// Whether no process of its group is left (zombies of the group's leader aside).
    func groupIsEmpty() -> Bool {
        eventually { kill(-pid, 0) != 0 && errno == ESRCH }
    }

    func stop() {
        kill(-pid, SIGKILL)
        guard !reaped else { return }
        reaped = true
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}

/// `userdebug proxy ARGS --listen 127.0.0.1:PORT` in the test's home.
final class ProxyRun: @unchecked Sendable {
    let process: GroupProcess
    let port: Int
    let home: UserDebugHome
    var pid: pid_t { process.pid }

    init(home: UserDebugHome, arguments: [String]) throws {
        self.home = home
        port = try freePort()
        process = try GroupProcess(
            [UserDebugHome.binary, "proxy", "--listen", "127.0.0.1:\(port)"] + arguments,
            environment: home.environment, directory: home.root)
    }

    /// The first line, once mitmdump listens (it says so after loading the addon).
    func firstLine() throws -> String {
        let ready = eventually { process.out.contains("Proxy server listening") || process.waitForExitNow() }
        try #require(ready && process.out.contains("Proxy server listening"), "the proxy did not start: \(logs())")
        return String(process.out.prefix { $0 != "\n" })
    }

    func curl(_ arguments: [String]) throws -> RunResult {
        try runTool(
            "/usr/bin/curl", ["-sS", "--max-time", "60", "--proxy", "http://127.0.0.1:\(port)"] + arguments,
            environment: home.environment)
    }

    func logs() -> String { "stdout:\n\(process.out)\nstderr:\n\(process.err)" }
    /// The mitmdump `userdebug proxy` started (its child).
    func mitmdumpPID() -> pid_t? {
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }
    func waitForExit(seconds: Int) -> Int32? { process.waitForExit(seconds: seconds) }
    func groupIsEmpty() -> Bool { process.groupIsEmpty() }
    func stop() { process.stop() }
}

extension GroupProcess {
    /// Whether it has already exited (not reaped: `waitForExit` still sees it).
    func waitForExitNow() -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.isEmpty || stat.contains(") Z ")
    }
}

/// Tests/Support/tls_server.py with a certificate for localhost and 127.0.0.1 made by openssl.
final class TLSServer: @unchecked Sendable {
    let process: GroupProcess
    let certificate: String
    private(set) var port = 0

    init(directory: URL) throws {
        certificate = directory.appendingPathComponent("tls-cert.pem").path
        let key = directory.appendingPathComponent("tls-key.pem").path
        let made = try runTool(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
        try #require(made.status == 0, "openssl: \(made)")
        let script = repositoryRoot.appendingPathComponent("Tests/Support/tls_server.py").path
        process = try GroupProcess(
            ["/usr/bin/python3", script, certificate, key, "--lifetime", "200"], environment: ["LANG": "C.UTF-8"],
            directory: directory)
        _ = eventually { process.out.hasSuffix("\n") }
        port = Int(process.out.dropLast()) ?? 0
        try #require(port > 0, "the TLS server did not start: \(process.err)")
    }

    func stop() { process.stop() }
}
