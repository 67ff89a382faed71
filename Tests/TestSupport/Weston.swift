import Foundation
import UserDebugKit
@_spi(Testing) import X11Clipboard

/// A private weston for one test: the X11 backend on a fresh Xvfb (`weston
/// --backend=x11-backend.so --xwayland`), its own runtime directory (0700) and socket name, and
/// XWayland on the display weston picks. weston offers no data-control protocol, so this is the
/// XWayland-bridge route of GNOME-like compositors. Everything is stopped by pid at the end.
public final class Weston: @unchecked Sendable {
    /// The Xvfb weston draws into (its X11 backend's host display).
    public let host: Xvfb
    /// weston's process.
    public let process: Spawned
    /// The runtime directory holding the Wayland socket.
    public let runtimeDir: String
    /// The Wayland socket name (`WAYLAND_DISPLAY`).
    public let socket: String
    /// XWayland's display, e.g. `:3` (`DISPLAY` for X11 clients of this compositor).
    public let xwayland: String
    private var stopped = false

    private init(host: Xvfb, process: Spawned, runtimeDir: String, socket: String, xwayland: String) {
        self.host = host
        self.process = process
        self.runtimeDir = runtimeDir
        self.socket = socket
        self.xwayland = xwayland
    }

    /// Starts Xvfb, then weston on it, and waits until weston's socket exists and XWayland
    /// answers on the display weston names (weston starts it on the first X11 client, which on a
    /// loaded machine takes longer than a copy's 1 s connect timeout: the first client is ours).
    public static func start() throws -> Weston {
        let host = try Xvfb.start()
        let runtimeDir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "userdebug-weston-\(UUID().uuidString)"
        ).path
        do {
            guard mkdir(runtimeDir, 0o700) == 0 else { throw FixtureError("mkdir \(runtimeDir) failed") }
            let socket = "wayland-0"  // its own runtime directory: the name a session's compositor takes
            var environment = ProcessInfo.processInfo.environment
            environment["DISPLAY"] = host.display
            environment["XDG_RUNTIME_DIR"] = runtimeDir
            environment.removeValue(forKey: "WAYLAND_DISPLAY")
            environment.removeValue(forKey: "XAUTHORITY")
            let log = runtimeDir + "/weston.log"
            let process = try Spawned.start(
                [
                    "/usr/bin/weston", "--backend=x11-backend.so", "--xwayland", "--no-config", "--idle-time=0",
                    "--socket=\(socket)", "--log=\(log)",
                ], environment: environment)
            var display: String? = nil
            let ready = eventually(timeout: 30) {
                display = display ?? xwaylandDisplay(inLog: log)
                guard let display, access(runtimeDir + "/" + socket, F_OK) == 0 else { return false }
                if case .success = X11Display.probe(display, timeout: 5) { return true }
                return false
            }
            guard ready, let display else {
                let text = String(decoding: readWholeFile(log) ?? [], as: UTF8.self)
                stopTree(process)
                throw FixtureError("weston did not start (log: \(text.suffix(2000)))")
            }
            return Weston(host: host, process: process, runtimeDir: runtimeDir, socket: socket, xwayland: display)
        } catch {
            host.stop()
            try? FileManager.default.removeItem(atPath: runtimeDir)
            throw error
        }
    }

    /// The environment of a client of this compositor: its Wayland socket and XWayland's display.
    public var environment: [String: String] {
        var env = host.environment
        env["DISPLAY"] = xwayland
        env["WAYLAND_DISPLAY"] = socket
        env["XDG_RUNTIME_DIR"] = runtimeDir
        return env
    }

    /// Stops weston (SIGTERM, which stops XWayland and weston's own clients; whatever of them is
    /// left after the deadline is killed by pid), then Xvfb, and removes the runtime directory.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        // weston gone before its test ended (a crash of its XWayland bridge, say) shows in the
        // test as refused connections; its log says why, and is removed below.
        if processExited(process.pid) {
            let text = String(decoding: readWholeFile(runtimeDir + "/weston.log") ?? [], as: UTF8.self)
            let message = "weston exited during the test; its log ends:\n\(text.suffix(3000))\n"
            FileHandle.standardError.write(Data(message.utf8))
        }
        Self.stopTree(process)
        host.stop()
        try? FileManager.default.removeItem(atPath: runtimeDir)
    }

    /// The display in weston's `xserver listening on display :N` line, once it is written.
    static func xwaylandDisplay(inLog path: String) -> String? {
        let text = String(decoding: readWholeFile(path) ?? [], as: UTF8.self)
        guard let range = text.range(of: "xserver listening on display ") else { return nil }
        let digits = text[range.upperBound...].prefix { $0 == ":" || $0.isNumber }
        return digits.count > 1 ? String(digits) : nil
    }

    /// SIGTERM to `process`, then SIGKILL to it and to every descendant still there.
    static func stopTree(_ process: Spawned) {
        let descendants = descendants(of: process.pid)
        process.kill(SIGTERM)
        if !eventually(timeout: 10, { processExited(process.pid) }) { process.kill(SIGKILL) }
        process.wait()
        for pid in descendants where !eventually(timeout: 5, { processExited(pid) }) {
            kill(pid, SIGKILL)
        }
    }

    /// The processes below `root`, from the parent ids in /proc.
    static func descendants(of root: pid_t) -> [pid_t] {
        var parents: [pid_t: pid_t] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = readWholeFile("/proc/\(pid)/stat") else { continue }
            let text = String(decoding: stat, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { parents[pid] = parent }
        }
        var found: [pid_t] = []
        var frontier = [root]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            found += children
            frontier += children
        }
        return found
    }
}

/// Runs `body` with a fresh weston (and its Xvfb) that is stopped afterwards, whatever happens.
public func withWeston<R>(_ body: (Weston) throws -> R) throws -> R {
    let weston = try Weston.start()
    defer { weston.stop() }
    return try body(weston)
}
