import Foundation

/// Runs `body` on a fresh Xvfb whose clipboard is managed by Debian's csd-clipboard
/// (cinnamon-settings-daemon's plugin, run under its own D-Bus session), once the manager owns
/// CLIPBOARD_MANAGER. Both are stopped afterwards.
public func withCSDClipboard(_ body: (Xvfb) throws -> Void) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/csd-clipboard") else {
        throw FixtureError("csd-clipboard is missing: Scripts/deps.sh --test installs cinnamon-settings-daemon")
    }
    try withXvfb { x in
        var environment = x.environment
        environment["NO_AT_BRIDGE"] = "1"  // no accessibility bus to outlive the test
        let manager = try Peer.start(
            ["/usr/bin/dbus-run-session", "--", "/usr/bin/csd-clipboard"], environment: environment)
        defer {
            // csd-clipboard exits when its display goes; dbus-run-session then stops its bus.
            x.stop()
            if !eventually({ processExited(manager.pid) }) { manager.kill() }
            manager.wait()
        }
        let present = try Peer.read(["/usr/bin/python3", "-c", managerPresent], environment: x.environment)
        guard String(decoding: present.bytes, as: UTF8.self) == "yes\n" else {
            throw FixtureError("csd-clipboard did not take CLIPBOARD_MANAGER")
        }
        try body(x)
    }
}

/// Prints "yes" once CLIPBOARD_MANAGER has an owner (within 10 s), else "no".
let managerPresent = """
    import time
    from Xlib import display
    d = display.Display()
    a = d.intern_atom('CLIPBOARD_MANAGER')
    for _ in range(200):
        o = d.get_selection_owner(a)
        if getattr(o, 'id', o): print('yes'); break
        time.sleep(0.05)
    else: print('no')
    """
