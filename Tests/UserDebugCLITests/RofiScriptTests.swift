import Foundation
import TestSupport
import Testing

/// `userdebug rofi`: rofi-script(5) rows read directly, a run with ROFI_RETV=1, and the whole
/// round trip through the real `rofi -show`.
@Suite(.serialized, .desktopTier) struct RofiScriptTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    /// One row of script output: its text and its `\0key\x1fvalue` options.
    struct Row {
        var text: String
        var options: [String: String]
    }

    func rows(_ output: String) -> [Row] {
        output.split(separator: "\n").map { line in
            let parts = line.split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false)
            var options: [String: String] = [:]
            if parts.count == 2 {
                let fields = parts[1].split(separator: "\u{1f}", omittingEmptySubsequences: false).map(String.init)
                for index in stride(from: 0, to: fields.count - 1, by: 2) { options[fields[index]] = fields[index + 1] }
            }
            return Row(text: String(parts[0]), options: options)
        }
    }

    @Test func listsTheMenuAsRowsWithIdsAndPlaceholdersNotSelectable() throws {
        // A backend section whose curl fails: its row informs and cannot be chosen.
        try home.file(
            "config/config.json", #"{"backend": {"path": "/me", "curl": "/bin/false", "timeoutSeconds": 5}}"#)
        let result = try home.ok(["rofi"])
        let all = rows(result.out)
        #expect(all.first?.text == "" && all.first?.options["prompt"] == "userdebug")
        #expect(all.contains { $0.options["message"]?.contains("user usr_1") == true })
        let entries = all.filter { !$0.text.isEmpty }
        let copyID = try #require(entries.first { $0.options["info"] == "copy-id" })
        #expect(copyID.text == "Copy Identifier — usr_1")
        #expect(entries.contains { $0.options["info"] == "print-response-4xx" && $0.text.contains(" › ") })
        var placeholder = try #require(entries.first { $0.text.hasPrefix("From the backend") }, "\(result.out)")
        if placeholder.text == "From the backend (loading)" {
            // Not failed yet within the first list's wait on a loaded machine: choosing the
            // loading row lists the menu again once the section has its outcome.
            #expect(placeholder.options["info"] == "loading backend", "\(result.out)")
            let again = try home.ok(["rofi"], extraEnvironment: ["ROFI_RETV": "1", "ROFI_INFO": "loading backend"])
            placeholder = try #require(rows(again.out).first { $0.text.hasPrefix("From the backend") }, "\(again.out)")
        }
        #expect(placeholder.text.hasPrefix("From the backend: failed"), "\(placeholder.text)")
        #expect(placeholder.options["nonselectable"] == "true" && placeholder.options["info"] == nil)
        #expect(!result.out.contains(Samples.canary))
    }

    @Test func aChosenRowCopiesItsActionAndPrintsNothing() throws {
        try withXvfb { x in
            let result = try home.run(
                ["rofi", "Copy Identifier — usr_1"],
                extraEnvironment: ["DISPLAY": x.display, "ROFI_RETV": "1", "ROFI_INFO": "copy-id"])
            #expect(result.status == 0 && result.stdout.isEmpty, "\(result)")
            #expect(x.readOnceOwned() == Array("usr_1".utf8))
            let typed = try home.run(
                ["rofi", "copy-name"], extraEnvironment: ["DISPLAY": x.display, "ROFI_RETV": "2"])
            #expect(typed.status == 0 && typed.stdout.isEmpty, "\(typed)")
            #expect(x.readOnceOwned(until: { $0 == Array("Zoë".utf8) }) == Array("Zoë".utf8))
            let unknown = try home.run(["rofi", "nothing like it"], extraEnvironment: ["ROFI_RETV": "2"])
            #expect(unknown.status == 0 && unknown.out.contains("No entry ‘nothing like it’"), "\(unknown)")
        }
    }

    @Test func realRofiShowRunsTheChosenAction() throws {
        try withXvfb { x in
            var environment = home.environment
            environment["DISPLAY"] = x.display
            let rofi = try Spawned.start(
                ["rofi", "-show", "userdebug", "-modi", "userdebug:\(UserDebugHome.binary) rofi"],
                environment: environment)
            defer { if !processExited(rofi.pid) { rofi.kill() } }
            let found = try Peer.read(
                ["xdotool", "search", "--sync", "--onlyvisible", "--class", "rofi"], environment: x.environment,
                limit: 20)
            #expect(found.status == 0)
            _ = try Peer.read(["xdotool", "type", "--delay", "0", "dump json"], environment: x.environment)
            _ = try Peer.read(["xdotool", "key", "--delay", "0", "Return"], environment: x.environment)
            #expect(eventually(timeout: 30) { processExited(rofi.pid) }, "rofi did not close after the choice")
            let json = String(decoding: x.readOnceOwned() ?? [], as: UTF8.self)
            #expect(json.contains("\"identifier\": \"usr_1\""), "\(json)")
            #expect(!json.contains(Samples.canary) && !json.contains("ak-secret-1"))
        }
    }

    @Test func anErrorIsRofisMessageLine() throws {
        let empty = try UserDebugHome()
        let result = try empty.run(["rofi"])
        #expect(result.status == 0, "\(result)")
        let message = rows(result.out).compactMap { $0.options["message"] }.first ?? ""
        #expect(message.hasPrefix("no store yet at "), "\(result.out)")
        #expect(result.err.contains("no store yet"))
        #expect(!rows(result.out).contains { !$0.text.isEmpty })
    }
}
