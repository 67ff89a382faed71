import Synchronization
import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// `userdebug proxy`: runs mitmproxy's `mitmdump` with our addon (config/proxy/userdebug_addon.py),
/// which hands every completed flow to be recorded to a host that `--hosts` matches to
/// `userdebug response record --stream -`, the same path as a response recorded by hand (checks, login
/// rules, the size cap). mitmproxy is optional: Scripts/deps.sh --proxy installs it.
enum ProxyCommand {
    /// The addon's file name, installed as `$PREFIX/share/userdebug/proxy/userdebug_addon.py`.
    static let addonName = "userdebug_addon.py"
    /// Flows whose two bodies together are larger than this are passed on unrecorded (mitmproxy
    /// streams them instead of holding them): in base64 they still fit in one 64 MiB document.
    static let bodyCapBytes = 32 * 1024 * 1024

    static let spec = CommandSpec(
        path: ["proxy"],
        summary: "Run mitmproxy (mitmdump) and record the app's traffic into the session as it happens.",
        usage:
            "proxy [--listen HOST:PORT] [--session NAME] [--hosts REGEX] [--mode regular|reverse:URL|upstream:URL] [--confdir DIR] [--addon] [--ca]",
        discussion: """
            Starts mitmdump with userdebug's addon: every completed request to a host --hosts
            matches is recorded as `response record` records one (login rules apply at once, so
            copy-id right after the app's login gives the new user); other hosts pass through
            unrecorded. Default hosts: the session's base URL host and the login rules' baseURL
            hosts (every host when there are none). A flow with a control character in a header,
            a header that is not UTF-8, or bodies over 32 MiB is skipped with one line on stderr.
            The first line says where it listens and which hosts are recorded. mitmproxy's CA is
            kept in --confdir (default $XDG_DATA_HOME/userdebug/mitmproxy, 0700); --ca says how
            to trust it. Needs mitmproxy (Scripts/deps.sh --proxy); without it, exit 69.
            Example: userdebug proxy --hosts '^api\\.example\\.com$'
            """,
        options: [
            .value("listen", "HOST:PORT", "Where the proxy listens (default 127.0.0.1:8080).").checked {
                value throws(CommandError) in _ = try listenAddress(value)
            },
            .value("hosts", "REGEX", "Record only hosts this Python regular expression finds (re.search)."),
            .value(
                "mode", "MODE", completes: .words({ ["regular", "reverse:", "upstream:"] }),
                "regular (default), reverse:URL (the app talks to the proxy as to URL), upstream:URL."
            ).checked { value throws(CommandError) in _ = try mode(value) },
            .value("confdir", "DIR", completes: .file, "mitmproxy's directory: its CA and settings."),
            .flag("addon", "Print the addon's path (mitmweb -s \"$(userdebug proxy --addon)\") and exit.")
                .excluding("ca"),
            .flag("ca", "Print how to trust the proxy's CA (curl, Firefox/Chromium, Android emulator) and exit.")
                .excluding("addon"),
        ],
        maxPositionals: 0
    ) { invocation in
        try run(invocation)
    }

    static func run(_ invocation: Invocation) throws {
        let arguments = invocation.arguments
        if arguments.has("addon") {
            return try printLine(try addonPath())
        }
        let confdir = try confdir(invocation)
        if arguments.has("ca") {
            return try writeAll(Array(trustGuide(confdir: confdir).utf8), to: 1, name: "standard output")
        }
        let (host, port) = try listenAddress(arguments.value("listen") ?? "127.0.0.1:8080")
        let mode = try mode(arguments.value("mode") ?? "regular")
        guard let mitmdump = CaptureCommand.findExecutable("mitmdump", path: invocation.environment["PATH"]) else {
            throw CommandError(
                .unavailable,
                "mitmdump not found on PATH; userdebug proxy runs mitmproxy: install it with Scripts/deps.sh --proxy "
                    + "(Debian's mitmproxy: apt-get install mitmproxy)")
        }
        let addon = try addonPath()
        let rules = try LoginRecording.rules(invocation)
        let session = try LoginRecording.sessionIfAny(invocation, rules: rules)
        let hosts = try arguments.value("hosts") ?? defaultHosts(session: session, rules: rules)
        try makeDirectory(confdir, privateByDefault: arguments.value("confdir") == nil)
        var command = [
            mitmdump, "--listen-host", host, "--listen-port", String(port), "--mode", mode,
            "--set", "confdir=\(confdir)", "--set", "stream_large_bodies=\(bodyCapBytes / 1024 / 1024)m",
            "-s", addon, "--set", "userdebug_binary=\(selfPath() ?? "userdebug")",
            "--set", "userdebug_hosts=\(hosts)", "--set", "userdebug_max_bytes=\(bodyCapBytes)",
        ]
        if let name = arguments.value("session") { command += ["--set", "userdebug_session=\(name)"] }
        try printLine(banner(host: host, port: port, mode: mode, confdir: confdir, hosts: hosts, session: session))
        // Its lines as they come, also into a pipe or a log file (Python buffers them otherwise).
        var environment = invocation.environment
        environment["PYTHONUNBUFFERED"] = "1"
        // No __pycache__ written beside the addon (in the repository, or the installed prefix).
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let status = try ProxyProcess.run(command, environment: environment)
        if status != 0 && ProxyProcess.stoppedBy == nil { throw PassThroughExit(status: status) }
    }

