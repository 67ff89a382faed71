import Foundation
import TestSupport
import Testing

/// `copy-token` against every clipboard manager packaged in Debian 12, each run for real: which
/// ones skip the token (the markers it is offered with), which keep it in their history anyway,
/// and which put it back on the clipboard once our owner clears it (taking the selection with
/// empty content, then destroying its window). docs/usage.md's table states the same facts; each
/// test fails if a manager stops behaving as the table says.
@Suite(.serialized, .desktopTier) struct ClipboardManagerHistoryTests {
    /// What README says of a manager.
    struct Documented {
        /// The token never reaches its history.
        var skipsToken: Bool
        /// Once our owner gives the token up after `secretClearSeconds`, the manager owns the
        /// clipboard again with the token (it "restores" an emptied clipboard); nil: it may,
        /// depending on whether its poll saw the clear's empty copy. `copy-token` names the
        /// managers that do or may.
        var restoresToken: Bool?
    }

    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        // Each copy its own owner, so the token's owner leaving is the clear.
        try home.file("config/config.json", #"{"clipboard": {"secretClearSeconds": 3, "reuseOwner": false}}"#)
    }

    /// CopyQ 6.4 honours `application/x-copyq-hidden` = 1 (not yet x-kde-passwordManagerHint,
    /// which CopyQ 8 added): the token is skipped.
    @Test func copyQSkipsTheToken() throws {
        try measure(.copyQ, Documented(skipsToken: true, restoresToken: false))
    }

    /// GPaste 43.1 honours no marker (a password is only kept apart when the user marks it). It
    /// puts its last item back when an owner sets the selection to None, but not when the
    /// owner's window goes, which is how the clear gives the token up: the clipboard stays empty.
    @Test func gPasteKeepsTheTokenButLeavesTheClearedClipboardEmpty() throws {
        try measure(.gPaste, Documented(skipsToken: false, restoresToken: false))
    }

    /// Diodon 1.13 honours no marker and restores an emptied clipboard.
    @Test func diodonKeepsTheTokenAndRestoresIt() throws {
        try measure(.diodon, Documented(skipsToken: false, restoresToken: true))
    }

    /// Parcellite 1.2.1 honours no marker and restores an emptied clipboard with the last text it
    /// polled: the clear's empty copy when its poll saw it, else the token (both were seen).
    @Test func parcelliteKeepsTheTokenAndMayRestoreIt() throws {
        try measure(.parcellite, Documented(skipsToken: false, restoresToken: nil))
    }

    /// ClipIt 1.4.4 (clipit.real): as Parcellite, which it was forked from.
    @Test func clipItKeepsTheTokenAndMayRestoreIt() throws {
        try measure(.clipIt, Documented(skipsToken: false, restoresToken: nil))
    }

    /// xfce4-clipman 1.6.2 honours no marker and restores an emptied clipboard with the last text
    /// it took: the clear's empty copy when it took that in time, else the token (both were seen
    /// since the clear takes the selection with empty content; a CI run saw the empty one).
    @Test func xfce4ClipmanKeepsTheTokenAndMayRestoreIt() throws {
        try measure(.xfce4Clipman, Documented(skipsToken: false, restoresToken: nil))
    }

    /// The daemon serves its keys' copies itself; after its clear of a token, a process it forks
    /// reads the clipboard back the same way: Diodon puts the token back, and the report names it.
    @Test func theDaemonsClearIsReadBackToo() throws {
        try withTokenKeyPressedUnderDiodon(clearSeconds: 2) { daemon in
            let (report, text) = clearReport()
            #expect(report && text.contains("\tdiodon (pid "), "\(text) \(daemon.text)")
            #expect(daemon.exited() == nil, "\(daemon.text)")
        }
    }

    /// A daemon stopped while its secret's clear is pending hands the copy to an owner process,
    /// which clears it and reads it back to the same report.
    @Test func aClearHandedOverAtSIGTERMIsReadBackToo() throws {
        var owner: Int32?
        defer { if let owner { kill(owner, SIGKILL) } }
        try withTokenKeyPressedUnderDiodon(clearSeconds: 3) { daemon in
            daemon.process.kill(SIGTERM)
            #expect(eventually { daemon.exited() != nil }, "\(daemon.text)")
            let served = daemon.text.split(separator: "\n").first { $0.contains("the clipboard is served by pid ") }
            owner = served.flatMap { $0.split(separator: " ").compactMap { Int32($0) }.first }.flatMap {
                $0 > 1 ? $0 : nil
            }
            #expect(owner != nil, "\(daemon.text)")
            let (report, text) = clearReport()
            #expect(report && text.contains("\tdiodon (pid "), "\(text) \(daemon.text)")
        }
    }

