import Foundation

/// A private KWin or mutter for one test, as the unprivileged test account in a runtime directory
/// of its own (0700), with its XWayland. Stopped by pid at the end, with every process it started
/// (XWayland, its session application, its session bus), whatever killed it before.
///
/// - KWin 5.27: `kwin_wayland --virtual --xwayland`, offering data-control (wl-clipboard reads
///   and writes its clipboard natively). Debian's binary carries `cap_sys_resource`, which exec
///   refuses in a container without that capability: a copy of the binary, which has no file
///   capability, is run instead. Its session application (a shell that writes XWayland's DISPLAY
///   and sleeps) outlives a killed KWin: it is ended by pid.
/// - mutter 43: `mutter --wayland --headless --virtual-monitor 1280x800` inside
///   `dbus-run-session` (mutter needs a session bus), XWayland started with it, with an
///   Xauthority file. No data-control and no keyboard on its seat, so wl-clipboard cannot use its
///   clipboard; X11 clients of its XWayland can, and mutter's clipboard manager keeps a copy of
///   every text copied and sets it again when its owner is gone.
public final class FullDesktop: @unchecked Sendable {
    /// Which compositor.
    public enum Kind: String, Sendable {
        case kwin, mutter
    }

    /// Which compositor this is.
    public let kind: Kind
    /// Its runtime directory (XDG_RUNTIME_DIR).
    public let runtimeDir: String
    /// The Wayland socket name (`WAYLAND_DISPLAY`, inside `runtimeDir`).
    public let socket: String
    /// The DISPLAY of its XWayland, e.g. `:3`.
    public let xDisplay: String
    /// XWayland's Xauthority file, when it requires one (mutter).
    public let xAuthority: String?
    /// The account it runs as.
    public let account: TestUser.Account
    /// The process spawned (KWin itself, or `dbus-run-session` around mutter).
    public let process: Spawned
    /// The compositor's own pid (KWin, or mutter under `dbus-run-session`).
    public let compositorPid: Int32
    /// Every process below `process` seen so far: killed by `stop` even when reparented.
    private var tree: Set<Int32>
    private var stopped = false

    private init(
        kind: Kind, runtimeDir: String, socket: String, x: (display: String, authority: String?),
        account: TestUser.Account, process: Spawned, compositorPid: Int32, tree: Set<Int32>
    ) {
        self.kind = kind
        self.runtimeDir = runtimeDir
        self.socket = socket
        self.xDisplay = x.display
        self.xAuthority = x.authority
        self.account = account
        self.process = process
        self.compositorPid = compositorPid
        self.tree = tree
    }