    /// `HOST:PORT` (an IPv6 host in brackets: `[::1]:8080`), the port 1–65535.
    static func listenAddress(_ text: String) throws(CommandError) -> (String, Int) {
        let wrong = CommandError(.usage, "--listen needs HOST:PORT (e.g. 127.0.0.1:8080), got '\(text)'")
        guard let colon = text.lastIndex(of: ":") else { throw wrong }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }),
            let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else { throw wrong }
        return (host, port)
    }

    /// `regular`, or `reverse:URL` / `upstream:URL` with an absolute http(s) URL.
    static func mode(_ text: String) throws(CommandError) -> String {
        if text == "regular" { return text }
        for prefix in ["reverse:", "upstream:"] where text.hasPrefix(prefix) {
            if let problem = HTTPURL.problem(String(text.dropFirst(prefix.count))) {
                throw CommandError(.usage, "--mode \(prefix)URL: \(problem)")
            }
            return text
        }
        throw CommandError(.usage, "--mode needs regular, reverse:URL or upstream:URL, got '\(text)'")
    }

    /// The session's base URL host and the login rules' baseURL hosts, as one anchored regular
    /// expression; empty (every host) when there are none.
    static func defaultHosts(session: Session?, rules: [LoginRule]) throws -> String {
        var hosts: [String] = []
        for url in [session?.baseURL] + rules.map(\.baseURL) {
            guard let url, let host = host(of: url), !hosts.contains(host) else { continue }
            hosts.append(host)
        }
        guard !hosts.isEmpty else { return "" }
        return "^(?:" + hosts.map(escaped).joined(separator: "|") + ")$"
    }

    /// The host of an absolute http(s) URL, lower-cased, without brackets, `user@` or port.
    static func host(of url: String) -> String? {
        guard HTTPURL.problem(url) == nil, let colon = url.firstIndex(of: ":") else { return nil }
        let authority = url[colon...].dropFirst(3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        if hostAndPort.hasPrefix("["), let close = hostAndPort.firstIndex(of: "]") {
            return String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]).lowercased()
        }
        return String(hostAndPort.prefix { $0 != ":" }).lowercased()
    }

    /// `text` with every character but letters, digits and `-` escaped for Python's `re`.
    static func escaped(_ text: String) -> String {
        String(text.flatMap { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? [$0] : ["\\", $0] })
    }

    static func banner(
        host: String, port: Int, mode: String, confdir: String, hosts: String, session: Session?
    ) -> String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let pointing: String
        if mode.hasPrefix("reverse:") {
            pointing = "point the app's base URL at http://\(address) (it forwards to \(mode.dropFirst(8)))"
        } else {
            pointing =
                "point the app at it with http_proxy=http://\(address) https_proxy=http://\(address) "
                + "and trust \(confdir)/mitmproxy-ca-cert.pem (userdebug proxy --ca)"
        }
        let recorded =
            hosts.isEmpty
            ? "every host (no base URL to take hosts from; --hosts REGEX narrows it)"
            : "hosts matching \(hosts) (other hosts pass through unrecorded)"
        let into = session.map { "session '\($0.name)'" } ?? "the session a login rule records"
        return "userdebug proxy: listening on \(address) (mode \(mode)); \(pointing); recording \(recorded) "
            + "into \(into), following the app's login"
    }

    /// `--confdir`, or `DATA/mitmproxy` (`$XDG_DATA_HOME/userdebug/mitmproxy`, USERDEBUG_HOME-aware).
    static func confdir(_ invocation: Invocation) throws(CommandError) -> String {
        guard let given = invocation.arguments.value("confdir") else {
            return invocation.paths.dataDirectory + "/mitmproxy"
        }
        guard !given.isEmpty else { throw CommandError(.usage, "--confdir needs a directory") }
        if given.hasPrefix("/") { return given }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else {
            throw CommandError(.ioError, "cannot find the current directory for --confdir \(given)")
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + given
    }

    /// Creates `path` and its parents; the default confdir is made (and kept) 0700: the CA's
    /// private key is in it.
    static func makeDirectory(_ path: String, privateByDefault: Bool) throws(CommandError) {
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw CommandError(.ioError, "cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw CommandError(.ioError, "\(path) is not a directory")
        }
        if privateByDefault && info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
            throw CommandError(.ioError, "cannot make \(path) private (0700): \(String(cString: strerror(errno)))")
        }
    }

    /// The addon: `BINDIR/../share/userdebug/proxy/` of an installed binary, else
    /// `config/proxy/` of the repository a built binary (`.build/…/userdebug`) lies in.
    static func addonPath() throws(CommandError) -> String {
        guard let me = selfPath(), let slash = me.lastIndex(of: "/") else {
            throw CommandError(.unavailable, "cannot find userdebug's own path (/proc/self/exe) to find its addon")
        }
        var directory = String(me[..<slash])
        let installed = directory + "/../share/userdebug/proxy/" + addonName
        if access(installed, R_OK) == 0 { return normalized(installed) }
        while let up = directory.lastIndex(of: "/"), !directory.isEmpty {
            let candidate = directory + "/config/proxy/" + addonName
            if access(candidate, R_OK) == 0 && access(directory + "/Package.swift", R_OK) == 0 { return candidate }
            directory = String(directory[..<up])
        }
        throw CommandError(
            .unavailable,
            "the proxy addon is not installed: no \(normalized(installed)); Scripts/install.sh installs it")
    }

    /// `/a/bin/../share/x` as `/a/share/x`.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func selfPath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func printLine(_ text: String) throws {
        try writeAll(Array((text + "\n").utf8), to: 1, name: "standard output")
    }

    /// What `--ca` prints: the CA's files and the commands that trust it, none of them run.
    static func trustGuide(confdir: String) -> String {
        let pem = confdir + "/mitmproxy-ca-cert.pem"
        let made = access(pem, R_OK) == 0 ? "" : " (made the first time `userdebug proxy` runs)"
        return """
            The proxy's CA certificate: \(pem)\(made)
            Its private key stays in \(confdir) (0700). Nothing is trusted until you run one of these:

            curl:      curl --proxy http://127.0.0.1:8080 --cacert \(pem) https://api.example.com/
            Firefox/Chromium (an NSS database; Firefox: your profile's directory instead of ~/.pki/nssdb):
                       certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n userdebug-proxy -i \(pem)
                       (certutil is in Debian's libnss3-tools; remove it with: certutil -d sql:$HOME/.pki/nssdb -D -n userdebug-proxy)
            Android emulator (a debug build of your app):
                       emulator -avd AVD -http-proxy http://127.0.0.1:8080
                       adb push \(pem) /sdcard/Download/userdebug-proxy.pem, then Settings → Security →
                       Encryption & credentials → Install a certificate → CA certificate; and in the app's
                       res/xml/network_security_config.xml:
                         <network-security-config><debug-overrides><trust-anchors>
                           <certificates src="user" /></trust-anchors></debug-overrides></network-security-config>
                       (android:networkSecurityConfig="@xml/network_security_config" on <application>)
            Details: docs/proxy.md

            """
    }
}

