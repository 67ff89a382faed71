import Foundation
import TestSupport
import Testing
import UserDebugKit

/// X servers that stop answering or die, and the shell forms a hotkey or a script uses, against
/// the built binary. No test asserts a time: each run has a deadline that kills it and fails the
/// test (`runBounded`), well short of the timeouts a hang would wait for, and the suite has a
/// process deadline.
@Suite("Faults: silent and dying X servers, shells", .processDeadline(300), .desktopTier)
struct FaultScenarioTests {
    /// A display that accepts connections and never answers.
    enum Silence: String, CaseIterable, Sendable {
        /// A real Xvfb, stopped with SIGSTOP (the kernel still accepts into its backlog).
        case stoppedXvfb
        /// A listener on the abstract socket `@/tmp/.X11-unix/X<n>` (tried before the file).
        case abstractSocket
        /// A listener on 127.0.0.1, port 6000 + n (`DISPLAY=127.0.0.1:<n>`).
        case tcp
    }

    /// `paste --timeout 60` and `copy` give up at the 1 s connect deadline, exit 69 and say the
    /// display did not answer; the run's deadline (20 s) is a third of the paste's timeout.
    @Test(arguments: Silence.allCases)
    func pasteAndCopyGiveUpAtTheConnectDeadline(_ silence: Silence) throws {
        try withSilentDisplay(silence) { display in
            let home = try UserDebugHome()
            var env = home.environment
            env["DISPLAY"] = display
            let paste = try runBounded(
                [UserDebugHome.binary, "paste", "--timeout", "60"], environment: env, deadline: 20)
            #expect(paste.termination == .exited(69), "\(paste)")
            #expect(paste.stderr.contains("did not answer"), "\(paste)")
            #expect(paste.stdout.isEmpty)
            let copy = try runBounded(
                [UserDebugHome.binary, "copy"], environment: env, stdin: Array("lost".utf8), deadline: 20)
            #expect(copy.termination == .exited(69), "\(copy)")
            #expect(copy.stderr.contains("did not answer"), "\(copy)")
        }
    }

