import Foundation
public import UserDebugKit
@_spi(Testing) public import X11Clipboard

/// A private Xvfb for one test: it picks a free display itself (`-displayfd`), so tests run in
/// parallel beside each other and beside any other X server; it is killed by pid at the end.
public final class Xvfb: @unchecked Sendable {
    /// The display name, e.g. `:7`.
    public let display: String
    /// The Xvfb process.
    public let process: Spawned
    private var stopped = false

    private init(display: String, process: Spawned) {
        self.display = display
        self.process = process
    }

    /// Xvfb's process id.
    public var pid: Int32 { process.pid }

    /// Starts a fresh Xvfb and waits until it answers; with `authority`, an Xauthority file
    /// (also the server's `-auth`) that it requires and the wait connects with.
    public static func start(extraArguments: [String] = [], authority: String? = nil) throws -> Xvfb {
        let auth = authority.map { ["-auth", $0] } ?? []
        let process = try Spawned.start(
            ["/usr/bin/Xvfb", "-displayfd", "1", "-noreset", "-nolisten", "tcp", "-screen", "0", "320x240x24"]
                + auth + extraArguments,
            environment: ProcessInfo.processInfo.environment, pipeOutput: true)
        // Xvfb writes the display number and a newline once it listens.
        guard let digits = process.receiveLine(), !digits.isEmpty else {
            process.kill()
            process.wait()
            throw FixtureError("Xvfb exited before announcing its display")
        }
        close(process.output)
        let xvfb = Xvfb(display: ":" + digits, process: process)
        let answered = eventually(timeout: 10) {
            if case .success = X11Display.probe(xvfb.display, authority: authority, timeout: 1) { return true }
            return false
        }
        guard answered else {
            xvfb.stop()
            throw FixtureError("Xvfb on \(xvfb.display) did not answer")
        }
        return xvfb
    }

    /// Kills this Xvfb by pid and reaps it (once).
    public func stop() {
        guard !stopped else { return }
        stopped = true
        process.kill(SIGKILL)
        process.wait()
    }

    /// Our clipboard on this display with a new owner process for every copy, asked for
    /// explicitly (the backend's default reuses one): most tests watch the process that serves
    /// each copy, its pid, its descriptors, its exit. The resident owner's tests use `clipboard(_:)`.
    public var clipboard: X11Clipboard { clipboard(OwnerPolicy(reuseOwner: false)) }

    /// Our clipboard on this display serving copies by `policy`.
    public func clipboard(_ policy: OwnerPolicy) -> X11Clipboard {
        X11Clipboard(display: display, policy: policy)
    }

    /// Our read of CLIPBOARD once a peer that returns before owning it has taken it.
    public func readOnceOwned(target: String = "UTF8_STRING", until settled: ([UInt8]) -> Bool = { _ in true })
        -> [UInt8]?
    {
        var bytes: [UInt8]? = nil
        _ = eventually {
            bytes = try? clipboard.paste(selection: .clipboard, target: target, timeout: 5)
            return bytes.map(settled) ?? false
        }
        return bytes
    }

    /// The abstract socket name on which our resident owner of `selection` on this display
    /// listens when `executable` forked it (the test process itself for library owners, the built
    /// `userdebug` for the CLI's): computed by the library's own function, never rebuilt here.
    public func residentOwnerName(selection: SelectionName = .clipboard, executable: String = "/proc/self/exe")
        -> String
    {
        guard let name = X11Display.residentOwnerName(display: display, selection: selection, executable: executable)
        else { preconditionFailure("no resident owner name for \(display) and \(executable)") }
        return name
    }

    /// Whether a resident owner of `selection` listens on this display (per /proc/net/unix).
    public func residentOwnerListens(selection: SelectionName = .clipboard, executable: String = "/proc/self/exe")
        -> Bool
    {
        let suffix = " @" + residentOwnerName(selection: selection, executable: executable)
        let table = String(decoding: readWholeFile("/proc/net/unix") ?? [], as: UTF8.self)
        return table.split(separator: "\n").contains { $0.hasSuffix(suffix) }
    }

    /// Environment for peers (xclip, xsel, Tk): only this display, no Xauthority.
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = display
        env.removeValue(forKey: "XAUTHORITY")
        // xsel offers UTF8_STRING only when LC_ALL/LC_CTYPE name a UTF-8 locale (LANG is not enough).
        env["LC_ALL"] = "C.UTF-8"
        return env
    }
}

/// Runs `body` with a fresh Xvfb that is killed afterwards, whatever happens (`authority`: see
/// `Xvfb.start`).
public func withXvfb<R>(extraArguments: [String] = [], authority: String? = nil, _ body: (Xvfb) throws -> R) throws
    -> R
{
    let xvfb = try Xvfb.start(extraArguments: extraArguments, authority: authority)
    defer { xvfb.stop() }
    return try body(xvfb)
}

/// Writes an Xauthority file at `path` holding one MIT-MAGIC-COOKIE-1 `cookie` for any host and
/// display (FamilyWild): an X server started with it as `-auth` requires the cookie, and a
/// client reading the file finds it for any display.
public func writeWildcardXauthority(_ path: String, cookie: [UInt8]) throws {
    func field(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
    let entry = [0xFF, 0xFF] + field([]) + field([]) + field(Array("MIT-MAGIC-COOKIE-1".utf8)) + field(cookie)
    try Data(entry).write(to: URL(fileURLWithPath: path))
}

/// A fixture that could not be set up.
public struct FixtureError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` until it holds or `timeout` seconds pass. Bounds a wait; never asserts a time.
public func eventually(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

/// Whether a process is gone (or a zombie nobody reaped: PID 1 here may not reap orphans).
public func processExited(_ pid: Int32) -> Bool {
    if kill(pid, 0) != 0 && errno == ESRCH { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
    // The state follows the parenthesised command name.
    guard let close = stat.lastIndex(of: ")") else { return false }
    let rest = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces)
    return rest.hasPrefix("Z") || rest.hasPrefix("X")
}

/// The whole of a file, read until end of file; nil when it cannot be opened or read. Files in
/// /proc report size 0 and return about a page per read, so a single sized read gets only the
/// start of a long table such as /proc/net/unix.
public func readWholeFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n == 0 { return bytes }
        if n < 0 {
            if errno == EINTR { continue }
            return nil
        }
        bytes.append(contentsOf: chunk[0..<n])
    }
}
