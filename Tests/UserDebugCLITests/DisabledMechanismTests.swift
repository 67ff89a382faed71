import Foundation
import TestSupport
import Testing
import UserDebugKit

/// `USERDEBUG_DISABLE` (docs/diagnosis.md): each speed mechanism turned off leaves the tool
/// correct on the path it serves (a copy read back by a real peer), and the switch really turns
/// the mechanism off (what it would have done is seen not to happen: no socket, no file, no call).
/// The X11 and store paths; the Wayland ones are `DisabledMechanismWaylandTests`, the daemon's
/// `DaemonTests.withTheHostedOwnerOffAKeyCopiesThroughAnOwnerProcess`.
@Suite struct DisabledMechanismTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func xclipOut(_ x: Xvfb, target: String = "UTF8_STRING") throws -> [UInt8] {
        try Peer.read(["xclip", "-o", "-selection", "clipboard", "-t", target], environment: x.environment, limit: 30)
            .bytes
    }

    /// Runs the binary under `strace -e trace=CALLS` (this process only: a forked owner is not
    /// followed, so strace returns with the copy); the result and the trace's text.
    func traced(_ calls: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String]) throws
        -> (result: RunResult, trace: String)
    {
        let trace = home.root.appendingPathComponent("strace-\(UUID().uuidString)").path
        let result = try runTool(
            "/usr/bin/strace", ["-qq", "-o", trace, "-e", "trace=" + calls, UserDebugHome.binary] + arguments,
            stdin: stdin, environment: home.environment.merging(environment) { $1 })
        let text = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
        return (result, text)
    }

    @Test func parsingNamesEveryMechanismAndReportsTheUnknown() {
        #expect(DisabledMechanisms.parse("resident, globals-cache").disabled == [.resident, .globalsCache])
        #expect(DisabledMechanisms.parse("all").disabled.isSuperset(of: [.hostedOwner, .sessionCache, .largeBuffer]))
        #expect(DisabledMechanisms.parse("session-cache,bogus").unknown == ["bogus"])
        #expect(DisabledMechanisms.parse("").disabled.isEmpty)
    }

    @Test func anUnknownNameIsNamedOnStandardErrorAndTheCommandStillRuns() throws {
        let result = try home.run(
            ["copy-id", "--to", "stdout"], extraEnvironment: ["USERDEBUG_DISABLE": "resident,residnet"])
        #expect(result.status == 0 && result.out == "usr_1\n", "\(result)")
        #expect(result.err.contains("USERDEBUG_DISABLE: unknown 'residnet'"), "\(result)")
    }

    @Test func withTheResidentOwnerOffEveryCopyIsItsOwnAndNoneListens() throws {
        try withXvfb { x in
            let off = ["DISPLAY": x.display, "USERDEBUG_DISABLE": "resident"]
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: off)
            #expect(try xclipOut(x) == Array("usr_1".utf8))
            #expect(!x.residentOwnerListens(executable: UserDebugHome.binary))
            try home.ok(["session", "set", "--id", "usr_2"])
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: off)
            #expect(try xclipOut(x) == Array("usr_2".utf8))
            #expect(!x.residentOwnerListens(executable: UserDebugHome.binary))
            // On, the owner a copy leaves listens for the next one.
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
            #expect(eventually { x.residentOwnerListens(executable: UserDebugHome.binary) })
            #expect(try xclipOut(x) == Array("usr_2".utf8))
        }
    }

    /// Whether an mmap trace shows the copy's block: a read-write MAP_NORESERVE reservation at
    /// an address of the kernel's choosing, of the whole 2 GiB limit (or a half, a quarter… of it
    /// under a smaller address-space limit, never under 64 MiB). ASan's own reservations are
    /// fixed, PROT_NONE or 8 MiB.
    static func reservesTheBlock(_ trace: String) -> Bool {
        let head = "mmap(NULL, "
        let flags = ", PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE,"
        return trace.split(separator: "\n").contains { line in
            guard line.hasPrefix(head), line.contains(flags) else { return false }
            return (Int(line.dropFirst(head.count).prefix { $0.isNumber }) ?? 0) >= 1 << 26
        }
    }

    @Test func withTheLargeBufferOffALargeCopyIsReadIntoAnArrayAndServedWhole() throws {
        // 6 MiB of UTF-8 text from a pipe (INCR for xclip), and binary bytes, which stay binary.
        let text = Data((0..<200_000).map { "zeile \($0) größe\n" }.joined().utf8)
        try withXvfb { x in
            let env = ["DISPLAY": x.display, "USERDEBUG_DISABLE": "large-buffer"]
            let off = try traced("mmap", ["copy", "-q"], stdin: text, environment: env)
            #expect(off.result.status == 0, "\(off.result)")
            #expect(!Self.reservesTheBlock(off.trace), "\(off.trace)")
            #expect(try xclipOut(x) == Array(text))
            let binary = Data([0xff, 0x00, 0xfe, 0x41])
            let copied = try home.run(["copy", "-q"], stdin: binary, extraEnvironment: env)
            #expect(copied.status == 0, "\(copied)")
            #expect(try xclipOut(x, target: "application/octet-stream") == Array(binary))
            let on = try traced("mmap", ["copy", "-q"], stdin: text, environment: ["DISPLAY": x.display])
            #expect(on.result.status == 0 && Self.reservesTheBlock(on.trace), "\(on.trace)")
            #expect(try xclipOut(x) == Array(text))
        }
    }

    @Test func withTheSessionCacheOffTheHotPathReadsTheStoreAndWritesNoCopy() throws {
        let copy = home.databasePath + "-current"
        let off = ["USERDEBUG_DISABLE": "session-cache"]
        usleep(150_000)  // settled: a miss would write the copy
        #expect(try home.ok(["copy-id", "--to", "stdout"], extraEnvironment: off).out == "usr_1\n")
        #expect(!FileManager.default.fileExists(atPath: copy))
        try home.ok(["session", "set", "--id", "usr_2"])
        usleep(150_000)
        #expect(try home.ok(["copy-id", "--to", "stdout"], extraEnvironment: off).out == "usr_2\n")
        try withXvfb { x in
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: off.merging(["DISPLAY": x.display]) { $1 })
            #expect(try xclipOut(x) == Array("usr_2".utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: copy))
        // On, the same command leaves the copy for the next one.
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_2\n")
        #expect(FileManager.default.fileExists(atPath: copy))
    }
}

