import Foundation

/// A private headless cage for one test (the wlroots kiosk compositor: no data-control protocol,
/// XWayland on), run as the unprivileged test account with a runtime directory of its own. Its
/// one application is a shell that writes the DISPLAY of cage's XWayland and sleeps. Stopped by
/// pid, with its XWayland, at the end.
///
/// No seat device here (WLR_LIBINPUT_NO_DEVICES), so no keyboard: wl-clipboard, which needs
/// keyboard focus where data-control is missing, cannot use cage's clipboard at all; X11
/// clients of its XWayland can.
public final class Cage: @unchecked Sendable {
    /// Its runtime directory (XDG_RUNTIME_DIR), owned by the test account, mode 0700.
    public let runtimeDir: String
    /// The absolute path of its Wayland socket.
    public let socket: String
    /// The DISPLAY of its XWayland, e.g. `:3`.
    public let xDisplay: String
    /// The cage process.
    public let process: Spawned
    /// The account it runs as.
    public let account: TestUser.Account
    /// Its application's pid (the shell, then `sleep`).
    private let app: Int32
    /// The X11 windows `focusX11Window` started, stopped with cage.
    private var windows: [Spawned] = []
    private var stopped = false

    private init(
        runtimeDir: String, socket: String, xDisplay: String, process: Spawned, app: Int32, account: TestUser.Account
    ) {
        self.runtimeDir = runtimeDir
        self.app = app
        self.socket = socket
        self.xDisplay = xDisplay
        self.process = process
        self.account = account
    }

    /// Starts a fresh headless cage and waits until its socket exists and its application has
    /// told the XWayland DISPLAY.
    public static func start() throws -> Cage {
        let account = try TestUser.ensure()
        var template = Array("/tmp/userdebug-cage-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw FixtureError("mkdtemp failed: errno \(errno)")
        }
        let dir = String(cString: made)
        guard chown(dir, account.uid, account.gid) == 0, chmod(dir, 0o700) == 0 else {
            throw FixtureError("chown/chmod \(dir) failed: errno \(errno)")
        }
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": dir, "XDG_RUNTIME_DIR": dir, "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "LANG": "C.UTF-8",
        ]
        // The application's pid first (it outlives a killed cage: `stop` ends it by that pid).
        let script =
            "echo $$ > \(dir)/app; echo \"$DISPLAY\" > \(dir)/display.tmp && mv \(dir)/display.tmp \(dir)/display; "
            + "exec sleep 600"
        let process = try Spawned.start(
            TestUser.runningAs(account) + ["/usr/bin/cage", "--", "/bin/sh", "-c", script], environment: environment)
        var display: String?
        let socket = dir + "/wayland-0"
        _ = eventually(timeout: 20) {
            display = readWholeFile(dir + "/display").map { String(decoding: $0, as: UTF8.self) }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            return access(socket, F_OK) == 0 && !(display ?? "").isEmpty || processExited(process.pid)
        }
        let app = readWholeFile(dir + "/app").flatMap {
            Int32(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let display, !display.isEmpty, access(socket, F_OK) == 0, let app else {
            stopTree(process, account: account, display: nil, app: app)
            try? FileManager.default.removeItem(atPath: dir)
            throw FixtureError("cage did not start in \(dir) (DISPLAY \(display ?? "none"))")
        }
        return Cage(
            runtimeDir: dir, socket: socket, xDisplay: display, process: process, app: app, account: account)
    }

    /// Maps an X11 window (xmessage, as the account) on cage's XWayland, which cage, a kiosk,
    /// shows and focuses as its newest view, and waits until its window manager names an active
    /// X11 window (`_NET_ACTIVE_WINDOW` on the root, read with xprop): cage takes an X11
    /// selection over only then. False: no active X11 window within the deadline.
    public func focusX11Window() throws -> Bool {
        let environment = ["DISPLAY": xDisplay, "PATH": "/usr/bin:/bin", "HOME": runtimeDir, "LANG": "C.UTF-8"]
        windows.append(
            try Spawned.start(
                TestUser.runningAs(account) + ["xmessage", "-geometry", "200x50", "x11 window"],
                environment: environment))
        return eventually(timeout: 20) { self.activeX11Window() }
    }

    /// Whether `_NET_ACTIVE_WINDOW` on cage's XWayland root names a window.
    public func activeX11Window() -> Bool {
        let environment = ["DISPLAY": xDisplay, "PATH": "/usr/bin:/bin"]
        guard
            let out = try? Peer.read(
                TestUser.runningAs(account) + ["xprop", "-root", "_NET_ACTIVE_WINDOW"], environment: environment,
                limit: 10), out.status == 0
        else { return false }
        let text = String(decoding: out.bytes, as: UTF8.self)
        guard let range = text.range(of: "window id # ") else { return false }
        let id = text[range.upperBound...].prefix { !$0.isWhitespace && $0 != "," }
        return !id.isEmpty && id != "0x0"
    }

    /// Kills cage, its application and its XWayland by pid; removes its directory.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        for window in windows {
            window.kill(SIGKILL)
            _ = window.wait()
        }
        Self.stopTree(process, account: account, display: xDisplay, app: app)
        try? FileManager.default.removeItem(atPath: runtimeDir)
    }

    private static func stopTree(_ process: Spawned, account: TestUser.Account, display: String?, app: Int32?) {
        // wlroots double-forks XWayland, so it is not cage's child: found by its DISPLAY and owner.
        let xwayland = display.map { Sway.pids(owner: account.uid, commandPrefix: "Xwayland\0\($0)\0") } ?? []
        for child in Sway.childPids(of: process.pid) { _ = Glibc.kill(child, SIGKILL) }
        process.kill(SIGKILL)
        process.wait()
        for pid in xwayland { _ = Glibc.kill(pid, SIGKILL) }
        // A pid of the account that still runs `sleep`: the application, even after cage was killed.
        if let app, !processExited(app), Sway.pids(owner: account.uid, commandPrefix: "sleep\0").contains(app) {
            _ = Glibc.kill(app, SIGKILL)
        }
    }
}
