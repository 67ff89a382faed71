import Foundation
import TestSupport
import Testing

/// A directory every user may write, as `/tmp` is (mode 1777, root's: the test runs as root),
/// for `XDG_RUNTIME_DIR=/tmp` on an X11 session without logind. Removed with what is in it.
final class SharedDirectory: @unchecked Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/userdebug-shared-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw FixtureError(message: "mkdtemp failed: errno \(errno)")
        }
        path = String(cString: made)
        guard chmod(path, 0o1777) == 0 else { throw FixtureError(message: "chmod 1777 \(path): errno \(errno)") }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A small Python program run as another user, ended by pid; `ready` is a file it makes once
/// it has done its setup, waited for with a deadline.
final class OtherUserProgram: @unchecked Sendable {
    let process: Spawned

    init(account: TestUser.Account, script: String, arguments: [String], ready: String) throws {
        process = try Spawned.start(
            TestUser.runningAs(account) + ["/usr/bin/python3", "-c", script] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
        let pid = process.pid
        guard eventually(timeout: 20, { FileManager.default.fileExists(atPath: ready) || processExited(pid) }),
            FileManager.default.fileExists(atPath: ready)
        else {
            stop()
            throw FixtureError(message: "the other user's program did not get ready")
        }
    }

    deinit { stop() }

    func stop() {
        if !processExited(process.pid) { process.kill() }
        process.wait()
    }
}

/// Another local user shares our runtime directory (`XDG_RUNTIME_DIR` is a 1777 directory) and
/// plants what they like there before we come: a Wayland socket of their own, a FIFO where a
/// copy keeps the names of the compositor's globals, a held lock of the daemon's name, a session
/// bus. We (root here, as CI runs) never send them a byte, never hang, never take their lock
/// for ours; what is refused says so and names the fix.
@Suite(.desktopTier) struct SharedRuntimeDirectoryTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func run(_ arguments: [String], _ environment: [String: String]) throws -> BoundedResult {
        try runBounded(
            [UserDebugHome.binary] + arguments, environment: home.environment.merging(environment) { $1 }, deadline: 30)
    }

    @Test func aCopyNeverGoesToAWaylandSocketOfAnotherUser() throws {
        let account = try TestUser.ensure()
        let shared = try SharedDirectory()
        let squatter = try DataControlCompositor(ext: true, wlr: true, directory: shared.path, account: account)
        defer { squatter.stop() }
        let environment = ["XDG_RUNTIME_DIR": shared.path, "WAYLAND_DISPLAY": "wayland-dc"]
        let refusal =
            "refusing the Wayland socket \(squatter.socket): it is served by uid \(account.uid), not by you (uid \(getuid())) or root"

        let copied = try run(["copy-token", "--to", "clipboard"], environment)
        #expect(copied.termination == .exited(69), "\(copied)")
        #expect(!copied.stderr.contains("copied"), "\(copied)")
        #expect(copied.stderr.contains(refusal), "\(copied)")
        #expect(copied.stderr.contains("fix: set XDG_RUNTIME_DIR to a directory of yours with mode 0700"))

        let forced = try run(["copy-token", "--to", "clipboard", "--backend", "wayland"], environment)
        #expect(forced.termination == .exited(69), "\(forced)")
        #expect(forced.stderr.contains("--backend wayland, but") && forced.stderr.contains(refusal), "\(forced)")

        // The squatter saw a connection, never a bind (nothing was sent), and holds no token.
        #expect(!squatter.logLines.contains { $0.hasPrefix("bind ") && $0.contains(" by userdebug ") })
        let theirs = try Peer.read(
            TestUser.runningAs(account) + ["wl-paste", "-n"], environment: squatter.environment, limit: 30)
        #expect(!String(decoding: theirs.bytes, as: UTF8.self).contains(Samples.canary), "\(theirs)")
    }

