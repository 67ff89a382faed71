import Foundation
import TestSupport
import Testing

/// The daemon serves CLIPBOARD itself (issue 10): no owner process per key press, INCR for large
/// payloads with a stalled reader stalling nothing, a token's clear only while still ours, and the
/// content handed to a detached owner when the daemon leaves.
extension DaemonTests {
    /// The pid of the X client whose window owns CLIPBOARD (X-Resource), or "none".
    static let ownerClient = """
        import signal
        signal.alarm(8)
        from Xlib import X, display
        from Xlib.ext import res
        d = display.Display()
        owner = d.get_selection_owner(d.intern_atom('CLIPBOARD'))
        if owner in (None, X.NONE):
            print('none')
        else:
            ids = d.res_query_client_ids([{'client': owner.id, 'mask': res.LocalClientPIDMask}]).ids
            print(ids[0].value[0] if ids and ids[0].value else 'unknown')
        """

    /// Keys for the id, the token (cleared after 2 s) and a large payload (`bigPayload`).
    var clipboardConfig: String {
        """
        {
          "hotkeys": {"Super+Alt+I": "copy-id", "Super+Alt+T": "copy-token", "Super+Alt+B": "big"},
          "actions": [{"id": "big", "title": "Big", "command": ["cat", "\(home.root.path)/big.txt"]}],
          "clipboard": {"secretClearSeconds": 2}
        }
        """
    }

    /// The X client (by pid) that owns CLIPBOARD on `x`.
    func ownerClient(_ x: Xvfb) -> String {
        let out = try? Peer.read(["/usr/bin/python3", "-c", Self.ownerClient], environment: x.environment, limit: 10)
        return out.map { String(decoding: $0.bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
            ?? ""
    }

    /// The processes of the built `userdebug` started for display `x` (by their environment),
    /// other than `except`: owner processes the daemon or a copy forked.
    func userdebugProcesses(on x: Xvfb, except: Int32) -> [Int32] {
        let binary = URL(fileURLWithPath: UserDebugHome.binary).resolvingSymlinksInPath().path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard pid != except, !processExited(pid),
                let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
                exe == binary, let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
            else { return false }
            return environ.split(separator: 0).contains { Data($0) == Data("DISPLAY=\(x.display)".utf8) }
        }
    }

    /// A large payload for the `big` action: about 1.9 MiB of numbered lines.
    func bigPayload() throws -> [UInt8] {
        let text = (0..<60_000).map { "line \($0) of the large payload\n" }.joined()
        try home.file("big.txt", text)
        return Array(text.utf8)
    }

    @Test func theDaemonOwnsTheClipboardItselfAndACLICopyTakesItOver() throws {
        try home.file("config/config.json", clipboardConfig)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                try setStale(x)
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                // Its own window, and no owner process forked or listening for the next copy.
                #expect(ownerClient(x) == String(daemon.pid))
                #expect(userdebugProcesses(on: x, except: daemon.pid).isEmpty)
                #expect(!x.residentOwnerListens(executable: UserDebugHome.binary))
                // A copy from the CLI takes the selection; the daemon's next key takes it back.
                let copied = try home.run(
                    ["copy"], stdin: Data("from the CLI".utf8), extraEnvironment: ["DISPLAY": x.display])
                #expect(copied.status == 0, "\(copied)")
                #expect(clipboard(x) == "from the CLI")
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                #expect(ownerClient(x) == String(daemon.pid))
                for pid in userdebugProcesses(on: x, except: daemon.pid) { kill(pid, SIGKILL) }
            }
        }
    }

    @Test func aLargeCopyGoesByINCRAndAStalledReaderDoesNotStopTheNextKey() throws {
        try home.file("config/config.json", clipboardConfig)
        let big = try bigPayload()
        try withXvfb { x in
            try withDaemon(x) { daemon in
                try press(x, "super+alt+b")
                #expect(eventually { ownerClient(x) == String(daemon.pid) }, "\(daemon.text)")
                let read = try Peer.read(
                    ["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 30)
                #expect(read.status == 0)
                #expect(read.bytes == big, "read \(read.bytes.count) of \(big.count) bytes")
                // xclip writing into a pipe nobody reads stops after the first chunk, mid-INCR.
                let stalled = try Peer.start(["xclip", "-o", "-selection", "clipboard"], environment: x.environment)
                defer {
                    stalled.kill()
                    stalled.wait()
                    close(stalled.output)
                }
                var first = [UInt8](repeating: 0, count: 16)
                #expect(Foundation.read(stalled.output, &first, first.count) > 0, "the stalled reader got no chunk")
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
                #expect(daemon.exited() == nil)
            }
        }
    }

    @Test func aTokenIsClearedAfterItsTimeoutOnlyWhileStillTheDaemons() throws {
        try home.file("config/config.json", clipboardConfig)
        try withXvfb { x in
            try withDaemon(x) { daemon in
                try press(x, "super+alt+t")
                #expect(eventually { clipboard(x) == Samples.canary }, "\(daemon.text)")
                #expect(eventually { ownerClient(x) == "none" }, "the token was not cleared")
                // Another client takes the selection before the clear: it keeps its content.
                try press(x, "super+alt+t")
                #expect(eventually { clipboard(x) == Samples.canary }, "\(daemon.text)")
                try setStale(x, "taken by xclip")
                _ = try Peer.read(["sleep", "3"], environment: x.environment)
                #expect(clipboard(x) == "taken by xclip")
                // The daemon copies again after a clear (it made a new window).
                try press(x, "super+alt+i")
                #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
            }
        }
    }

    @Test func afterSIGTERMTheLastValueIsStillOnTheClipboard() throws {
        try home.file("config/config.json", clipboardConfig)
        try withXvfb { x in
            var owners: [Int32] = []
            defer { for pid in owners { kill(pid, SIGKILL) } }
            try withDaemon(x) { daemon in
                try press(x, "super+alt+i")
                #expect(eventually { ownerClient(x) == String(daemon.pid) }, "\(daemon.text)")
                daemon.process.kill(SIGTERM)
                #expect(eventually { daemon.exited() != nil }, "\(daemon.text)")
                #expect(daemon.exited() == 0, "\(daemon.text)")
                owners = userdebugProcesses(on: x, except: daemon.pid)
                #expect(clipboard(x) == "usr_1", "\(daemon.text)")
                #expect(owners.count == 1, "\(daemon.text)")
                #expect(daemon.text.contains("the clipboard is served by pid"))
            }
        }
    }
}
