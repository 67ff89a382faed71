import Foundation
public import WaylandClipboard

/// A private headless sway for one test (wlroots' headless backend, pixman renderer, no input
/// devices, XWayland on), run as the unprivileged test account since sway refuses root, with a
/// runtime directory of its own. Stopped by pid, its children (XWayland) first, at the end.
public final class Sway: @unchecked Sendable {
    /// Its runtime directory (XDG_RUNTIME_DIR), owned by the test account, mode 0700.
    public let runtimeDir: String
    /// The absolute path of the Wayland socket it listens on (a valid WAYLAND_DISPLAY).
    public let socket: String
    /// The DISPLAY of its XWayland (started on the first X client), e.g. `:3`.
    public let xDisplay: String
    /// The sway process.
    public let process: Spawned
    /// The account it runs as.
    public let account: TestUser.Account
    private var stopped = false
    private var spawned: [Spawned] = []

    private init(runtimeDir: String, socket: String, xDisplay: String, process: Spawned, account: TestUser.Account) {
        self.runtimeDir = runtimeDir
        self.socket = socket
        self.xDisplay = xDisplay
        self.process = process
        self.account = account
    }

    /// Starts a fresh headless sway and waits until it answers on its Wayland socket and has
    /// told its XWayland DISPLAY.
    public static func start() throws -> Sway {
        let account = try TestUser.ensure()
        let dir = try makeRuntimeDir(account)
        let config = dir + "/sway.conf"
        // No output, bar or input configuration: the headless backend has one virtual output.
        let text = """
            xwayland enable
            exec echo "$DISPLAY" > \(dir)/display.tmp && mv \(dir)/display.tmp \(dir)/display

            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        chown(config, account.uid, account.gid)
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": dir, "XDG_RUNTIME_DIR": dir, "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "LANG": "C.UTF-8",
        ]
        let process = try Spawned.start(
            TestUser.runningAs(account) + ["/usr/bin/sway", "-c", config], environment: environment)
        var socket: String?
        var display: String?
        _ = eventually(timeout: 20) {
            socket = socket ?? waylandSocket(in: dir)
            display = readWholeFile(dir + "/display").map { String(decoding: $0, as: UTF8.self) }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            return socket != nil && !(display ?? "").isEmpty || processExited(process.pid)
        }
        guard let socket, let display, !display.isEmpty else {
            stopTree(process)
            try? FileManager.default.removeItem(atPath: dir)
            throw FixtureError(
                "sway did not start in \(dir) (socket \(socket ?? "none"), DISPLAY \(display ?? "none"))")
        }
        return Sway(runtimeDir: dir, socket: socket, xDisplay: display, process: process, account: account)
    }

    private static func makeRuntimeDir(_ account: TestUser.Account) throws -> String {
        var template = Array("/tmp/userdebug-sway-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw FixtureError("mkdtemp failed: errno \(errno)")
        }
        let dir = String(cString: made)
        guard chown(dir, account.uid, account.gid) == 0, chmod(dir, 0o700) == 0 else {
            throw FixtureError("chown/chmod \(dir) failed: errno \(errno)")
        }
        return dir
    }

    private static func waylandSocket(in dir: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        guard let name = names.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }) else {
            return nil
        }
        return dir + "/" + name
    }

    /// Kills the programs it started (XWayland), then sway, by pid; removes its directory.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        for child in spawned {
            child.kill()
            child.wait()
        }
        // wlroots double-forks XWayland, so it is not sway's child: found by its DISPLAY and owner.
        let xwayland = Self.pids(owner: account.uid, commandPrefix: "Xwayland\0\(xDisplay)\0")
        Self.stopTree(process)
        for pid in xwayland { _ = Glibc.kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: runtimeDir)
    }

    /// The processes of `owner` whose command line (NUL-separated) starts with `commandPrefix`.
    static func pids(owner: uid_t, commandPrefix: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            var info = stat()
            guard stat("/proc/\(pid)", &info) == 0, info.st_uid == owner,
                let line = readWholeFile("/proc/\(pid)/cmdline")
            else { return false }
            return line.starts(with: Array(commandPrefix.utf8))
        }
    }

    private static func stopTree(_ process: Spawned) {
        // setpriv execs sway, so the spawned pid is sway's; its children are XWayland and `exec`s.
        for child in childPids(of: process.pid) { _ = Glibc.kill(child, SIGKILL) }
        process.kill(SIGKILL)
        process.wait()
    }

    /// The processes whose parent is `pid`, from /proc.
    public static func childPids(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            guard let stat = readWholeFile("/proc/\(candidate)/stat") else { return false }
            let text = String(decoding: stat, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { return false }
            let fields = text[text.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    /// Environment for peers (wl-copy, wl-paste) and for our binary: this compositor only, no X.
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["WAYLAND_DISPLAY"] = socket
        env["XDG_RUNTIME_DIR"] = runtimeDir
        env.removeValue(forKey: "DISPLAY")
        env.removeValue(forKey: "SWAYSOCK")
        env["LC_ALL"] = "C.UTF-8"
        return env
    }

    /// Our clipboard on this compositor with a new owner process for every copy (most tests watch
    /// the process serving each copy); the resident owner's tests use `clipboard(reuseOwner:)`.
    public var clipboard: WaylandClipboard { clipboard(reuseOwner: false) }

    /// Our clipboard on this compositor, handing copies to a serving process of ours or not.
    public func clipboard(reuseOwner: Bool) -> WaylandClipboard {
        WaylandClipboard(display: socket, runtimeDir: runtimeDir, reuseOwner: reuseOwner)
    }

    /// Starts `arguments` as the test account with this compositor's environment (and its XWayland
    /// DISPLAY when `x11`); killed by `stop`.
    @discardableResult
    public func startWindow(_ arguments: [String], x11: Bool = false) throws -> Spawned {
        var env = ["PATH": "/usr/bin:/bin", "HOME": runtimeDir, "XDG_RUNTIME_DIR": runtimeDir, "LANG": "C.UTF-8"]
        if x11 { env["DISPLAY"] = xDisplay } else { env["WAYLAND_DISPLAY"] = socket }
        let child = try Spawned.start(TestUser.runningAs(account) + arguments, environment: env)
        spawned.append(child)
        return child
    }

    /// Runs swaymsg on this compositor's IPC socket.
    public func swaymsg(_ arguments: [String]) throws -> Peer.Output {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDir)) ?? []
        guard let ipc = names.first(where: { $0.hasPrefix("sway-ipc.") }) else {
            throw FixtureError("no sway IPC socket in \(runtimeDir)")
        }
        return try Peer.read(
            ["swaymsg", "-s", runtimeDir + "/" + ipc] + arguments, environment: environment, limit: 20)
    }

    /// Waits until a window of `pid` exists and has the keyboard focus (asking sway to focus it).
    public func focus(pid: Int32) -> Bool {
        eventually(timeout: 20) {
            guard (try? swaymsg(["[pid=\(pid)] focus"]))?.status == 0 else { return false }
            let tree = (try? swaymsg(["-t", "get_tree"])).map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
            return Self.focusedPid(tree) == pid
        }
    }

    private static func focusedPid(_ tree: String) -> Int32? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(tree.utf8)) else { return nil }
        var stack: [Any] = [json]
        while let node = stack.popLast() as? [String: Any] {
            if node["focused"] as? Bool == true, let pid = node["pid"] as? Int { return Int32(pid) }
            stack += (node["nodes"] as? [Any] ?? []) + (node["floating_nodes"] as? [Any] ?? [])
        }
        return nil
    }
}

/// Runs `body` with a fresh headless sway that is stopped afterwards, whatever happens.
public func withSway<R>(_ body: (Sway) throws -> R) throws -> R {
    let sway = try Sway.start()
    defer { sway.stop() }
    return try body(sway)
}
