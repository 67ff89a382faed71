import Foundation
import TestSupport
import UserDebugKit

/// `Tests/Support/gtk4_reader.py`: a native GTK4 application that reads the clipboard through
/// GDK, as a desktop's own apps do (a Wayland selection reaches it only while its window has the
/// keyboard focus). It maps one window, then answers `read clipboard` / `read primary` with a
/// JSON line. Every wait on it has a deadline; `stop` kills it by pid and reaps it.
final class GTK4Reader: @unchecked Sendable {
    private let child: Spawned
    private var stopped = false

    static let script = repositoryRoot.appendingPathComponent("Tests/Support/gtk4_reader.py").path

    /// Starts the reader with `environment` (WAYLAND_DISPLAY and XDG_RUNTIME_DIR for Wayland,
    /// DISPLAY for X11; `wayland` picks GDK's backend), as `account` when given, and waits until
    /// its window is mapped.
    init(environment: [String: String], wayland: Bool, account: TestUser.Account?) throws {
        var env = environment
        env["GDK_BACKEND"] = wayland ? "wayland" : "x11"
        env["GSK_RENDERER"] = "cairo"  // no GL on the headless outputs
        env["GTK_A11Y"] = "none"  // no accessibility bus to find
        env["NO_AT_BRIDGE"] = "1"
        env["PATH"] = env["PATH"] ?? "/usr/bin:/bin"
        if wayland { env["DISPLAY"] = nil } else { env["WAYLAND_DISPLAY"] = nil }
        let command = ["timeout", "-s", "KILL", "300", "/usr/bin/python3", Self.script]
        child = try Spawned.start(
            (account.map(TestUser.runningAs) ?? []) + command, environment: env, pipeInput: true, pipeOutput: true)
        guard let ready = line(within: 60), ready.contains("\"ready\"") else {
            stop()
            throw FixtureError(message: "the GTK4 reader did not map its window (\(Self.script))")
        }
    }

    deinit { stop() }

    /// What GDK reads from `selection` as text: nil when the clipboard is empty; throws when GDK
    /// fails or does not answer within 20 s.
    func read(_ selection: SelectionName = .clipboard) throws -> String? {
        let command = Array("read \(selection.rawValue)\n".utf8)
        guard command.withUnsafeBytes({ Glibc.write(child.input, $0.baseAddress, $0.count) }) == command.count else {
            throw FixtureError(message: "the GTK4 reader's input is closed")
        }
        guard let answer = line(within: 20) else { throw FixtureError(message: "the GTK4 reader did not answer") }
        guard let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any] else {
            throw FixtureError(message: "the GTK4 reader said \(answer)")
        }
        if let error = object["error"] as? String { throw FixtureError(message: "GDK: \(error)") }
        return object["text"] as? String
    }

    /// One line of the reader's output within `seconds`, else nil.
    private func line(within seconds: Double) -> String? {
        let deadline = monotonicSeconds() + seconds
        var bytes: [UInt8] = []
        while true {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { return nil }
            var fds = pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)
            guard poll(&fds, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var byte: UInt8 = 0
            guard Glibc.read(child.output, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    private func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        close(child.input)  // the reader quits at end of input
        // `timeout` passes SIGTERM on to the reader; SIGKILL would leave the reader running.
        let pid = child.pid
        if !eventually(timeout: 5, { processExited(pid) }) { child.kill(SIGTERM) }
        if !eventually(timeout: 5, { processExited(pid) }) { child.kill() }
        child.wait()
        close(child.output)
    }
}
