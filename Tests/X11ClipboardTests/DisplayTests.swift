import CX11
import Foundation
import TestSupport
import Testing
import UserDebugKit
@_spi(Testing) import X11Clipboard

@Suite("Finding and reaching a display", .processDeadline(600))
struct DisplayTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let display: String
        let transport: cx11_transport?  // nil: rejected
        let path: String
        let host: String
        let number: Int32
        let screen: Int32
        var testDescription: String { "\"\(display)\"" }
    }

    static let rows: [Row] = [
        Row(display: ":0", transport: CX11_TRANSPORT_UNIX, path: "/tmp/.X11-unix/X0", host: "", number: 0, screen: 0),
        Row(
            display: ":12.1", transport: CX11_TRANSPORT_UNIX, path: "/tmp/.X11-unix/X12", host: "", number: 12,
            screen: 1),
        Row(
            display: "unix:3", transport: CX11_TRANSPORT_UNIX, path: "/tmp/.X11-unix/X3", host: "", number: 3, screen: 0
        ),
        Row(
            display: "unix/:4", transport: CX11_TRANSPORT_UNIX, path: "/tmp/.X11-unix/X4", host: "", number: 4,
            screen: 0),
        Row(
            display: "localhost:10.0", transport: CX11_TRANSPORT_TCP, path: "", host: "localhost", number: 10, screen: 0
        ),
        Row(display: "tcp/box:2", transport: CX11_TRANSPORT_TCP, path: "", host: "box", number: 2, screen: 0),
        Row(display: "[::1]:5", transport: CX11_TRANSPORT_TCP, path: "", host: "::1", number: 5, screen: 0),
        Row(display: "::1:6", transport: CX11_TRANSPORT_TCP, path: "", host: "::1", number: 6, screen: 0),
        Row(
            display: "/tmp/launch-x/org.x:0", transport: CX11_TRANSPORT_PATH, path: "/tmp/launch-x/org.x:0", host: "",
            number: 0, screen: 0),
        Row(display: "", transport: nil, path: "", host: "", number: 0, screen: 0),
        Row(display: "garbage", transport: nil, path: "", host: "", number: 0, screen: 0),
        Row(display: ":", transport: nil, path: "", host: "", number: 0, screen: 0),
        Row(display: ":x", transport: nil, path: "", host: "", number: 0, screen: 0),
        Row(display: ":0.", transport: nil, path: "", host: "", number: 0, screen: 0),
        Row(display: "host::0", transport: nil, path: "", host: "", number: 0, screen: 0),
        Row(display: "ftp/host:0", transport: nil, path: "", host: "", number: 0, screen: 0),
        Row(display: "host:70000", transport: nil, path: "", host: "", number: 0, screen: 0),
    ]

    @Test(arguments: rows)
    func displayStringsParseToAnAddressOrAreRejected(_ row: Row) {
        let parsed: cx11_display_addr
        do {
            parsed = try CX11Calls.parseDisplay(row.display)
        } catch {
            #expect(row.transport == nil, "unexpected rejection: \(error)")
            if case .noDisplay = error {} else { Issue.record("wrong error \(error)") }
            return
        }
        guard let transport = row.transport else {
            Issue.record("\(row.display) should be rejected")
            return
        }
        #expect(parsed.transport == transport)
        #expect(cString(parsed.path) == row.path)
        #expect(cString(parsed.host) == row.host)
        #expect(parsed.display == row.number)
        #expect(parsed.screen == row.screen)
    }

    @Test(arguments: ["", "garbage", ":x", "/nonexistent/socket:0", ":6553"])
    func anUnsetGarbageOrUnservedDisplayIsNoDisplay(_ display: String) {
        // An empty string stands for "unset" (nil would read this process's $DISPLAY).
        guard case .failure(.noDisplay) = X11Display.probe(display, timeout: 1) else {
            Issue.record("\(display) should be noDisplay")
            return
        }
        #expect(throws: ClipboardError.self) {
            try X11Clipboard(display: display).copy(Payload(text: "x"))
        }
    }

    @Test func aServerThatAcceptsButNeverAnswersFailsAtTheDeadline() throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let result = X11Display.probe(silent.display, timeout: 0.3)
        guard case .failure(.noDisplay(let reason)) = result else {
            Issue.record("expected noDisplay, got \(result)")
            return
        }
        #expect(reason.contains("did not answer"))
        #expect(throws: ClipboardError.self) {
            try X11Clipboard(display: silent.display).copy(
                Payload(text: "x"), options: CopyOptions(connectTimeout: 0.3))
        }
    }

    /// A caller that exits soon (the CLI) bounds the handshake with a timer signal to its own
    /// thread rather than a watchdog thread; the silent server still fails at the deadline, and
    /// the signal's disposition and the thread's mask are as they were before.
    @Test func theTimerSignalBoundFailsAtTheDeadlineAndRestoresTheSignal() throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let signal = __libc_current_sigrtmin() + 3
        var before = sigaction()
        var after = sigaction()
        var maskBefore = sigset_t()
        var maskAfter = sigset_t()
        sigaction(signal, nil, &before)
        pthread_sigmask(SIG_SETMASK, nil, &maskBefore)
        let clipboard = X11Clipboard(display: silent.display, policy: OwnerPolicy(callerExitsSoon: true))
        let outcome = Result { () throws(ClipboardError) in
            try clipboard.copy(Payload(text: "x"), options: CopyOptions(connectTimeout: 0.3))
        }
        guard case .failure(.noDisplay(let reason)) = outcome else {
            Issue.record("expected noDisplay, got \(outcome)")
            return
        }
        #expect(reason.contains("did not answer"), "\(reason)")
        let pasted = Result { () throws(ClipboardError) in
            try clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 0.3)
        }
        guard case .failure(.noDisplay) = pasted else {
            Issue.record("expected noDisplay from paste, got \(pasted)")
            return
        }
        sigaction(signal, nil, &after)
        pthread_sigmask(SIG_SETMASK, nil, &maskAfter)
        let handlerBefore = withUnsafeBytes(of: before.__sigaction_handler) { Array($0) }
        let handlerAfter = withUnsafeBytes(of: after.__sigaction_handler) { Array($0) }
        #expect(handlerBefore == handlerAfter)
        let restorer: Int32 = 0x0400_0000  // SA_RESTORER: glibc adds it to whatever it installs
        #expect(before.sa_flags & ~restorer == after.sa_flags & ~restorer)
        #expect(sigismember(&maskBefore, signal) == sigismember(&maskAfter, signal))
    }

    /// A display reached over TCP, by a name (resolved through getaddrinfo_a under the deadline)
    /// and by numeric addresses (resolved without a thread): each copy is owned and xclip, on the
    /// local socket of the same server, reads it.
    @Test(arguments: ["localhost", "127.0.0.1", "[::1]"])
    func aTCPDisplayIsReachedByNameAndByAddress(host: String) throws {
        try withXvfb(extraArguments: ["-listen", "tcp", "-ac"]) { x in
            let tcp = host + x.display  // x.display is ":N"
            let text = "over tcp to \(host)"
            try X11Clipboard(display: tcp).copy(Payload(text: text))
            let out = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment)
            #expect(out.status == 0)
            #expect(String(decoding: out.bytes, as: UTF8.self) == text)
        }
    }

    @Test func aDisplayWithACookieIsReachedWithTheCookieAndRefusedWithoutIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cx11-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cookie = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let serverAuth = dir.appendingPathComponent("server").path
        try Data(xauthEntry(family: 0xFFFF, address: [], number: "", cookie: cookie)).write(
            to: URL(fileURLWithPath: serverAuth))
        try withXvfbAuth(serverAuth) { display in
            let clientAuth = dir.appendingPathComponent("client").path
            var host = [CChar](repeating: 0, count: 256)
            gethostname(&host, host.count)
            let hostName = host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            let number = String(display.dropFirst())
            try Data(xauthEntry(family: 256, address: hostName, number: number, cookie: cookie))
                .write(to: URL(fileURLWithPath: clientAuth))
            let wrong = dir.appendingPathComponent("wrong").path
            try Data(xauthEntry(family: 256, address: hostName, number: number, cookie: cookie.reversed()))
                .write(to: URL(fileURLWithPath: wrong))

            guard case .success = X11Display.probe(display, authority: clientAuth, timeout: 2) else {
                Issue.record("the right cookie should be accepted")
                return
            }
            guard case .failure(.noDisplay) = X11Display.probe(display, authority: wrong, timeout: 2) else {
                Issue.record("a wrong cookie should be refused")
                return
            }
        }
    }

    private func withXvfbAuth(_ authFile: String, _ body: (String) throws -> Void) throws {
        let process = try Spawned.start(
            ["/usr/bin/Xvfb", "-displayfd", "1", "-noreset", "-nolisten", "tcp", "-auth", authFile],
            environment: ProcessInfo.processInfo.environment, pipeOutput: true)
        defer {
            process.kill()
            process.wait()
        }
        let display = ":" + (process.receiveLine() ?? "")
        close(process.output)
        // Listening precedes answering by a moment; the right cookie decides when it is up.
        _ = eventually {
            if case .success = X11Display.probe(display, authority: authFile, timeout: 1) { true } else { false }
        }
        try body(display)
    }

    /// One Xauthority record: big-endian lengths, as libXau reads them.
    private func xauthEntry(family: UInt16, address: [UInt8], number: String, cookie: [UInt8]) -> [UInt8] {
        func field(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
        return [UInt8(family >> 8), UInt8(family & 0xFF)] + field(address) + field(Array(number.utf8))
            + field(Array("MIT-MAGIC-COOKIE-1".utf8)) + field(cookie)
    }

    private func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// A Unix socket that accepts connections (the kernel does, from the backlog) and never answers.
/// DISPLAY names it launchd style: "/path/to/socket:0".
final class SilentServer: @unchecked Sendable {
    let fd: Int32
    let path: String
    var display: String { path }

    init() throws {
        path = "/tmp/cx11-silent-\(getpid())-\(UInt32.random(in: 0...UInt32.max)):0"
        guard let fd = UnixSocket.bound(to: path), listen(fd, 8) == 0 else {
            throw FixtureError("cannot listen on \(path)")
        }
        self.fd = fd
    }

    func close() {
        Glibc.close(fd)
        unlink(path)
    }
}