    @Test func aFifoWhereTheGlobalsAreKeptHangsNoCopy() throws {
        let account = try TestUser.ensure()
        let shared = try SharedDirectory()
        let compositor = try DataControlCompositor(ext: true, wlr: true, directory: shared.path)
        defer { compositor.stop() }
        let fifo = compositor.socket + ".userdebug-globals-\(getuid())"
        let made = try runTool("/usr/bin/setpriv", Array(TestUser.runningAs(account).dropFirst()) + ["mkfifo", fifo])
        try #require(made.status == 0, "\(made)")

        let copied = try run(["copy-id", "--to", "clipboard"], compositor.clientEnvironment)
        #expect(!copied.overran && copied.termination == .exited(0), "\(copied)")
        let read = try Peer.read(["wl-paste", "-n"], environment: compositor.environment, limit: 30)
        #expect(read.bytes == Array("usr_1".utf8), "\(read)")
    }

    @Test func aLockOfAnotherUserIsNotTheRunningDaemon() throws {
        let account = try TestUser.ensure()
        let shared = try SharedDirectory()
        try withXvfb { x in
            let lock = shared.path + "/userdebug-daemon-\(x.display).lock"
            let ready = shared.path + "/locked"
            let holder = try OtherUserProgram(
                account: account,
                script: """
                    import fcntl, os, sys, time
                    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
                    os.write(fd, b"1\\n"); fcntl.flock(fd, fcntl.LOCK_EX)
                    open(sys.argv[2], "w").close()
                    time.sleep(600)
                    """, arguments: [lock, ready], ready: ready)
            defer { holder.stop() }
            let environment = home.environment.merging(["DISPLAY": x.display, "XDG_RUNTIME_DIR": shared.path]) { $1 }
            let daemon = try DaemonRun(home: home, environment: environment)
            defer {
                daemon.stop()
                unlink("/tmp/userdebug-\(getuid())/userdebug-daemon-\(x.display).lock")
            }
            #expect(daemon.waitFor("daemon: pid \(daemon.pid) "), "\(daemon.text)")
            #expect(!daemon.text.contains("already runs"), "\(daemon.text)")
            #expect(
                daemon.text.contains(
                    "XDG_RUNTIME_DIR \(shared.path) has mode 1777, not 0700, so the lock is in /tmp/userdebug-\(getuid()); fix: set XDG_RUNTIME_DIR to a directory of yours with mode 0700"
                ), "\(daemon.text)")
            #expect(daemon.exited() == nil, "\(daemon.text)")
        }
    }

    @Test func aNotificationNeverGoesToASessionBusOfAnotherUser() throws {
        let account = try TestUser.ensure()
        let shared = try SharedDirectory()
        let bus = shared.path + "/bus"
        let log = shared.path + "/received"
        let listener = try OtherUserProgram(
            account: account,
            script: """
                import os, socket, sys
                path, log = sys.argv[1], sys.argv[2]
                s = socket.socket(socket.AF_UNIX); s.bind(path + ".new"); s.listen(8); os.rename(path + ".new", path)
                while True:
                    c, _ = s.accept(); data = b""
                    while chunk := c.recv(4096): data += chunk
                    c.close()
                    with open(log, "a") as f: f.write("connection %d %r\\n" % (len(data), data))
                """, arguments: [bus, log], ready: bus)
        defer { listener.stop() }
        try home.file("config/config.json", #"{"notifications": "always"}"#)

        let result = try run(["copy-id", "--to", "stdout"], ["XDG_RUNTIME_DIR": shared.path])
        #expect(result.termination == .exited(0) && result.out == "usr_1\n", "\(result)")
        #expect(
            result.stderr.contains(
                "notification not shown: refusing the session bus at \(bus): it is served by uid \(account.uid), not by you (uid \(getuid())) or root"
            ), "\(result)")
        var received = ""
        #expect(
            eventually(timeout: 20) {
                received = String(decoding: readWholeFile(log) ?? [], as: UTF8.self)
                return received.contains("connection ")
            }, "the listener never logged our connection")
        #expect(received == "connection 0 b''\n", "the other user's bus received: \(received)")
    }
}
