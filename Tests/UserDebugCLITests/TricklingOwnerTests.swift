import Foundation
import TestSupport
import Testing

/// A clipboard owner that answers by INCR and then sends one byte every 0.3 s, each well within
/// the reader's per-chunk timeout (issue 25, item 11): `paste` and `session import
/// --from-clipboard` give up at the whole read's deadline (`clipboard.pasteDeadlineSeconds`,
/// lowered here) with exit 75. No time is asserted: the owner ends its transfer properly after
/// 30 s, so a reader without the deadline succeeds (exit 0) and fails the test, and each run
/// has a deadline (60 s) that only bounds a hang.
@Suite(.desktopTier) struct TricklingOwnerTests {
    /// Owns CLIPBOARD; answers UTF8_STRING by INCR, then one byte per chunk every 0.3 s for
    /// argv[1] seconds, then the empty chunk that ends the transfer. Refuses other targets.
    /// Prints "owner" once it owns the selection; killed by SIGALRM after 90 s.
    static let trickler = """
        import signal, sys, time
        from Xlib import X, display
        from Xlib.protocol import event
        signal.alarm(90)
        d = display.Display()
        w = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
        clip = d.intern_atom('CLIPBOARD'); utf8 = d.intern_atom('UTF8_STRING'); incr = d.intern_atom('INCR')
        w.set_selection_owner(clip, X.CurrentTime)
        d.sync()
        print('owner', flush=True)
        def answer(e, prop):
            e.requestor.send_event(event.SelectionNotify(time=e.time, requestor=e.requestor,
                selection=e.selection, target=e.target, property=prop))
            d.flush()
        def deleted(req, prop):
            while True:
                ev = d.next_event()
                if ev.type == X.PropertyNotify and ev.window.id == req.id and ev.atom == prop \\
                        and ev.state == X.PropertyDelete:
                    return
        while True:
            e = d.next_event()
            if e.type != X.SelectionRequest: continue
            if e.target != utf8:
                answer(e, X.NONE); continue
            req, prop = e.requestor, e.property
            req.change_attributes(event_mask=X.PropertyChangeMask)
            req.change_property(prop, incr, 32, [1000])
            answer(e, prop)
            end = time.time() + float(sys.argv[1])
            while True:
                deleted(req, prop)
                if time.time() >= end:
                    req.change_property(prop, utf8, 8, b''); d.flush(); break
                time.sleep(0.3)
                req.change_property(prop, utf8, 8, b'{'); d.flush()
        """

    @Test(arguments: [["paste", "--timeout", "1"], ["session", "import", "--from-clipboard"]])
    func aReaderGivesUpOnAnOwnerThatTricklesItsChunks(command: [String]) throws {
        let home = try UserDebugHome()
        try home.file("config/config.json", #"{"clipboard": {"pasteDeadlineSeconds": 1}}"#)
        try withXvfb { x in
            let owner = try Spawned.start(
                ["/usr/bin/python3", "-c", Self.trickler, "30"], environment: x.environment, pipeOutput: true)
            defer {
                owner.kill()
                owner.wait()
            }
            try #require(owner.receiveLine() == "owner")
            let run = try runBounded(
                [UserDebugHome.binary] + command, environment: home.environment.merging(["DISPLAY": x.display]) { $1 },
                deadline: 60)
            #expect(run.termination == .exited(75), "\(run)")
            #expect(run.stderr.contains("sends its content too slowly"), "\(run)")
            #expect(run.stderr.contains("clipboard.pasteDeadlineSeconds"), "\(run)")
            // `paste` to a pipe writes each chunk as it comes: what the owner sent, nothing else.
            #expect(run.stdout.allSatisfy { $0 == UInt8(ascii: "{") }, "\(run)")
        }
    }
}
