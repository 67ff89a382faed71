public import Foundation

/// A clipboard manager packaged in Debian 12, run for real on a test's Xvfb, with a home of its
/// own and a private D-Bus session bus: what it honours and keeps is then read from its history
/// as a user would (its command-line client or its history file).
public struct HistoryManager: Sendable, CustomStringConvertible {
    /// Its name and Debian 12 version, as README's table names it.
    public let description: String
    /// The command that runs it (an absolute path first).
    let command: [String]
    /// Its process name (`/proc/PID/comm`): the program's file name.
    public var processName: String { URL(fileURLWithPath: command[0]).lastPathComponent }
    /// Reads its history: the bytes in which a copied text shows up if it was kept.
    let history: @Sendable (RunningManager) -> [UInt8]

    /// CopyQ 6.4: history from `copyq eval` (every item of the clipboard tab).
    public static let copyQ = HistoryManager(description: "CopyQ 6.4", command: ["/usr/bin/copyq"]) { manager in
        let script = "var items = []; for (var i = 0; i < size(); ++i) items.push(str(read(i))); items.join('\\n')"
        return manager.client(["/usr/bin/copyq", "eval", "--", script])
    }

    /// GPaste 43.1: history from `gpaste-client history --raw`.
    public static let gPaste = HistoryManager(
        description: "GPaste 43.1", command: ["/usr/libexec/gpaste/gpaste-daemon"]
    ) { manager in
        manager.client(["/usr/bin/gpaste-client", "history", "--raw"])
    }

    /// Diodon 1.13: history kept by Zeitgeist (activated on the private bus) in its database.
    public static let diodon = HistoryManager(description: "Diodon 1.13", command: ["/usr/bin/diodon"]) { manager in
        manager.files([".local/share/zeitgeist/activity.sqlite", ".local/share/zeitgeist/activity.sqlite-wal"])
    }

    /// Parcellite 1.2.1 without its tray icon: history in ~/.local/share/parcellite/history.
    public static let parcellite = HistoryManager(
        description: "Parcellite 1.2.1", command: ["/usr/bin/parcellite", "-n"]
    ) { manager in
        manager.files([".local/share/parcellite/history"])
    }

    /// ClipIt 1.4.4: Debian 12's /usr/bin/clipit only shows a deprecation notice and disables
    /// itself, so the real program, clipit.real, is run; history in ~/.local/share/clipit/history.
    public static let clipIt = HistoryManager(
        description: "ClipIt 1.4.4", command: ["/usr/bin/clipit.real", "-n"]
    ) { manager in
        manager.files([".local/share/clipit/history"])
    }

    /// xfce4-clipman 1.6.2 (settings from xfconfd, activated on the private bus): history in
    /// ~/.cache/xfce4/clipman/textsrc.
    public static let xfce4Clipman = HistoryManager(
        description: "xfce4-clipman 1.6.2", command: ["/usr/bin/xfce4-clipman"]
    ) { manager in
        manager.files([".cache/xfce4/clipman/textsrc"])
    }
}

/// A manager running on a display: its home, its bus and its process.
public struct RunningManager: Sendable {
    /// Its private home (also its XDG runtime directory's parent).
    public let home: URL
    /// The environment it runs in; its clients need the same.
    public let environment: [String: String]
    let manager: HistoryManager

    /// Its history, as bytes to search.
    public var history: [UInt8] { manager.history(self) }

    /// Whether its history holds `text`.
    public func keeps(_ text: String) -> Bool {
        let needle = Array(text.utf8)
        let haystack = history
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    func client(_ arguments: [String]) -> [UInt8] {
        (try? Peer.read(arguments, environment: environment, limit: 20))?.bytes ?? []
    }

    func files(_ paths: [String]) -> [UInt8] {
        paths.flatMap { readWholeFile(home.appendingPathComponent($0).path) ?? [] }
    }
}

/// Runs `body` with `manager` watching the clipboard of `x`: a private dbus-daemon session bus
/// and the manager, both in a fresh home. Afterwards both are killed by process id, and so is
/// any program the bus activated (Zeitgeist, xfconfd: found by that home in their environment).
public func withHistoryManager(_ manager: HistoryManager, on x: Xvfb, _ body: (RunningManager) throws -> Void) throws {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("ud-manager-\(UUID().uuidString)")
    let runtime = home.appendingPathComponent("run")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
    chmod(runtime.path, 0o700)
    defer { try? FileManager.default.removeItem(at: home) }
    var environment = x.environment
    environment["HOME"] = home.path
    environment["XDG_RUNTIME_DIR"] = runtime.path
    environment["NO_AT_BRIDGE"] = "1"  // no accessibility bus to outlive the test
    environment["GDK_BACKEND"] = "x11"
    environment["QT_QPA_PLATFORM"] = "xcb"
    for key in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "WAYLAND_DISPLAY"] {
        environment.removeValue(forKey: key)
    }
    let bus = try Peer.start(
        [
            "/usr/bin/dbus-daemon", "--session", "--nofork", "--address=unix:path=\(runtime.path)/bus",
            "--print-address=1",
        ],
        environment: environment)
    defer {
        stopAll(bus.pid, home: home)
        close(bus.output)
    }
    guard let address = bus.receiveLine(), address.hasPrefix("unix:") else {
        throw FixtureError("the private dbus-daemon did not start")
    }
    environment["DBUS_SESSION_BUS_ADDRESS"] = address
    let process = try Spawned.start(manager.command, environment: environment)
    defer { stopAll(process.pid, home: home) }
    try body(RunningManager(home: home, environment: environment, manager: manager))
}

/// Stops `pid` (SIGTERM, then SIGKILL past a bound) and every process whose environment names
/// `home` as HOME: what the bus activated for the manager.
private func stopAll(_ pid: Int32, home: URL) {
    for target in [pid] + processes(withHome: home) {
        kill(target, SIGTERM)
        if !eventually(timeout: 5, { processExited(target) }) { kill(target, SIGKILL) }
        var status: Int32 = 0
        _ = waitpid(target, &status, WNOHANG)
    }
}

private func processes(withHome home: URL) -> [Int32] {
    let marker = Array("HOME=\(home.path)".utf8)
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
    return pids.filter { pid in
        guard pid != getpid(), !processExited(pid), let environ = readWholeFile("/proc/\(pid)/environ") else {
            return false
        }
        return environ.split(separator: 0).contains { Array($0) == marker }
    }
}
