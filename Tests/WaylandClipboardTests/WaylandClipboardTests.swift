import CWayland
import Foundation
import TestSupport
import Testing
import UserDebugKit

@testable import WaylandClipboard

/// The Wayland backend against a real headless sway, with wl-clipboard as the peer.
@Suite(.desktopTier) struct WaylandClipboardTests {
    static let samples: [(String, [UInt8])] = [
        ("ASCII", Array("usr_1 plain ascii".utf8)),
        ("non-ASCII", Array("Zoë 名前 🚀".utf8)),
        ("empty", []),
        ("NUL", [0x61, 0x00, 0x62, 0x00, 0x00, 0x63]),
        ("16 MiB", (0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }),
    ]

    func wlPaste(_ sway: Sway, _ arguments: [String] = []) throws -> Peer.Output {
        try Peer.read(["wl-paste", "-n"] + arguments, environment: sway.environment, limit: 30)
    }

    func wlCopy(_ sway: Sway, _ bytes: [UInt8], _ arguments: [String] = []) throws {
        let status = try Peer.own(
            ["wl-copy", "--type", "text/plain;charset=utf-8"] + arguments, input: bytes, environment: sway.environment)
        #expect(status == 0)
    }

    @Test func probeTellsTheDataControlProtocolAndWhenNothingAnswers() throws {
        try withSway { sway in
            let probe = WaylandClipboard.probe(display: sway.socket, runtimeDir: nil, timeout: 2)
            let expected = WaylandDataControl(interface: .wlr, version: 2, supportsPrimary: true, hasSeat: true)
            #expect(probe == .answers(dataControl: expected, family: .wlroots))
            let relative = (sway.socket as NSString).lastPathComponent
            #expect(WaylandClipboard.probe(display: relative, runtimeDir: sway.runtimeDir, timeout: 2) == probe)
            let missingSocket = sway.runtimeDir + "/wayland-none"
            let missing = WaylandClipboard.probe(display: missingSocket, runtimeDir: nil, timeout: 2)
            guard case .noAnswer(let reason) = missing else {
                Issue.record("a missing socket must not answer")
                return
            }
            #expect(reason.contains("wayland-none"))
        }
    }

    @Test func aCompositorThatNeverAnswersFailsAtTheDeadline() throws {
        // A socket that accepts connections (the kernel's backlog) but never reads or writes.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wl-silent-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/wayland-silent"
        let fd = try #require(UnixSocket.bound(to: path), "bind \(path): errno \(errno)")
        defer { close(fd) }
        #expect(listen(fd, 8) == 0)
        guard case .noAnswer(let reason) = WaylandClipboard.probe(display: path, runtimeDir: nil, timeout: 0.5) else {
            Issue.record("a silent compositor must not answer")
            return
        }
        #expect(reason.contains("did not answer"))
        let clipboard = WaylandClipboard(display: path, reuseOwner: false)
        do throws(ClipboardError) {
            try clipboard.copy(
                Payload(bytes: Array("x".utf8)), to: .clipboard, options: CopyOptions(connectTimeout: 0.5))
            Issue.record("a copy to a silent compositor succeeded")
        } catch {
            guard case .noDisplay = error else {
                Issue.record("expected .noDisplay, got \(error)")
                return
            }
        }
    }

    @Test func copiesAreReadByWlPasteByteForByte() throws {
        try withSway { sway in
            for (name, bytes) in Self.samples {
                try sway.clipboard.copy(Payload(bytes: bytes, kind: .text), to: .clipboard, options: CopyOptions())
                let out = try wlPaste(sway)
                #expect(out.status == 0, "\(name)")
                #expect(out.bytes == bytes, "\(name): \(out.bytes.count) bytes read of \(bytes.count)")
            }
        }
    }