    /// Diodon watching a private Xvfb (it has recorded a plain copy), a daemon with a `copy-token`
    /// key whose clear comes after `clearSeconds`, and that key pressed (the daemon said "copied").
    func withTokenKeyPressedUnderDiodon(clearSeconds: Int, _ body: (DaemonRun) throws -> Void) throws {
        try home.file(
            "config/config.json",
            #"{"hotkeys": {"Super+Alt+T": "copy-token"}, "clipboard": {"secretClearSeconds": \#(clearSeconds)}}"#)
        try withXvfb { x in
            try withHistoryManager(.diodon, on: x) { running in
                let display = ["DISPLAY": x.display]
                try #require(try recorded("plain-before-token", by: running, display: display))
                let runtime = home.root.appendingPathComponent("run")
                try FileManager.default.createDirectory(
                    at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let daemon = try DaemonRun(
                    home: home,
                    environment: home.environment.merging(display.merging(["XDG_RUNTIME_DIR": runtime.path]) { $1 }) {
                        $1
                    })
                defer { daemon.stop() }
                try #require(daemon.waitFor("daemon: pid "), "\(daemon.text)")
                let key = try Peer.read(
                    ["xdotool", "key", "--delay", "0", "super+alt+t"], environment: x.environment, limit: 20)
                try #require(key.status == 0, "xdotool failed")
                try #require(daemon.waitFor("copied"), "\(daemon.text)")
                try body(daemon)
            }
        }
    }

    /// Whether the clear report appeared (within 30 s), and its text.
    func clearReport() -> (exists: Bool, text: String) {
        let path = home.root.appendingPathComponent("state/clear-report").path
        let exists = eventually(timeout: 30) { readWholeFile(path) != nil }
        return (exists, String(decoding: readWholeFile(path) ?? [], as: UTF8.self))
    }

    /// A plain copy first proves the manager records copies; then the token, its clear, and a
    /// second plain copy that the manager must record after it (so it has looked at the token).
    func measure(_ manager: HistoryManager, _ documented: Documented) throws {
        try withXvfb { x in
            var reported = false
            try withHistoryManager(manager, on: x) { running in
                let display = ["DISPLAY": x.display]
                try #require(
                    try recorded("plain-before-token", by: running, display: display),
                    "\(manager) never recorded a plain copy: it is not watching the clipboard")
                let token = try home.run(["copy-token", "--to", "clipboard"], extraEnvironment: display)
                try #require(token.status == 0, "\(token)")
                // A manager that puts the token back is named at copy time instead of a promised clear
                // (by its own name: a keeper another test runs meanwhile may be named beside it).
                let noticeName = manager.description.split(separator: " ").first.map(String.init) ?? ""
                #expect(
                    (token.err.contains(" \(noticeName) ") && token.err.contains(" back after the clear"))
                        == (documented.restoresToken != false),
                    "\(manager): \(token.err)")
                try #require(eventually(timeout: 60) { owners().isEmpty }, "the token was not cleared: \(owners())")
                let restored = eventually(timeout: documented.restoresToken != false ? 30 : 3) {
                    clipboard(x) == Array(Samples.canary.utf8)
                }
                if let restores = documented.restoresToken {
                    #expect(restored == restores, "\(manager) put the token back: \(restored)")
                }
                reported = try expectClearReport(
                    by: manager, restored: restored, documented: documented, display: display)
                try #require(try recorded("plain-after-token", by: running, display: display))
                #expect(
                    running.keeps(Samples.canary) == !documented.skipsToken,
                    "\(manager) kept the token: \(running.keeps(Samples.canary))")
            }
            if reported { try expectNextCopyNames(manager, display: ["DISPLAY": x.display]) }
        }
    }

    /// The owner read the clipboard back after the clear (it has left, so its check is over): a
    /// manager that put the token back is in the clear report, named by its process, and the next
    /// secret's copy says so; a manager that never does leaves no report. (A manager that only
    /// may restore it is held to the first rule when the report exists: its poll and the owner's
    /// check can see different moments.)
    @discardableResult
    func expectClearReport(
        by manager: HistoryManager, restored: Bool, documented: Documented, display: [String: String]
    ) throws -> Bool {
        let report = readWholeFile(home.root.appendingPathComponent("state/clear-report").path)
            .map { String(decoding: $0, as: UTF8.self) }
        switch documented.restoresToken {
        case false?:
            #expect(report == nil, "\(manager) never puts the token back, yet: \(report ?? "")")
        case true?:
            #expect(report?.hasPrefix("restored\t") == true, "no report of \(manager)'s restore: \(report ?? "none")")
        case nil:
            break
        }
        guard let report else { return false }
        #expect(report.contains("\t\(manager.processName) (pid "), "the report names someone else: \(report)")
        #expect(restored, "the owner saw the token back, the test never did: \(report)")
        return true
    }

    /// The next secret's copy once the manager is gone (so the known-keeper notice does not name it
    /// already, as for a keeper not on that list): the report's sentence names it.
    func expectNextCopyNames(_ manager: HistoryManager, display: [String: String]) throws {
        let doctor = try home.run(["doctor"], extraEnvironment: display)
        #expect(
            doctor.out.contains("clear: warning — the last clear did not hold: \(manager.processName) (pid "),
            "\(manager): \(doctor.out)")
        let again = try home.run(["copy-token", "--to", "clipboard", "--lifetime", "1"], extraEnvironment: display)
        try #require(again.status == 0, "\(again)")
        #expect(
            again.err.contains("the last clear did not hold: \(manager.processName) (pid "), "\(manager): \(again.err)")
        #expect(eventually(timeout: 30) { owners().isEmpty }, "the last copy's owner stayed: \(owners())")
    }

    /// Copies `text` (a new numbered copy every few seconds, as a manager only notices the
    /// clipboard once it watches it) until the manager's history holds it; false past a minute.
    func recorded(_ text: String, by running: RunningManager, display: [String: String]) throws -> Bool {
        for attempt in 0..<20 {
            try home.ok(["copy"], stdin: "\(text)-\(attempt)", extraEnvironment: display)
            if eventually(timeout: 3, { running.keeps("\(text)-\(attempt)") }) { return true }
        }
        return false
    }

    func clipboard(_ x: Xvfb) -> [UInt8]? {
        guard
            let out = try? Peer.read(
                ["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 10),
            out.status == 0
        else { return nil }
        return out.bytes
    }

    /// Our owners for this home: processes with its USERDEBUG_HOME in their environment.
    func owners() -> [Int32] {
        let marker = Array("USERDEBUG_HOME=\(home.root.path)".utf8)
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        return pids.filter { pid in
            guard !processExited(pid), let environ = readWholeFile("/proc/\(pid)/environ") else { return false }
            return environ.split(separator: 0).contains { Array($0) == marker }
        }
    }
}