/// Runs mitmdump and waits for it, passing on SIGINT, SIGTERM and SIGHUP (the proxy then stops
/// as mitmdump does on them: it finishes and exits), so mitmdump never outlives `userdebug proxy`.
enum ProxyProcess {
    /// The signal that asked us to stop, or nil.
    static var stoppedBy: Int32? {
        let signal = received.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    private static let received = Atomic<Int32>(0)
    private static let child = Atomic<Int32>(0)
    private static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    static func run(_ argv: [String], environment: [String: String]) throws(CommandError) -> Int32 {
        // Touched before the handler can run: a lazy global's first access is not signal-safe.
        _ = received.load(ordering: .relaxed) + child.load(ordering: .relaxed)
        var options = ChildProcess.Options()
        options.defaultSignals = .only([SIGPIPE] + forwarded)
        let old = forwarded.map { signal($0, passOn) }
        defer {
            for (number, handler) in zip(forwarded, old) { signal(number, handler) }
            child.store(0, ordering: .relaxed)
        }
        let spawned: ChildProcess
        do throws(SystemError) {
            spawned = try ChildProcess.spawn(argv, environment: environment, options: options)
        } catch {
            throw CommandError(.unavailable, "cannot run \(argv[0]): \(error)")
        }
        child.store(spawned.pid, ordering: .relaxed)
        if let signal = stoppedBy { kill(spawned.pid, signal) }
        do throws(SystemError) {
            return try spawned.wait().shellStatus
        } catch {
            throw CommandError(.ioError, "waiting for \(argv[0]): \(error)")
        }
    }

    /// The handler: only async-signal-safe work (atomic stores and loads, kill).
    private static let passOn: @convention(c) (Int32) -> Void = { number in
        received.store(number, ordering: .relaxed)
        let pid = child.load(ordering: .relaxed)
        if pid > 0 { kill(pid, number) }
    }
}