    @Test func wlCopyIsReadByOurPasteByteForByte() throws {
        try withSway { sway in
            for (name, bytes) in Self.samples where !bytes.isEmpty {
                try wlCopy(sway, bytes)
                let read = try sway.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 10)
                #expect(read == bytes, "\(name): \(read.count) bytes read of \(bytes.count)")
            }
        }
    }

    @Test func primaryIsItsOwnSelectionAndTargetsListTheTypes() throws {
        try withSway { sway in
            let json = Payload(bytes: Array("{\"a\":1}".utf8), kind: .json)
            try sway.clipboard.copy(json, to: .primary, options: CopyOptions())
            #expect(try wlPaste(sway, ["--primary"]).bytes == json.bytes)
            #expect(try wlPaste(sway, ["--primary", "--type", "application/json"]).bytes == json.bytes)
            let types = String(
                decoding: try sway.clipboard.paste(selection: .primary, target: "TARGETS", timeout: 5), as: UTF8.self)
            let expected = "text/plain;charset=utf-8\ntext/plain\nUTF8_STRING\nTEXT\nSTRING\napplication/json\n"
            #expect(types.hasPrefix(expected))
            #expect(throws: ClipboardError.self) {
                try sway.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 5)
            }
        }
    }

    @Test func anotherClientsCopyEndsOurOwner() throws {
        try withSway { sway in
            let pid = try sway.clipboard.own(Payload(bytes: Array("ours".utf8), kind: .text))
            #expect(!processExited(pid))
            try wlCopy(sway, Array("theirs".utf8))
            #expect(eventually { processExited(pid) }, "the owner kept running after losing the selection")
            #expect(try wlPaste(sway).bytes == Array("theirs".utf8))
        }
    }

    @Test func aReaderThatNeverReadsDoesNotStallTheNext() throws {
        try withSway { sway in
            let bytes = [UInt8](repeating: 0x78, count: 4 << 20)
            let pid = try sway.clipboard.own(Payload(bytes: bytes, kind: .text))
            defer { kill(pid, SIGKILL) }
            // wl-paste writing into a pipe nobody reads stops reading from our owner after 64 KiB.
            let stuck = try Peer.start(["wl-paste", "-n"], environment: sway.environment)
            defer {
                stuck.kill()
                stuck.wait()
                close(stuck.output)
            }
            usleep(200_000)
            let out = try wlPaste(sway)
            #expect(out.status == 0)
            #expect(out.bytes == bytes)
        }
    }

    @Test func aSecretIsMarkedAndClearedWhileStillOurs() throws {
        try withSway { sway in
            let options = CopyOptions(clearSecretAfter: 1)
            let pid = try sway.clipboard.own(
                Payload(bytes: Array("tok".utf8), kind: .text, isSecret: true), to: .clipboard, options: options)
            let types = String(decoding: try wlPaste(sway, ["--list-types"]).bytes, as: UTF8.self)
            #expect(types.contains("x-kde-passwordManagerHint"))
            #expect(try wlPaste(sway, ["--type", "x-kde-passwordManagerHint"]).bytes == Array("secret".utf8))
            #expect(try wlPaste(sway, ["--type", "application/x-copyq-hidden"]).bytes == Array("1".utf8))
            #expect(eventually { processExited(pid) })
            #expect(try wlPaste(sway).status != 0, "the secret is still the selection")
        }
    }

    @Test func theOwnerLeavesWhenTheCompositorDies() throws {
        let sway = try Sway.start()
        defer { sway.stop() }
        let pid = try sway.clipboard.own(Payload(bytes: Array("x".utf8), kind: .text))
        defer { kill(pid, SIGKILL) }
        sway.stop()
        #expect(eventually(timeout: 10) { processExited(pid) })
    }

    @Test func consecutiveCopiesReuseTheServingProcessUntilAnotherClientCopies() throws {
        try withSway { sway in
            let clipboard = sway.clipboard(reuseOwner: true)
            let first = try clipboard.own(Payload(bytes: Array("one".utf8), kind: .text))
            defer { kill(first, SIGKILL) }
            #expect(eventually { residentListens(sway) }, "the owner does not listen for the next copy")
            let second = try clipboard.own(Payload(bytes: Array("two".utf8), kind: .text))
            #expect(second == first, "the second copy started another owner")
            #expect(try wlPaste(sway).bytes == Array("two".utf8))
            let secret = try clipboard.own(
                Payload(bytes: Array("tok".utf8), kind: .text, isSecret: true), to: .clipboard,
                options: CopyOptions(clearSecretAfter: 1))
            #expect(secret == first)
            #expect(try wlPaste(sway, ["--type", "x-kde-passwordManagerHint"]).bytes == Array("secret".utf8))
            #expect(eventually { processExited(first) }, "the handed secret was not cleared")
            #expect(try wlPaste(sway).status != 0)
            try wlCopy(sway, Array("theirs".utf8))
            let third = try clipboard.own(Payload(bytes: Array("three".utf8), kind: .text))
            defer { kill(third, SIGKILL) }
            #expect(third != first)
            #expect(try wlPaste(sway).bytes == Array("three".utf8))
        }
    }

    @Test func aCopyIsHandedToTheServingProcessWithoutTheCompositorOnlyWhileOneServes() throws {
        try withSway { sway in
            let clipboard = sway.clipboard(reuseOwner: true)
            #expect(clipboard.residentOwnerTaking(Payload(bytes: Array("none".utf8), kind: .text)) == nil)
            let first = try clipboard.own(Payload(bytes: Array("one".utf8), kind: .text))
            defer { kill(first, SIGKILL) }
            #expect(eventually { residentListens(sway) }, "the owner does not listen for the next copy")
            let handed = clipboard.residentOwnerTaking(Payload(bytes: Array("two".utf8), kind: .text))
            #expect(handed == first, "the copy was not handed to the serving process")
            #expect(try wlPaste(sway).bytes == Array("two".utf8))
            try wlCopy(sway, Array("theirs".utf8))
            #expect(eventually { processExited(first) }, "our owner stayed after another client copied")
            #expect(clipboard.residentOwnerTaking(Payload(bytes: Array("three".utf8), kind: .text)) == nil)
            #expect(try wlPaste(sway).bytes == Array("theirs".utf8))
        }
    }

    @Test func oneConnectionAnswersTheProbeAndMakesTheCopy() throws {
        try withSway { sway in
            let (probe, outcome) = sway.clipboard.ownIfDataControl(Payload(bytes: Array("probed".utf8), kind: .text))
            #expect(probe == WaylandClipboard.probe(display: sway.socket, runtimeDir: nil, timeout: 2))
            guard case .success(let pid)? = outcome else {
                Issue.record("data-control with a seat, but no copy: \(String(describing: outcome))")
                return
            }
            defer { kill(pid, SIGKILL) }
            let pasted = try wlPaste(sway).bytes
            #expect(pasted == Array("probed".utf8))
            let missing = WaylandClipboard(display: sway.runtimeDir + "/wayland-none", reuseOwner: false)
            let (none, nothing) = missing.ownIfDataControl(Payload(bytes: Array("x".utf8), kind: .text))
            #expect(none == WaylandClipboard.probe(display: missing.display, runtimeDir: nil, timeout: 2))
            #expect(nothing == nil, "a copy was tried where nothing answers")
            let unchanged = try wlPaste(sway).bytes
            #expect(unchanged == Array("probed".utf8))
        }
    }

    @Test func aColdCopyBindsTheGlobalsTheLastCopyFoundAndFallsBackWhenTheyAreWrong() throws {
        try withSway { sway in
            let known = sway.socket + ".userdebug-globals-\(geteuid())"
            let first = try sway.clipboard.own(Payload(bytes: Array("one".utf8), kind: .text))
            defer { kill(first, SIGKILL) }
            let kept = try #require(readWholeFile(known), "the first copy kept no global names")
            #expect(kept.count == 40)
            let second = try sway.clipboard.own(Payload(bytes: Array("two".utf8), kind: .text))
            defer { kill(second, SIGKILL) }
            #expect(try wlPaste(sway).bytes == Array("two".utf8))
            // The seat's and the manager's names swapped: binding them is a protocol error, and the
            // copy goes the usual way, then keeps the right names again.
            var wrong = kept
            wrong.replaceSubrange(4..<8, with: kept[8..<12])
            wrong.replaceSubrange(8..<12, with: kept[4..<8])
            #expect(FileManager.default.createFile(atPath: known, contents: Data(wrong)))
            let third = try sway.clipboard.own(Payload(bytes: Array("three".utf8), kind: .text))
            defer { kill(third, SIGKILL) }
            #expect(try wlPaste(sway).bytes == Array("three".utf8))
            #expect(readWholeFile(known) == kept, "the right names were not kept again")
        }
    }

    @Test func aSelectionNotConfirmedCarriesTheReasonGiven() {
        var err = cwl_error()
        err.status = CWL_NOT_OWNER
        let reason = "the compositor cancelled our source at once (replaced or refused)"
        withUnsafeMutableBytes(of: &err.message) { raw in raw.copyBytes(from: Array(reason.utf8) + [0]) }
        #expect(CWLCalls.error(err, paste: false, call: "cwl_own") == .ownershipNotConfirmed(reason: reason))
    }

    /// Whether a resident owner of ours listens on CLIPBOARD of this compositor (an abstract socket
    /// named by our euid and the compositor socket's device and inode).
    func residentListens(_ sway: Sway) -> Bool {
        var info = stat()
        guard stat(sway.socket, &info) == 0 else { return false }
        let name =
            "@userdebug-wl-owner-1/\(geteuid())/CLIPBOARD/"
            + String(info.st_dev, radix: 16) + ":" + String(info.st_ino, radix: 16) + "/"
        let table = String(decoding: readWholeFile("/proc/net/unix") ?? [], as: UTF8.self)
        return table.contains(name)
    }
}
