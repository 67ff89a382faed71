import Foundation
import TestSupport
import Testing
import UserDebugKit
import X11Clipboard

/// `reuseOwner`: a serving process takes the next copy's content over a local socket, so a copy
/// needs neither an X connection nor a fork. Each test checks what a peer actually reads.
@Suite("The resident owner", .processDeadline(600), .desktopTier)
struct ResidentOwnerTests {
    /// The backend's default policy: a resident owner that takes the next copies.
    private func resident(_ x: Xvfb) -> X11Clipboard { x.clipboard(OwnerPolicy()) }

    private func read(_ x: Xvfb, target: String = "UTF8_STRING") throws -> [UInt8] {
        try Peer.read(["xclip", "-o", "-selection", "clipboard", "-t", target], environment: x.environment).bytes
    }

    private func targets(_ x: Xvfb) throws -> [String] {
        String(decoding: try read(x, target: "TARGETS"), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func socketName(_ x: Xvfb) -> String { x.residentOwnerName() }

    /// The owner's TIMESTAMP target: the server time it took the selection at.
    private func ownershipTime(_ x: Xvfb) throws -> UInt32 {
        let bytes = try x.clipboard.paste(selection: .clipboard, target: "TIMESTAMP", timeout: 2)
        #expect(bytes.count == 4, "\(bytes)")
        return bytes.prefix(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private func isListening(_ x: Xvfb) -> Bool { x.residentOwnerListens() }

    @Test func theNextCopyIsServedByTheSameProcessWithItsOwnTargets() throws {
        try withXvfb { x in
            let first = try resident(x).own(Payload(text: "plain text"))
            #expect(eventually { isListening(x) })
            #expect(!(try targets(x)).contains("application/json"))
            let json = Array(#"{"id":"usr_1"}"#.utf8)
            let second = try resident(x).own(Payload(bytes: json, kind: .json))
            #expect(second.pid == first.pid, "handed to the serving process, not forked")
            expectSameBytes(try read(x, target: "application/json"), json)
            expectSameBytes(try Peer.read(["xsel", "-ob"], environment: x.environment).bytes, json)
            #expect(try targets(x).contains("application/json"))

            let binary: [UInt8] = [0xff, 0x00, 0xfe]
            _ = try resident(x).own(Payload(bytes: binary, kind: .binary))
            let now = try targets(x)
            #expect(now.contains("application/octet-stream") && !now.contains("UTF8_STRING"), "\(now)")
            expectSameBytes(try read(x, target: "application/octet-stream"), binary)
            #expect(!processExited(first.pid))
        }
    }

    /// No stale read through the hand-over either: each copy returns only once the serving
    /// process has taken the selection again with the new content.
    @Test func everyPasteRightAfterAHandedOverCopySeesThatCopy() throws {
        try withXvfb { x in
            let owner = try resident(x).own(Payload(text: "round start"))
            #expect(eventually { isListening(x) })
            for i in 0..<40 {
                let text = Array("round \(i) Zoë".utf8)
                let served = try resident(x).own(Payload(bytes: text))
                #expect(served.pid == owner.pid)
                #expect(try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2) == text)
            }
        }
    }

    /// Each hand-over takes the selection again (a new owner change with a fresh server time),
    /// not merely a swap of what the process serves: clipboard managers (Klipper, CopyQ, GPaste,
    /// csd-clipboard) learn of a new copy only from that change, through XFixes.
    @Test func aClipboardWatcherSeesEveryHandedOverCopy() throws {
        try withXvfb { x in
            let owner = try resident(x).own(Payload(text: "before the watcher"))
            #expect(eventually { isListening(x) })
            let watcher = try Peer.start([Peer.python, "-c", Self.ownerChangeWatcher], environment: x.environment)
            defer {
                watcher.kill()
                watcher.wait()
            }
            #expect(watcher.receiveLine() == "ready")
            var times: [Int64] = []
            for i in 0..<10 {
                #expect(try resident(x).own(Payload(text: "copy \(i)")).pid == owner.pid)
                guard let line = watcher.receiveLine(), let time = Int64(line.split(separator: " ").last ?? "") else {
                    Issue.record("no owner change for copy \(i)")
                    break
                }
                times.append(time)
                // The TIMESTAMP target reports the time the owner change carried.
                #expect(Int64(try ownershipTime(x)) == time)
            }
            #expect(times.count == 10)
            #expect(times == times.sorted(), "\(times)")
        }
    }

    /// A request the server stamped before our re-take but that we read after it (ConvertSelection
    /// with a time between the two) is answered with the content owned at that time, for a second
    /// after the hand-over: it is not refused, as a time before our ownership otherwise is. The
    /// peer is connected and waiting before the hand-over, so that its request follows it by a few
    /// milliseconds however slowly a Python starts on a loaded machine.
    @Test func aRequestStampedBeforeTheHandOverGetsTheContentOfThatTime() throws {
        try withXvfb { x in
            _ = try resident(x).own(Payload(text: "earlier"))
            #expect(eventually { isListening(x) })
            let earlier = try ownershipTime(x)
            let early = try Self.stampedPeer(x)
            defer {
                early.kill()
                early.wait()
            }
            usleep(5000)
            _ = try resident(x).own(Payload(text: "later"))
            early.send(Array("\(earlier)\n".utf8))
            #expect(early.receiveLine() == "earlier")
            let later = try ownershipTime(x)
            #expect(Int32(bitPattern: later &- earlier) > 0)
            usleep(1_300_000)  // the previous content is kept for one second (at least this long)
            let late = try Self.stampedPeer(x)
            defer {
                late.kill()
                late.wait()
            }
            late.send(Array("\(earlier)\n".utf8))
            #expect(late.receiveLine() == "refused")
            expectSameBytes(try read(x), Array("later".utf8))
        }
    }

    /// The `stampedRequest` peer on `x`, connected and waiting for its time.
    static func stampedPeer(_ x: Xvfb) throws -> Spawned {
        let peer = try Spawned.start(
            [Peer.python, "-c", stampedRequest], environment: x.environment, pipeInput: true, pipeOutput: true)
        #expect(peer.receiveLine() == "ready")
        return peer
    }

    /// Connects and prints "ready", then reads a server time from standard input and asks for
    /// CLIPBOARD as UTF8_STRING stamped with it; prints the text, or "refused".
    static let stampedRequest = """
        import signal, sys
        signal.alarm(30)
        from Xlib import X, display
        d = display.Display()
        w = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
        prop = d.intern_atom('STAMPED')
        clipboard, utf8 = d.intern_atom('CLIPBOARD'), d.intern_atom('UTF8_STRING')
        d.sync()
        print('ready', flush=True)
        w.convert_selection(clipboard, utf8, prop, int(sys.stdin.readline()))
        while True:
            e = d.next_event()
            if e.type == X.SelectionNotify: break
        if e.property == X.NONE:
            print('refused')
        else:
            print(bytes(w.get_full_property(prop, X.AnyPropertyType).value).decode())
        """

    /// Prints "ready", then "owner <window> <time>" for each SetSelectionOwner on CLIPBOARD
    /// (XFixes); gives up after 30 s.
    static let ownerChangeWatcher = """
        import signal
        signal.alarm(30)
        from Xlib import display
        from Xlib.ext import xfixes
        d = display.Display()
        d.xfixes_query_version()
        root = d.screen().root
        d.xfixes_select_selection_input(root, d.intern_atom('CLIPBOARD'), xfixes.XFixesSetSelectionOwnerNotifyMask)
        d.sync()
        print('ready', flush=True)
        while True:
            e = d.next_event()
            if type(e).__name__ == 'SetSelectionOwnerNotify':
                print('owner', e.owner.id, e.selection_timestamp, flush=True)
        """

    /// An owner of `bytes` (listening for the next copy) and a reader paused in the middle of
    /// an INCR transfer of them (`Peer.pausingReader`).
    private func pausedTransfer(_ x: Xvfb, of bytes: [UInt8]) throws -> (OwnerProcess, Spawned) {
        let owner = try resident(x).own(Payload(bytes: bytes), options: CopyOptions(transferTimeout: 30))
        #expect(eventually { isListening(x) })
        let reader = try Spawned.start(
            [Peer.python, "-c", Peer.pausingReader], environment: x.environment, pipeInput: true, pipeOutput: true)
        #expect(reader.receiveLine() == "paused")
        return (owner, reader)
    }

    /// Lets a paused reader finish; what it read.
    private func resume(_ reader: Spawned) -> [UInt8] {
        reader.send(Array("go\n".utf8))
        return reader.receiveAll()
    }

    /// A transfer of the old content that is under way when new content arrives gets the old
    /// bytes, whole; readers that ask afterwards get the new content.
    @Test func aTransferUnderWayFinishesWithTheOldContent() throws {
        try withXvfb { x in
            let old = Sample.sixteenMiB.bytes
            let (owner, reader) = try pausedTransfer(x, of: old)
            defer {
                reader.kill()
                reader.wait()
            }

            let new = Array("the new content".utf8)
            let served = try resident(x).own(Payload(bytes: new))
            #expect(served.pid == owner.pid)
            expectSameBytes(try read(x), new)

            expectSameBytes(resume(reader), old)
            expectSameBytes(try read(x), new)
        }
    }

    @Test func aSecretsTimerFollowsTheLatestCopy() throws {
        try withXvfb { x in
            let secret = Payload(text: "token-123", isSecret: true)
            let short = CopyOptions(clearSecretAfter: 1.5)
            let owner = try resident(x).own(secret, options: short)
            #expect(eventually { isListening(x) })
            #expect(try targets(x).contains("x-kde-passwordManagerHint"))
            // Plain content replaces the secret: its clear timer must not fire on it.
            _ = try resident(x).own(Payload(text: "plain"), options: short)
            #expect(!(try targets(x)).contains("x-kde-passwordManagerHint"))
            #expect(try targets(x).contains("SAVE_TARGETS"))
            usleep(2_500_000)  // past the secret's 1.5 s: plain content must not be cleared
            expectSameBytes(try read(x), Array("plain".utf8))
            #expect(!processExited(owner.pid))
            // A secret handed over starts its own timer.
            let again = try resident(x).own(secret, options: short)
            #expect(again.pid == owner.pid)
            #expect(try targets(x).contains("x-kde-passwordManagerHint"))
            #expect(eventually { processExited(owner.pid) })
            #expect(throws: ClipboardError.self) {
                try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2)
            }
        }
    }

    @Test func anOwnerThatLostTheSelectionIsNotReused() throws {
        try withXvfb { x in
            let owner = try resident(x).own(Payload(text: "ours"))
            #expect(eventually { isListening(x) })
            try Peer.own(
                ["xclip", "-i", "-selection", "clipboard"], input: Array("theirs".utf8), environment: x.environment)
            #expect(eventually { processExited(owner.pid) })
            let next = try resident(x).own(Payload(text: "ours again"))
            #expect(next.pid != owner.pid)
            expectSameBytes(try read(x), Array("ours again".utf8))
        }
    }

    /// An owner that lost the selection but still finishes a transfer stops listening at once:
    /// the next copy forks its own owner, and the transfer still ends with the old bytes.
    @Test func anOwnerFinishingATransferAfterLosingTheSelectionTakesNoCopy() throws {
        try withXvfb { x in
            let old = Sample.sixteenMiB.bytes
            let (owner, reader) = try pausedTransfer(x, of: old)
            defer {
                reader.kill()
                reader.wait()
            }
            let theirs = Array("theirs".utf8)
            try Peer.own(["xclip", "-i", "-selection", "clipboard"], input: theirs, environment: x.environment)
            #expect(eventually { (try? read(x)) == theirs })
            #expect(eventually { !isListening(x) }, "not owning: no longer listening")
            #expect(!processExited(owner.pid), "kept alive by the transfer")

            let ours = Array("ours again".utf8)
            let next = try resident(x).own(Payload(bytes: ours))
            #expect(next.pid != owner.pid)
            expectSameBytes(try read(x), ours)
            expectSameBytes(resume(reader), old)
            #expect(eventually { processExited(owner.pid) })
        }
    }

    /// A copy that gave up waiting (here its owner was stopped) owns the selection itself; when
    /// the stopped owner wakes, it must not take the selection for that copy any more, which
    /// would overwrite what another program copied meanwhile.
    @Test func anOfferTheCopyGaveUpOnIsNeverTakenLater() throws {
        try withXvfb { x in
            let owner = try resident(x).own(Payload(text: "first"))
            #expect(eventually { isListening(x) })
            kill(owner.pid, SIGSTOP)
            let fallback = try resident(x).own(Payload(text: "given up"), options: CopyOptions(connectTimeout: 0.6))
            #expect(fallback.pid != owner.pid)
            let newer = Array("newer, from another program".utf8)
            try Peer.own(["xclip", "-i", "-selection", "clipboard"], input: newer, environment: x.environment)
            #expect(eventually { (try? read(x)) == newer })
            kill(owner.pid, SIGCONT)
            #expect(eventually { processExited(owner.pid) }, "woke, found it no longer owns, left")
            #expect(eventually { processExited(fallback.pid) })
            expectSameBytes(try read(x), newer)
        }
    }

    @Test func fourMiBExactlyIsStillHandedOver() throws {
        try withXvfb { x in
            let owner = try resident(x).own(Payload(text: "small"))
            #expect(eventually { isListening(x) })
            let limit = Sample.pattern(4 << 20)
            #expect(try resident(x).own(Payload(bytes: limit)).pid == owner.pid)
            expectSameBytes(try read(x), limit)
        }
    }

    /// Other clients taking the selection between our copies: each of our copies wins, and what
    /// a reader sees right after it is that copy, whichever process served it.
    @Test func copiesAlternatingWithXclipEachWin() throws {
        try withXvfb { x in
            _ = try resident(x).own(Payload(text: "start"))
            for i in 0..<12 {
                let theirs = Array("xclip \(i)".utf8)
                try Peer.own(["xclip", "-i", "-selection", "clipboard"], input: theirs, environment: x.environment)
                // xclip's command returns before its forked child has taken the selection.
                #expect(eventually { (try? read(x)) == theirs })
                let ours = Array("ours \(i)".utf8)
                _ = try resident(x).own(Payload(bytes: ours))
                expectSameBytes(try read(x), ours)
            }
        }
    }

    @Test func aNewOwnerIsStartedWhenAskedOrForALargePayloadAndTakesTheNextCopies() throws {
        try withXvfb { x in
            let first = try resident(x).own(Payload(text: "first"))
            #expect(eventually { isListening(x) })
            let second = try x.clipboard(OwnerPolicy(newOwner: true)).own(Payload(text: "second"))
            #expect(second.pid != first.pid)
            #expect(eventually { processExited(first.pid) })
            expectSameBytes(try read(x), Array("second".utf8))
            #expect(eventually { isListening(x) }, "the new owner listens once the old one is gone")
            #expect(try resident(x).own(Payload(text: "third")).pid == second.pid)

            let large = Sample.pattern((4 << 20) + 1)
            let third = try resident(x).own(Payload(bytes: large))
            #expect(third.pid != second.pid, "more than 4 MiB is not handed over")
            #expect(eventually { processExited(second.pid) })
            expectSameBytes(try read(x), large)
            #expect(eventually { isListening(x) })
            #expect(try resident(x).own(Payload(text: "small")).pid == third.pid)
            expectSameBytes(try read(x), Array("small".utf8))
        }
    }

    /// Containers that share a network namespace share abstract socket names, and each may run a
    /// server with the same display number: the name also carries the server socket file's
    /// identity, so a copy never hands its content to an owner on another server.
    @Test func anOwnerOnAnotherServerWithTheSameDisplayNumberIsNotUsed() throws {
        try withXvfb { x in
            let owner = try resident(x).own(Payload(text: "first"))
            #expect(eventually { isListening(x) })
            let path = "/tmp/.X11-unix/X\(x.display.dropFirst())"
            #expect(rename(path, path + ".aside") == 0)
            defer {
                unlink(path)
                rename(path + ".aside", path)
            }
            // Another socket file under the same name; this server still answers on its abstract socket.
            let bound = try Peer.read(
                [Peer.python, "-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", path],
                environment: x.environment, limit: 10)
            #expect(bound.status == 0)
            let next = try resident(x).own(Payload(text: "second"))
            #expect(next.pid != owner.pid)
            #expect(eventually { processExited(owner.pid) })
            expectSameBytes(try read(x), Array("second".utf8))
        }
    }

    @Test func withoutReuseOwnerNothingListens() throws {
        try withXvfb { x in
            let owner = try x.clipboard(OwnerPolicy(reuseOwner: false)).own(Payload(text: "alone"))
            usleep(200_000)
            #expect(!isListening(x))
            let next = try resident(x).own(Payload(text: "next"))
            #expect(next.pid != owner.pid)
        }
    }

    /// Abstract socket names have no permissions: the uid checks are what keep another user from
    /// replacing our content, and our content (maybe a secret) from reaching another user's process.
    @Test(.enabled(if: geteuid() == 0, "switching to another uid needs root; CI runs as root"))
    func anotherUsersProcessCanNeitherReplaceNorReceiveOurContent() throws {
        try expectStrangerCanNeitherReplaceNorReceive(runningAs: Self.asNobody)
    }

    static let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Our own uid in a mount namespace of its own (as a Flatpak or bubblewrap sandbox, or a
    /// container sharing the host's network, would be): it shares our abstract socket names.
    @Test(.enabled(if: geteuid() == 0, "unshare --mount needs root; CI runs as root"))
    func aProcessOfOurUidInAnotherMountNamespaceIsNotTrusted() throws {
        try expectStrangerCanNeitherReplaceNorReceive(runningAs: ["/usr/bin/unshare", "--mount"])
    }

    /// A process started with `prefix` offers content to our owner (refused without an answer,
    /// our content stays), then holds the owner's name itself while we copy a secret (it receives
    /// nothing, and the secret is still copied, by a process of ours).
    private func expectStrangerCanNeitherReplaceNorReceive(runningAs prefix: [String]) throws {
        try withXvfb { x in
            let owner = try resident(x).own(Payload(text: "ours"))
            #expect(eventually { isListening(x) })
            let intruder = try Peer.read(
                prefix + [Peer.python, "-c", Self.offeringClient, socketName(x)], environment: x.environment, limit: 10)
            #expect(String(decoding: intruder.bytes, as: UTF8.self) == "reply: 0 bytes\n", "\(intruder)")
            expectSameBytes(try read(x), Array("ours".utf8))
            kill(owner.pid, SIGTERM)
            #expect(eventually { processExited(owner.pid) })

            let squatter = try Spawned.start(
                prefix + [Peer.python, "-c", Self.squatter, socketName(x)], environment: x.environment, pipeOutput: true
            )
            defer {
                squatter.kill()
                squatter.wait()
            }
            #expect(squatter.receiveLine() == "listening")
            let token = Array("token-xyz".utf8)
            _ = try resident(x).own(Payload(bytes: token, isSecret: true))
            expectSameBytes(try read(x), token)
            squatter.kill(SIGTERM)
            #expect(squatter.receiveLine() == "received 0 bytes")
        }
    }

    /// Connects to the abstract name in argv[1], sends a well-formed offer of "evil", prints how
    /// many reply bytes came back.
    static let offeringClient = """
        import socket, struct, sys, time
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect('\\0' + sys.argv[1])
        body = b'evil'
        got = b''
        try:
            header = struct.pack('<IIIIdddddQ', 0x75646f31, 0, 0, 0, time.monotonic() + 5, 0.0, 0.0, 10.0, 1.5, len(body))
            s.sendall(header + body)
            while True:
                chunk = s.recv(64)
                if not chunk: break
                got += chunk
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        print('reply: %d bytes' % len(got), flush=True)
        """

    /// Listens on the abstract name in argv[1], accepts, counts what arrives; prints the count on SIGTERM.
    static let squatter = """
        import signal, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind('\\0' + sys.argv[1]); s.listen(8)
        total = 0
        def done(*_):
            print('received %d bytes' % total, flush=True); sys.exit(0)
        signal.signal(signal.SIGTERM, done)
        print('listening', flush=True)
        while True:
            c, _ = s.accept()
            c.settimeout(1)
            try:
                while True:
                    chunk = c.recv(65536)
                    if not chunk: break
                    total += len(chunk)
            except socket.timeout:
                pass
            c.close()
        """
}
