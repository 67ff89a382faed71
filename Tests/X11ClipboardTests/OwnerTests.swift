import Foundation
import TestSupport
import Testing
import UserDebugKit
import X11Clipboard

@Suite("Our selection owner", .processDeadline(600))
struct OwnerTests {
    private func targets(_ x: Xvfb) throws -> [String] {
        let out = try Peer.read(
            ["xclip", "-o", "-selection", "clipboard", "-t", "TARGETS"], environment: x.environment)
        return String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func targetsListExactlyWhatATextPayloadOffers() throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(text: "Zoë"))
            #expect(
                try targets(x) == [
                    "TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS",
                    "UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT",
                ])
        }
    }

    @Test func aSecretJSONPayloadIsMarkedAndNeverOfferedToAManager() throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(text: #"{"name":"名前"}"#, kind: .json, isSecret: true))
            #expect(
                try targets(x) == [
                    "TARGETS", "TIMESTAMP", "MULTIPLE",
                    "UTF8_STRING", "text/plain;charset=utf-8", "application/json", "x-kde-passwordManagerHint",
                    "application/x-copyq-hidden",
                ])
            let hint = try x.clipboard.paste(selection: .clipboard, target: "x-kde-passwordManagerHint", timeout: 2)
            #expect(hint == Array("secret".utf8))
            // CopyQ 6.4 (Debian 12) honours only its own marker, and only with the value "1".
            let hidden = try x.clipboard.paste(selection: .clipboard, target: "application/x-copyq-hidden", timeout: 2)
            #expect(hidden == Array("1".utf8))
            let json = try x.clipboard.paste(selection: .clipboard, target: "application/json", timeout: 2)
            #expect(json == Array(#"{"name":"名前"}"#.utf8))
        }
    }

    @Test func binaryThatIsNotUTF8IsNeverPassedOffAsText() throws {
        try withXvfb { x in
            let bytes: [UInt8] = [0xFF, 0x00, 0x80, 0x41]
            try x.clipboard.copy(Payload(bytes: bytes, kind: .binary))
            #expect(try targets(x) == ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "application/octet-stream"])
            #expect(
                try x.clipboard.paste(selection: .clipboard, target: "application/octet-stream", timeout: 2) == bytes)
            #expect(throws: ClipboardError.self) {
                try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2)
            }
        }
    }

    @Test func stringIsLatin1AndRefusedWhenTheTextIsNotRepresentable() throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(text: "Zoë"))
            #expect(try x.clipboard.paste(selection: .clipboard, target: "STRING", timeout: 2) == [0x5A, 0x6F, 0xEB])
            #expect(try x.clipboard.paste(selection: .clipboard, target: "TEXT", timeout: 2) == [0x5A, 0x6F, 0xEB])
            try x.clipboard.copy(Payload(text: "名前"))
            #expect(throws: ClipboardError.self) {
                try x.clipboard.paste(selection: .clipboard, target: "STRING", timeout: 2)
            }
        }
    }

    @Test func anUnknownTargetIsRefused() throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(text: "not an image"))
            let out = try Peer.read(
                ["xclip", "-o", "-selection", "clipboard", "-t", "image/png"], environment: x.environment)
            #expect(out.status != 0)
            #expect(out.bytes.isEmpty)
            #expect {
                try x.clipboard.paste(selection: .clipboard, target: "image/png", timeout: 2)
            } throws: { error in
                if case ClipboardError.noContent = error { true } else { false }
            }
        }
    }

    @Test func multipleAnswersEachPairAndRefusesTheUnknownOne() throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(text: "Zoë"))
            let out = try Peer.read([Peer.python, "-c", Peer.multipleReader], environment: x.environment)
            let lines = String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(lines == ["UTF8_STRING=5a6fc3ab", "image/png=None", "STRING=5a6feb"])
        }
    }

    @Test func aStalledAndAKilledIncrReaderDoNotBlockTheNextReader() throws {
        try withXvfb { x in
            let bytes = Sample.sixteenMiB.bytes
            let owner = try x.clipboard.own(Payload(bytes: bytes), options: CopyOptions(transferTimeout: 30))
            let stalled = try Peer.start([Peer.python, "-c", Peer.stallingReader], environment: x.environment)
            defer {
                stalled.kill()
                stalled.wait()
            }
            #expect(stalled.receiveLine() == "stalled")
            let killed = try Peer.start([Peer.python, "-c", Peer.stallingReader], environment: x.environment)
            #expect(killed.receiveLine() == "stalled")
            killed.kill()
            killed.wait()

            let out = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment)
            expectSameBytes(out.bytes, bytes)
            expectSameBytes(try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 10), bytes)
            #expect(!processExited(owner.pid))
        }
    }

    @Test func ourOwnerExitsWhenAnotherClientTakesTheSelection() throws {
        try withXvfb { x in
            let owner = try x.clipboard.own(Payload(text: "ours"))
            #expect(!processExited(owner.pid))
            try Peer.own(
                ["xclip", "-i", "-selection", "clipboard"], input: Array("theirs".utf8), environment: x.environment)
            #expect(eventually { processExited(owner.pid) })
            expectSameBytes(x.readOnceOwned(), Array("theirs".utf8))
        }
    }

    @Test func ourOwnerExitsWhenTheXServerDiesMidTransfer() throws {
        let x = try Xvfb.start()
        defer { x.stop() }
        let owner = try x.clipboard.own(
            Payload(bytes: Sample.sixteenMiB.bytes), options: CopyOptions(transferTimeout: 60))
        let stalled = try Peer.start([Peer.python, "-c", Peer.stallingReader], environment: x.environment)
        defer {
            stalled.kill()
            stalled.wait()
        }
        #expect(stalled.receiveLine() == "stalled")
        x.stop()
        #expect(eventually { processExited(owner.pid) })
    }

    @Test func aSecretIsClearedAfterItsTimeoutWhileWeStillOwnIt() throws {
        try withXvfb { x in
            let owner = try x.clipboard.own(
                Payload(text: "token-123", isSecret: true), options: CopyOptions(clearSecretAfter: 0.3))
            #expect(eventually { processExited(owner.pid) })
            #expect(throws: ClipboardError.self) {
                try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2)
            }
        }
    }

    @Test func aSecretTimeoutNeverClearsSomeoneElsesNewerContent() throws {
        try withXvfb { x in
            let owner = try x.clipboard.own(
                Payload(text: "token-123", isSecret: true), options: CopyOptions(clearSecretAfter: 0.5))
            try Peer.own(
                ["xclip", "-i", "-selection", "clipboard"], input: Array("newer".utf8), environment: x.environment)
            #expect(eventually { processExited(owner.pid) })
            usleep(800_000)  // past our clear timeout: the newer content must still be there
            expectSameBytes(x.readOnceOwned(), Array("newer".utf8))
        }
    }

    @Test func ourOwnerLeavesAfterItsLifetimeAndOnSIGTERM() throws {
        try withXvfb { x in
            let timed = try x.clipboard.own(Payload(text: "short"), options: CopyOptions(lifetime: 0.3))
            #expect(eventually { processExited(timed.pid) })
            let owner = try x.clipboard.own(Payload(text: "until told"))
            kill(owner.pid, SIGTERM)
            #expect(eventually { processExited(owner.pid) })
            #expect(throws: ClipboardError.self) {
                try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2)
            }
        }
    }

    /// `x=$(userdebug copy-id)` returns only if the server keeps none of the caller's descriptors.
    @Test func theServingProcessHoldsOnlyDevNullItsXConnectionAndItsSignalfd() throws {
        try withXvfb { x in
            let owner = try x.clipboard.own(Payload(text: "fds"))
            // own() returns once ownership is confirmed; the server closes what it inherited
            // right after, so give it the moment it needs (bounded) before looking.
            _ = eventually {
                ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(owner.pid)/fd"))?.count ?? 0) <= 5
            }
            let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(owner.pid)/fd")
            var targets: [String] = []
            for fd in fds {
                targets.append(
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(owner.pid)/fd/\(fd)")) ?? "?")
            }
            #expect(targets.filter { $0 == "/dev/null" }.count == 3)
            #expect(targets.filter { $0.hasPrefix("socket:") }.count == 1)
            #expect(targets.filter { $0.contains("signalfd") }.count == 1)
            #expect(fds.count == 5, "\(targets)")
            let cwd = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(owner.pid)/cwd")
            #expect(cwd == "/")
        }
    }

    @Test func copyReturnsOnlyOnceOwnershipIsConfirmed() throws {
        // No stale read: each paste right after a copy sees that copy.
        try withXvfb { x in
            for i in 0..<20 {
                let text = Array("round \(i)".utf8)
                try x.clipboard.copy(Payload(bytes: text))
                #expect(try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2) == text)
            }
        }
    }
}