/// `USERDEBUG_DISABLE` on the Wayland path (the data-control test compositor): the resident owner
/// and the globals cache file off, every copy read back by wl-paste.
@Suite(.desktopTier) struct DisabledMechanismWaylandTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func wlPaste(_ compositor: DataControlCompositor) throws -> [UInt8] {
        try Peer.read(["wl-paste", "-n"], environment: compositor.environment, limit: 30).bytes
    }

    /// Whether a resident owner of ours listens for this compositor (its socket's dev:ino are in
    /// the abstract name, cwl_resident.c).
    func residentListens(_ compositor: DataControlCompositor) -> Bool {
        var info = stat()
        guard stat(compositor.socket, &info) == 0 else { return false }
        let identity = "/" + String(UInt(info.st_dev), radix: 16) + ":" + String(UInt(info.st_ino), radix: 16) + "/"
        let table = String(decoding: readWholeFile("/proc/net/unix") ?? [], as: UTF8.self)
        return table.split(separator: "\n").contains { $0.contains("@userdebug-wl-owner-") && $0.contains(identity) }
    }

    @Test func withTheResidentOwnerOffEveryCopyIsItsOwnAndNoneListens() throws {
        let compositor = try DataControlCompositor(ext: true, wlr: true)
        defer { compositor.stop() }
        let off = compositor.clientEnvironment.merging(["USERDEBUG_DISABLE": "resident"]) { $1 }
        try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: off)
        #expect(try wlPaste(compositor) == Array("usr_1".utf8))
        try home.ok(["session", "set", "--id", "usr_2"])
        try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: off)
        #expect(try wlPaste(compositor) == Array("usr_2".utf8))
        #expect(!residentListens(compositor))
        try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: compositor.clientEnvironment)
        #expect(eventually { residentListens(compositor) })
        #expect(try wlPaste(compositor) == Array("usr_2".utf8))
    }

    @Test func withTheGlobalsCacheOffNoFileIsReadOrWritten() throws {
        let compositor = try DataControlCompositor(ext: true, wlr: true)
        defer { compositor.stop() }
        let file = compositor.socket + ".userdebug-globals-\(geteuid())"
        let off = compositor.clientEnvironment.merging(["USERDEBUG_DISABLE": "globals-cache"]) { $1 }
        try home.ok(["copy-id", "--to", "clipboard", "--new-owner"], extraEnvironment: off)
        #expect(try wlPaste(compositor) == Array("usr_1".utf8))
        #expect(!FileManager.default.fileExists(atPath: file))
        try home.ok(["session", "set", "--id", "usr_2"])
        try home.ok(["copy-id", "--to", "clipboard", "--new-owner"], extraEnvironment: off)
        #expect(try wlPaste(compositor) == Array("usr_2".utf8))
        #expect(!FileManager.default.fileExists(atPath: file))
        // On, a cold copy keeps the names for the next one.
        try home.ok(["copy-id", "--to", "clipboard", "--new-owner"], extraEnvironment: compositor.clientEnvironment)
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(try wlPaste(compositor) == Array("usr_2".utf8))
    }
}

extension DaemonTests {
    @Test func withTheHostedOwnerOffAKeyCopiesThroughAnOwnerProcess() throws {
        try home.file("config/config.json", Self.config)
        try withXvfb { x in
            let environment = try environment(x).merging(["USERDEBUG_DISABLE": "hosted-owner"]) { $1 }
            let daemon = try DaemonRun(home: home, environment: environment)
            defer { daemon.stop() }
            try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
            try setStale(x)
            try press(x, "super+alt+i")
            #expect(eventually { clipboard(x) == "usr_1" }, "\(daemon.text)")
            // Served by a process of its own (forked from the daemon, so X-Resource names the
            // daemon's pid for its connection): with the hosted owner there is none.
            #expect(eventually { !userdebugProcesses(on: x, except: daemon.pid).isEmpty }, "\(daemon.text)")
            try home.ok(["session", "set", "--id", "usr_2"])
            try press(x, "super+alt+i")
            #expect(eventually { clipboard(x) == "usr_2" }, "\(daemon.text)")
            for pid in userdebugProcesses(on: x, except: daemon.pid) { kill(pid, SIGKILL) }
        }
    }
}