    /// The X server dies while the owner idles: the owner leaves by its own exit path (status 0,
    /// not a signal, so no core file whatever core_pattern says).
    @Test func anIdleOwnerLeavesWhenItsServerDies() throws {
        let x = try Xvfb.start()
        defer { x.stop() }
        let watch = try OwnerWatch(copying: "owned until the end", on: x.display)
        defer { watch.stop() }
        #expect(try xclipReads(x) == "owned until the end")
        // No handler of the Swift runtime that forked it (crash and SIGQUIT backtracer) is left.
        // glibc's own SIGCANCEL (32) and SIGSETXID (33) may be: it installs them once the process
        // has had a second thread (the connect's watchdog), and only glibc sends them, to its threads.
        let glibcInternal: UInt64 = 1 << 31 | 1 << 32
        for owner in watch.owners {
            let status = String(decoding: readWholeFile("/proc/\(owner)/status") ?? [], as: UTF8.self)
            let caught = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
                .flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) }
            #expect(caught.map { $0 & ~glibcInternal } == 0, "\(status)")
        }
        x.stop()
        let ends = watch.ends(deadline: 20)
        #expect(ends == watch.owners.map { "ended \($0) exit 0 nocore" }, "the owner did not leave by itself: \(ends)")
    }

    /// SIGTERM reaches the owner while its X server is stopped: it leaves by itself (exit 0)
    /// after the connect deadline instead of waiting on the stopped server for each of its last
    /// requests.
    @Test func anOwnerToldToLeaveWhileItsServerIsStoppedLeaves() throws {
        let x = try Xvfb.start()
        defer { x.stop() }
        let watch = try OwnerWatch(copying: "stopped server", on: x.display)
        defer { watch.stop() }
        #expect(try xclipReads(x) == "stopped server")
        kill(x.pid, SIGSTOP)
        defer { kill(x.pid, SIGCONT) }
        for owner in watch.owners { kill(owner, SIGTERM) }
        let ends = watch.ends(deadline: 20)
        #expect(ends == watch.owners.map { "ended \($0) exit 0 nocore" }, "\(ends)")
    }

    /// The forms a script or a hotkey uses return at once (within the run's deadline), and the
    /// clipboard is still served afterwards: a command substitution, a pipe into cat, a `script`
    /// session that ends, and one that is killed.
    @Test func shellFormsReturnAndTheClipboardStaysServed() throws {
        let x = try Xvfb.start()
        defer { x.stop() }
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        var env = home.environment
        env["DISPLAY"] = x.display
        env["UD"] = UserDebugHome.binary
        let forms = [
            ("substitution", #"x=$("$UD" copy-id --to clipboard); printf '[%s]' "$x""#, "usr_1"),
            ("pipe", #"printf 'through cat' | "$UD" copy | cat"#, "through cat"),
            ("script", #"script -qec '"$UD" copy-id --to clipboard' /dev/null"#, "usr_1"),
        ]
        for (name, command, expected) in forms {
            try Peer.own(["xclip", "-selection", "clipboard", "-i"], input: [], environment: x.environment)
            let shell = try runBounded(["/bin/bash", "-c", command], environment: env, deadline: 20)
            #expect(shell.termination == .exited(0), "\(name): \(shell)")
            #expect(try xclipReads(x) == expected, "\(name): the clipboard is not served after the shell returned")
        }
        // A session killed while its shell still runs: the owner was detached from its terminal.
        let session = try Spawned.start(
            ["/usr/bin/script", "-qec", #"printf 'from a killed session' | "$UD" copy; sleep 60"#, "/dev/null"],
            environment: env)
        defer {
            session.kill()
            session.wait()
        }
        #expect(eventually(timeout: 20) { (try? xclipReads(x)) == "from a killed session" })
        session.kill()
        session.wait()
        #expect(try xclipReads(x) == "from a killed session", "the owner died with the killed session")
    }

    /// `paste`, which needs a display to reach its output (StdoutFailureTests runs without one),
    /// to a closed stdout, /dev/full and a broken pipe: exit 74 naming standard output.
    @Test func pasteToAFailingStandardOutputIsExit74() throws {
        let x = try Xvfb.start()
        defer { x.stop() }
        try Peer.own(
            ["xclip", "-selection", "clipboard", "-i"], input: Array("pasted".utf8), environment: x.environment)
        let home = try UserDebugHome()
        var env = home.environment
        env["DISPLAY"] = x.display
        let working = try runBounded([UserDebugHome.binary, "paste"], environment: env, deadline: 20)
        #expect(working.out == "pasted", "\(working)")
        for setup in [StdoutSetup.closed, .full, .brokenPipe] {
            let failing = try runBounded(
                [UserDebugHome.binary, "paste"], environment: env, stdout: setup, deadline: 20)
            #expect(failing.termination == .exited(74), "\(setup.testDescription): \(failing)")
            #expect(failing.stderr.contains("standard output"), "\(setup.testDescription): \(failing)")
        }
    }

    /// The cookie of a server that requires one is found in `$XAUTHORITY`, else in
    /// `$HOME/.Xauthority` (computed per call now, not by libXau's shared buffer).
    @Test func theCookieIsFoundInXauthorityAndInHome() throws {
        let home = try UserDebugHome()
        let file = home.root.appendingPathComponent(".Xauthority").path
        try writeWildcardXauthority(file, cookie: (0..<16).map { _ in UInt8.random(in: 0...255) })
        try withXvfb(authority: file) { x in
            var env = home.environment  // HOME is the home's root, which holds .Xauthority
            env["DISPLAY"] = x.display
            let fromHome = try runBounded(
                [UserDebugHome.binary, "copy"], environment: env, stdin: Array("via HOME".utf8), deadline: 20)
            #expect(fromHome.termination == .exited(0), "\(fromHome)")
            env["HOME"] = "/nonexistent"
            env["XAUTHORITY"] = file
            let pasted = try runBounded([UserDebugHome.binary, "paste"], environment: env, deadline: 20)
            #expect(pasted.termination == .exited(0), "\(pasted)")
            #expect(pasted.out == "via HOME")
        }
    }

    /// CLIPBOARD as xclip reads it (nil when it cannot).
    private func xclipReads(_ x: Xvfb) throws -> String? {
        let out = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 20)
        return out.status == 0 ? String(decoding: out.bytes, as: UTF8.self) : nil
    }

    /// Runs `body` with the DISPLAY of a display that accepts and never answers.
    private func withSilentDisplay(_ silence: Silence, _ body: (String) throws -> Void) throws {
        switch silence {
        case .stoppedXvfb:
            let x = try Xvfb.start()
            defer { x.stop() }
            kill(x.pid, SIGSTOP)
            defer { kill(x.pid, SIGCONT) }
            try body(x.display)
        case .abstractSocket, .tcp:
            let listener = try SilentListener(tcp: silence == .tcp)
            defer { listener.close() }
            try body(listener.display)
        }
    }
}

/// A socket that accepts connections (the kernel does, into the backlog) and never answers, on
/// a display number no X server uses: the abstract socket `@/tmp/.X11-unix/X<n>`, or TCP
/// 127.0.0.1:6000+n.
final class SilentListener: @unchecked Sendable {
    let fd: Int32
    let display: String

    init(tcp: Bool) throws {
        for _ in 0..<200 {
            let number = Int.random(in: 600..<2000)
            let fd = socket(tcp ? AF_INET : AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { break }
            if tcp ? Self.bindTCP(fd, port: 6000 + number) : Self.bindAbstract(fd, number: number), listen(fd, 16) == 0
            {
                self.fd = fd
                display = tcp ? "127.0.0.1:\(number)" : ":\(number)"
                return
            }
            Glibc.close(fd)
        }
        throw FixtureError(message: "no free display number for a silent listener")
    }

    func close() { Glibc.close(fd) }

    private static func bindAbstract(_ fd: Int32, number: Int) -> Bool {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let name = Array("/tmp/.X11-unix/X\(number)".utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in name.enumerated() { raw[i + 1] = b }  // raw[0] == 0: the abstract namespace
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.count)
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 }
        }
    }

    private static func bindTCP(_ fd: Int32, port: Int) -> Bool {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// `userdebug copy` run under a small child subreaper (python3), so that the owner process it
/// leaves behind is reparented to the watcher, which reports how it ends: `ended PID exit N
/// nocore` or `ended PID signal N core|nocore`. A process that is not our child could not tell.
final class OwnerWatch: @unchecked Sendable {
    static let script = #"""
        import ctypes, os, sys, time
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        copy = os.fork()
        if copy == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        _, status = os.waitpid(copy, 0)
        def parent(pid):
            try:
                data = open(f"/proc/{pid}/stat", "rb").read()
            except OSError:
                return None
            return int(data[data.rindex(b")") + 2:].split()[1])
        owners = [int(p) for p in os.listdir("/proc") if p.isdigit() and parent(int(p)) == os.getpid()]
        print("copied", os.waitstatus_to_exitcode(status), *owners, flush=True)
        end = time.monotonic() + 120
        while time.monotonic() < end:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                time.sleep(0.02)
                continue
            how = f"exit {os.WEXITSTATUS(status)}" if os.WIFEXITED(status) else f"signal {os.WTERMSIG(status)}"
            print("ended", pid, how, "core" if os.WCOREDUMP(status) else "nocore", flush=True)
        """#

    let process: Spawned
    /// The owner processes the copy left (normally one).
    let owners: [Int32]
    /// Those that ended (reported by the watcher).
    private let ended = Flag()

    /// Copies `text` to CLIPBOARD on `display` with the built binary and reads which owner
    /// processes it left.
    init(copying text: String, on display: String) throws {
        let home = try UserDebugHome()
        var env = home.environment
        env["DISPLAY"] = display
        process = try Spawned.start(
            ["/usr/bin/python3", "-c", Self.script, UserDebugHome.binary, "copy"], environment: env, pipeInput: true,
            pipeOutput: true)
        process.send(Array(text.utf8))
        let line = process.receiveLine() ?? ""
        let words = line.split(separator: " ")
        guard words.count >= 3, words[0] == "copied", words[1] == "0" else {
            process.kill()
            process.wait()
            throw FixtureError(message: "the copy under the watcher failed: '\(line)'")
        }
        owners = words.dropFirst(2).compactMap { Int32($0) }
    }

    /// The `ended …` lines, one per owner, each read by `deadline` seconds from now (a line
    /// missing then is not there).
    func ends(deadline: Double) -> [String] {
        let end = Date().addingTimeInterval(deadline)
        var lines: [String] = []
        for _ in owners {
            var ready = pollfd(fd: process.output, events: Int16(POLLIN), revents: 0)
            while Date() < end, poll(&ready, 1, 100) == 0 {}
            guard ready.revents != 0, let line = process.receiveLine() else { break }
            lines.append(line)
        }
        if lines.count == owners.count { ended.set() }
        return lines
    }

    /// Kills the owners (unless all of them were seen to end: their pids may be reused since)
    /// and the watcher, whatever state they are in.
    func stop() {
        if !ended.isSet { for owner in owners { kill(owner, SIGKILL) } }
        process.kill()
        process.wait()
    }
}