    /// Starts a fresh `kind` and waits until its Wayland socket exists and its XWayland answers.
    public static func start(_ kind: Kind) throws -> FullDesktop {
        let account = try TestUser.ensure()
        var template = Array("/tmp/userdebug-\(kind.rawValue)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw FixtureError("mkdtemp failed: errno \(errno)")
        }
        let dir = String(cString: made)
        guard chown(dir, account.uid, account.gid) == 0, chmod(dir, 0o700) == 0 else {
            throw FixtureError("chown/chmod \(dir) failed: errno \(errno)")
        }
        let socket = "wayland-0"  // its own runtime directory: the name a session's compositor takes
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": dir, "XDG_RUNTIME_DIR": dir, "LANG": "C.UTF-8",
        ]
        let arguments: [String]
        switch kind {
        case .kwin:
            // A copy has no file capability (exec of the original fails with EPERM here). Copied by
            // /bin/cp: written from this process, a child another test forks meanwhile would hold
            // it open for writing, and KWin's exec failed with ETXTBSY (the ASan tier saw it).
            let copy = dir + "/kwin_wayland"
            do {
                try copyExecutable("/usr/bin/kwin_wayland", to: copy)
            } catch {
                try? FileManager.default.removeItem(atPath: dir)
                throw error
            }
            let app = "echo \"$DISPLAY\" > \(dir)/display.tmp && mv \(dir)/display.tmp \(dir)/display; exec sleep 600"
            arguments = [
                copy, "--virtual", "--xwayland", "--socket", socket, "--no-lockscreen", "--no-global-shortcuts",
                "--no-kactivities", "--exit-with-session", "/bin/sh -c '\(app)'",
            ]
        case .mutter:
            arguments = [
                "/usr/bin/dbus-run-session", "--", "/usr/bin/mutter", "--wayland", "--headless",
                "--virtual-monitor", "1280x800", "--wayland-display=\(socket)",
            ]
        }
        let process = try Spawned.start(TestUser.runningAs(account) + arguments, environment: environment)
        var tree = Set<Int32>()
        var x: (display: String, authority: String?)? = nil
        _ = eventually(timeout: 60) {
            tree.formUnion(Weston.descendants(of: process.pid))
            x = x ?? xwayland(among: tree)
            return x != nil && access(dir + "/" + socket, F_OK) == 0 || processExited(process.pid)
        }
        let compositor = kind == .kwin ? process.pid : tree.first { command($0).first == "/usr/bin/mutter" }
        guard let x, let compositor, access(dir + "/" + socket, F_OK) == 0 else {
            stopTree(process, tree)
            try? FileManager.default.removeItem(atPath: dir)
            throw FixtureError("\(kind.rawValue) did not start in \(dir) (XWayland \(x?.display ?? "none"))")
        }
        let desktop = FullDesktop(
            kind: kind, runtimeDir: dir, socket: socket, x: x, account: account, process: process,
            compositorPid: compositor, tree: tree)
        // XWayland answers only once the compositor has set it up.
        let ready = eventually(timeout: 30) {
            desktop.tree.formUnion(Weston.descendants(of: process.pid))
            let probe = try? Peer.read(
                TestUser.runningAs(account) + ["xdpyinfo"], environment: desktop.environment, limit: 5)
            return probe?.status == 0
        }
        guard ready else {
            desktop.stop()
            throw FixtureError("\(kind.rawValue)'s XWayland on \(x.display) did not answer")
        }
        return desktop
    }

    /// The environment of a client of this compositor (Wayland socket, XWayland display).
    public var environment: [String: String] {
        var env = ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": runtimeDir, "XDG_RUNTIME_DIR": runtimeDir]
        env["WAYLAND_DISPLAY"] = socket
        env["DISPLAY"] = xDisplay
        if let xAuthority { env["XAUTHORITY"] = xAuthority }
        return env
    }

    /// Kills the compositor itself (not its session bus) under its clients.
    public func killCompositor() {
        tree.formUnion(Weston.descendants(of: process.pid))
        _ = Glibc.kill(compositorPid, SIGKILL)
    }

    /// Kills the compositor, its XWayland, its application and its session bus by pid; removes
    /// its directory.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        Self.stopTree(process, tree)
        try? FileManager.default.removeItem(atPath: runtimeDir)
    }

    private static func stopTree(_ process: Spawned, _ seen: Set<Int32>) {
        let tree = seen.union(Weston.descendants(of: process.pid))
        process.kill(SIGKILL)
        for pid in tree { _ = Glibc.kill(pid, SIGKILL) }
        process.wait()
        for pid in tree { _ = eventually(timeout: 5) { processExited(pid) } }
    }

    /// The argv of `pid` (empty once it is gone).
    static func command(_ pid: Int32) -> [String] {
        (readWholeFile("/proc/\(pid)/cmdline") ?? []).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The display (and `-auth` file) of the XWayland among `pids`.
    static func xwayland(among pids: Set<Int32>) -> (display: String, authority: String?)? {
        for pid in pids {
            let argv = command(pid)
            guard argv.first?.hasSuffix("Xwayland") == true, argv.count > 1, argv[1].hasPrefix(":") else { continue }
            let auth = argv.firstIndex(of: "-auth").flatMap { $0 + 1 < argv.count ? argv[$0 + 1] : nil }
            return (argv[1], auth)
        }
        return nil
    }
}
