import Foundation
import TestSupport
import Testing

/// Launchers never wait for the slowest section (issue 24 item 7): a backend section that only
/// answers when the test releases it (the echo server's `/gated/slow`), beside a fast one. No
/// assertion depends on time: "before the slow section answered" is what the server logged
/// when the launcher's stdin was closed, and "not asked" is the server's request log.
@Suite(.serialized, .desktopTier) final class LauncherSlowSectionTests {
    let home: UserDebugHome
    let server: EchoServer

    init() throws {
        home = try UserDebugHome()
        server = try EchoServer(directory: home.root)
        try home.ok(
            ["session", "import", "-"],
            stdin: Samples.session.replacingOccurrences(of: "https://api.example.com", with: server.baseURL))
        try home.file(
            "config/config.json",
            #"""
            {"backend": {"timeoutSeconds": 60, "sections": [
              {"name": "fast", "title": "Fast", "path": "/fast"},
              {"name": "slow", "title": "Slow", "path": "/gated/slow"}]}}
            """#)
    }

    deinit {
        // A request still waiting at the server ends now, and so does the curl that made it.
        server.release("slow")
        server.stop()
    }

    /// How many times the slow section was asked.
    func slowRequests() throws -> Int {
        try server.requests().filter { $0.target == "/gated/slow" }.count
    }

    /// A stand-in dmenu: pass N keeps its stdin in `lines-N` (read to the end: the launcher
    /// draws only then) and what the server had answered at that moment in `answered-N`, then
    /// releases the slow section when `release` is set, and prints `choices[N-1]`: a line, or
    /// `grep:PATTERN` for the first line of its input that matches.
    func launcher(choices: [String], release: Bool) throws -> String {
        let dir = home.root.appendingPathComponent("launcher").path
        var script = """
            #!/bin/sh
            n=$(($(cat '\(dir)/passes' 2>/dev/null || echo 0) + 1))
            echo "$n" > '\(dir)/passes'
            cat > '\(dir)/lines-'$n
            cat '\(server.logPath).answered' > '\(dir)/answered-'$n 2>/dev/null

            """
        if release { script += "touch '\(server.logPath).gate-slow'\n" }
        script += "case $n in\n"
        for (index, choice) in choices.enumerated() {
            if choice.hasPrefix("grep:") {
                script += "\(index + 1)) grep -m1 -F -- '\(choice.dropFirst(5))' '\(dir)/lines-'$n ;;\n"
            } else {
                script += "\(index + 1)) echo '\(choice)' ;;\n"
            }
        }
        script += "esac\n"
        let path = try home.file("launcher/dmenu.sh", script)
        chmod(path, 0o755)
        return path
    }

    /// The live curl processes started for this test's home (their environment names it).
    func curls() -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { Int($0) != nil } ?? []
        return pids.filter { pid in
            let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            guard comm.hasPrefix("curl"), let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
            else { return false }
            return String(decoding: environ, as: UTF8.self).contains("USERDEBUG_HOME=" + home.root.path + "\0")
        }
    }

    func pass(_ n: Int, _ what: String) -> String {
        (try? String(contentsOfFile: home.root.appendingPathComponent("launcher/\(what)-\(n)").path, encoding: .utf8))
            ?? ""
    }

    @Test func theLauncherGetsTheReadyLinesBeforeTheSlowSectionAnswersAndASecondPassForIt() throws {
        try withXvfb { x in
            let stub = try launcher(choices: ["Slow (loading)", "grep:Slow › Copy target"], release: true)
            let result = try home.run(
                ["menu", "--dmenu", "--launcher", stub], extraEnvironment: ["DISPLAY": x.display])
            #expect(result.status == 0, "\(result)")
            let first = pass(1, "lines").split(separator: "\n").map(String.init)
            #expect(first.contains("Copy Identifier — usr_1"), "\(first)")
            #expect(first.contains("Slow (loading)"), "\(first)")
            #expect(!first.contains { $0.hasPrefix("Slow › ") }, "\(first)")
            // The launcher had the whole first list (its stdin at end of file) while the server
            // still held the slow request: it had answered nothing.
            #expect(!pass(1, "answered").contains("slow"), "\(pass(1, "answered"))")
            // The second pass: the slow section's lines only, once it answered.
            let second = pass(2, "lines").split(separator: "\n").map(String.init)
            #expect(!second.isEmpty && second.allSatisfy { $0.hasPrefix("Slow › ") }, "\(second)")
            #expect(second.contains("Slow › Copy target — /gated/slow"), "\(second)")
            #expect(x.readOnceOwned() == Array("/gated/slow".utf8))
            #expect(try slowRequests() == 1, "the slow section was asked once")
        }
    }

    @Test func choosingAReadyEntryRunsItWithoutWaitingForTheSlowSection() throws {
        try withXvfb { x in
            let stub = try launcher(choices: ["Copy Identifier — usr_1"], release: false)
            let result = try home.run(
                ["menu", "--dmenu", "--launcher", stub], extraEnvironment: ["DISPLAY": x.display])
            #expect(result.status == 0, "\(result)")
            #expect(x.readOnceOwned() == Array("usr_1".utf8))
            // userdebug is done and the slow request is still held at the server; the curl
            // that asked for it went with userdebug.
            #expect(server.answered().isEmpty, "\(server.answered())")
            #expect(try slowRequests() == 1)
            #expect(eventually(timeout: 10) { curls().isEmpty }, "\(curls())")
            #expect(pass(1, "lines").contains("Slow (loading)"))
        }
    }

    @Test func runOfOneSectionsActionAsksOnlyThatSection() throws {
        let fast = try home.ok(["run", "backend.fast.field.target", "--to", "stdout"])
        #expect(fast.out == "/fast\n", "\(fast)")
        #expect(try slowRequests() == 0, "\((try? server.requests().map(\.target)) ?? [])")
        server.release("slow")
        let slow = try home.ok(["run", "backend.slow.field.target", "--to", "stdout"])
        #expect(slow.out == "/gated/slow\n", "\(slow)")
        #expect(try server.requests().map(\.target) == ["/fast", "/gated/slow"])
    }

    @Test func rofiListsTheSlowSectionAsLoadingAndItsChoiceAsksNothingElse() throws {
        try withXvfb { x in
            let list = try home.ok(["rofi"])
            let rows = list.out.split(separator: "\n").map(String.init)
            let loading = try #require(rows.first { $0.hasPrefix("Slow (loading)\0") }, "\(rows)")
            #expect(loading.hasSuffix("\0info\u{1f}loading backend.slow"), "\(loading)")
            #expect(!rows.contains { $0.hasPrefix("Slow › ") }, "\(rows)")
            #expect(server.answered().isEmpty, "rofi listed before the slow section answered")
            #expect(eventually(timeout: 10) { curls().isEmpty }, "\(curls())")
            let asked = try slowRequests()
            // rofi calls the script again with the chosen row's info: only the fast section is asked.
            let chosen = try home.run(
                ["rofi", "Fast › Copy method — GET"],
                extraEnvironment: [
                    "DISPLAY": x.display, "ROFI_RETV": "1", "ROFI_INFO": "backend.fast.field.method",
                ])
            #expect(chosen.status == 0 && chosen.stdout.isEmpty, "\(chosen)")
            #expect(x.readOnceOwned() == Array("GET".utf8))
            #expect(try slowRequests() == asked, "the choice asked the slow section again")
            // The loading row chosen: the menu again, with the slow section once it answered.
            server.release("slow")
            let again = try home.ok(
                ["rofi", "Slow (loading)"], extraEnvironment: ["ROFI_RETV": "1", "ROFI_INFO": "loading backend.slow"])
            #expect(
                again.out.contains("Slow › Copy target — /gated/slow\0info\u{1f}backend.slow.field.target"), "\(again)")
            // An id of a section still loading, typed in (ROFI_RETV=2): it runs once that section answers.
            let typed = try home.run(
                ["rofi", "backend.slow.field.target"], extraEnvironment: ["DISPLAY": x.display, "ROFI_RETV": "2"])
            #expect(typed.status == 0 && typed.stdout.isEmpty, "\(typed)")
            #expect(x.readOnceOwned(until: { $0 == Array("/gated/slow".utf8) }) == Array("/gated/slow".utf8))
        }
    }
}
