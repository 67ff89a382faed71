import Foundation
import TestSupport
import Testing
import UserDebugKit
import X11Clipboard

@Suite("Clipboard manager hand-off", .processDeadline(600), .desktopTier)
struct ManagerTests {
    /// Handing off at once, with a new owner per copy as every test here watches its own owner.
    let handingOff = OwnerPolicy(handOffAtOnce: true, reuseOwner: false)

    /// Debian's cinnamon-settings-daemon clipboard plugin (csd-clipboard) implements SAVE_TARGETS
    /// and fetches everything with one MULTIPLE request.
    @Test
    func csdClipboardKeepsOurContentAfterOurOwnerLeaves() throws {
        try withCSDClipboard { x in
            let text = Array("kept by the manager: Zoë".utf8)
            let owner = try x.clipboard.own(Payload(bytes: text))
            kill(owner.pid, SIGTERM)
            #expect(eventually { processExited(owner.pid) })
            expectSameBytes(x.readOnceOwned(), text)
        }
    }

    /// Handing off at once: the owner asks csd-clipboard to save the content as soon as it
    /// serves and leaves by itself once it is saved; the content stays pasteable, now from the
    /// manager.
    @Test
    func handingOffAtOnceLeavesNoOwnerBehindAndKeepsTheContent() throws {
        try withCSDClipboard { x in
            let text = Array("handed off at once: 名前".utf8)
            let owner = try x.clipboard(handingOff).own(Payload(bytes: text))
            #expect(
                eventually { processExited(owner.pid) }, "the owner should leave once the manager saved the content")
            expectSameBytes(x.readOnceOwned(), text)
            let out = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment)
            #expect(out.bytes == text)
        }
    }

    /// Secrets are never handed to a manager, at once or later: the owner keeps serving.
    @Test
    func aSecretIsNotHandedOffAtOnce() throws {
        try withCSDClipboard { x in
            let owner = try x.clipboard(handingOff).own(
                Payload(bytes: Array("s3cret".utf8), isSecret: true), options: CopyOptions(clearSecretAfter: nil))
            defer { kill(owner.pid, SIGKILL) }
            expectSameBytes(x.readOnceOwned(), Array("s3cret".utf8))
            #expect(!processExited(owner.pid))
        }
    }

    /// Without a manager there is nobody to hand to: the owner serves as usual.
    @Test
    func withoutAManagerHandingOffAtOnceKeepsServing() throws {
        try withXvfb { x in
            let owner = try x.clipboard(handingOff).own(Payload(text: "nobody to hand to"))
            defer { kill(owner.pid, SIGKILL) }
            expectSameBytes(x.readOnceOwned(), Array("nobody to hand to".utf8))
            #expect(!processExited(owner.pid))
        }
    }

    /// A manager that never answers (xfce4-clipman) gets asked, the bound passes, and the owner
    /// goes on serving rather than leaving the content with nobody.
    @Test
    func aSilentManagerDoesNotEndAHandOffAtOnceServing() throws {
        try withXvfb { x in
            let manager = try Peer.start([Peer.python, "-c", Peer.silentManager], environment: x.environment)
            defer {
                manager.kill()
                manager.wait()
            }
            #expect(manager.receiveLine() == "owning")
            var bounded = handingOff
            bounded.handOffTimeout = 0.2
            let owner = try x.clipboard(bounded).own(Payload(text: "still served"))
            defer { kill(owner.pid, SIGKILL) }
            #expect(manager.receiveLine()?.hasPrefix("request SAVE_TARGETS ") == true)
            usleep(600_000)  // past the 0.2 s bound: not a timing assertion, the owner must simply still be there
            expectSameBytes(x.readOnceOwned(), Array("still served".utf8))
            #expect(!processExited(owner.pid))
        }
    }

    /// A manager that owns CLIPBOARD_MANAGER and never answers (xfce4-clipman) must not keep us.
    @Test func aSilentManagerDoesNotKeepOurOwnerBeyondTheHandOffBound() throws {
        try withXvfb { x in
            let manager = try Peer.start([Peer.python, "-c", Peer.silentManager], environment: x.environment)
            defer {
                manager.kill()
                manager.wait()
            }
            #expect(manager.receiveLine() == "owning")
            let owner = try x.clipboard(OwnerPolicy(handOffTimeout: 0.3, reuseOwner: false)).own(
                Payload(text: "nobody saves me"))
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
