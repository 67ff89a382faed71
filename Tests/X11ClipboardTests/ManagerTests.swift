import TestSupport
import Foundation
import Testing
import UserDebugKit
import X11Clipboard

@Suite("Clipboard manager hand-off")
struct ManagerTests {
    /// Debian's cinnamon-settings-daemon clipboard plugin (csd-clipboard) implements SAVE_TARGETS
    /// and fetches everything with one MULTIPLE request.
    @Test
    func csdClipboardKeepsOurContentAfterOurOwnerLeaves() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/csd-clipboard"),
            "csd-clipboard is missing: Scripts/deps.sh installs cinnamon-settings-daemon")
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
            let present = try Peer.read([Peer.python, "-c", Peer.managerPresent], environment: x.environment)
            #expect(String(decoding: present.bytes, as: UTF8.self) == "yes\n")

            let text = Array("kept by the manager: Zoë".utf8)
            let owner = try x.clipboard.own(Payload(bytes: text), options: CopyOptions())
            kill(owner.pid, SIGTERM)
            #expect(eventually { processExited(owner.pid) })
            expectSameBytes(x.readOnceOwned(), text)
        }
    }

    /// A manager that owns CLIPBOARD_MANAGER and never answers (xfce4-clipman) must not keep us.
    @Test func aSilentManagerDoesNotKeepOurOwnerBeyondTheHandOffBound() throws {
        try withXvfb { x in
            let manager = try Peer.start([Peer.python, "-c", Peer.silentManager], environment: x.environment)
            defer { manager.kill(); manager.wait() }
            #expect(manager.receiveLine() == "owning")
            let clipboard = X11Clipboard(display: x.display, handOffTimeout: 0.3)
            let owner = try clipboard.own(Payload(text: "nobody saves me"), options: CopyOptions())
            kill(owner.pid, SIGTERM)
            #expect(eventually { processExited(owner.pid) })
            // The request it ignored: SAVE_TARGETS with a parameter property and, as ICCCM
            // asks, a real server timestamp rather than CurrentTime (0).
            let words = (manager.receiveLine() ?? "").split(separator: " ")
            #expect(words.count == 4 && words[0] == "request" && words[1] == "SAVE_TARGETS", "\(words)")
            #expect(words.count == 4 && (UInt32(words[2]) ?? 0) != 0, "\(words)")
            #expect(words.count == 4 && words[3] != "None", "\(words)")
        }
    }
}
