import Foundation
import Testing

/// `menu`, `run` and config actions through the built binary, as a script would use them.
@Suite struct MenuCommandTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
        try home.ok(["response", "record", "-"], stdin: Samples.notFound)
    }

    func menuJSON(_ extra: [String] = []) throws -> [String: Any] {
        let result = try home.ok(["menu", "--json"] + extra)
        return try #require(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result)")
    }

    /// Every element of the tree, depth first.
    func flatten(_ elements: Any?) -> [[String: Any]] {
        guard let elements = elements as? [[String: Any]] else { return [] }
        return elements.flatMap { [$0] + flatten($0["children"]) }
    }

    func writeConfig(_ text: String) throws {
        try home.file("config/config.json", text)
    }

    @Test func menuJsonListsTheBuiltinActionsWithIdsTitlesAndSecrets() throws {
        let menu = try menuJSON()
        #expect(menu["session"] as? String == "staging")
        #expect(menu["user"] as? String == "usr_1")
        let actions = flatten(menu["elements"]).filter { $0["type"] as? String == "action" }
        let ids = actions.compactMap { $0["id"] as? String }
        #expect(
            ids == [
                "copy-id", "copy-name", "dump-json", "copy-token", "print-response", "print-login-response",
                "print-response-1xx", "print-response-2xx", "print-response-3xx", "print-response-4xx",
                "print-response-5xx",
            ])
        let copyID = try #require(actions.first { $0["id"] as? String == "copy-id" })
        #expect(copyID["title"] as? String == "Copy Identifier" && copyID["subtitle"] as? String == "usr_1")
        #expect(actions.filter { $0["secret"] as? Bool == true }.compactMap { $0["id"] as? String } == ["copy-token"])
    }

    @Test func menuTextShowsEveryIdAndNoSecret() throws {
        try writeConfig(
            #"{"actions": [{"id": "auth-header", "title": "Auth Header", "template": "Bearer {{session.token}}", "secret": true}]}"#
        )
        let text = try home.ok(["menu"]).out
        for id in ["copy-id", "dump-json", "responses-by-status", "print-response-4xx", "auth-header"] {
            #expect(text.contains(id))
        }
        #expect(text.contains("Auth Header (secret)"))
        let json = try home.ok(["menu", "--json"]).out
        #expect(!text.contains(Samples.canary) && !json.contains(Samples.canary))
    }

    @Test func runPerformsBuiltinActions() throws {
        #expect(try home.ok(["run", "copy-id", "--to", "stdout"]).out == "usr_1\n")
        #expect(try home.ok(["run", "copy-name"]).out == "Zoë\n")
        #expect(try home.ok(["run", "print-response-4xx"]).out.contains("not found"))
        let login = try home.ok(["run", "print-login-response"]).out
        #expect(login.contains("usr_1") && !login.contains(Samples.canary))
    }

    @Test(arguments: [
        (["--popup", "--dmenu"], "--popup and --dmenu"), (["--dmenu", "--popup"], "--popup and --dmenu"),
        (["--json", "--popup"], "--json and --popup"), (["--json", "--dmenu"], "--json and --dmenu"),
    ])
    func menuShowsItselfOneWayAtATime(flags: [String], named: String) throws {
        // A launcher that would leave a mark if it ran: neither it nor the popup may start.
        let marker = home.root.appendingPathComponent("launched").path
        let result = try home.run(["menu", "--launcher", "touch \(marker)"] + flags)
        #expect(result.status == 64, "\(result)")
        #expect(result.err.contains("\(named) cannot be combined"), "\(result.err)")
        #expect(result.out.isEmpty, "\(result.out)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func aLauncherWithoutDmenuIsAUsageErrorEvenWithThePopup() throws {
        let marker = home.root.appendingPathComponent("launched").path
        let result = try home.run(["menu", "--popup", "--launcher", "touch \(marker)"])
        #expect(result.status == 64 && result.err.contains("--launcher goes with --dmenu"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func daemonHelpDescribesItsOwnTrace() throws {
        let help = try home.ok(["daemon", "--help"]).out
        let trace = try #require(help.split(separator: "\n").first { $0.contains("--trace") && !$0.contains("Usage") })
        #expect(trace.contains("grab, key press"), "\(trace)")
        #expect(!trace.contains("menu"), "\(trace)")
    }

    @Test func runOfAnUnknownIdIsAUsageErrorListingTheIds() throws {
        let result = try home.run(["run", "copy-idd"])
        #expect(result.status == 64)
        #expect(result.err.contains("no action 'copy-idd'") && result.err.contains("copy-id,"))
        #expect(try home.run(["run"]).status == 64)
    }

    @Test func configActionsRunFromTemplatesAndCommands() throws {
        try writeConfig(
            """
            {"actions": [
              {"id": "admin-url", "title": "Open in Admin", "template": "https://admin.example.com/users/{{user.identifier | url}}?env={{session.environment}}"},
              {"id": "argv", "title": "Argv", "command": ["printf", "<%s>\\n", "{{user.name}}", "a b", "$(touch pwned) 'q' \\"d\\""]},
              {"id": "status", "title": "Status", "template": "{{response.method}} {{response.status}}"}
            ]}
            """)
        #expect(try home.ok(["run", "admin-url"]).out == "https://admin.example.com/users/usr_1?env=staging\n")
        #expect(try home.ok(["run", "argv"]).out == "<Zoë>\n<a b>\n<$(touch pwned) 'q' \"d\">\n")
        #expect(!FileManager.default.fileExists(atPath: home.root.appendingPathComponent("pwned").path))
        #expect(try home.ok(["run", "status"]).out == "GET 404\n")
        let ids = flatten(try menuJSON()["elements"]).compactMap { $0["id"] as? String }
        #expect(ids.suffix(3) == ["admin-url", "argv", "status"])
    }

    @Test func aSecretConfigActionIsMarkedAndRunsOnlyByName() throws {
        try writeConfig(
            #"{"actions": [{"id": "auth", "title": "Auth", "template": "Authorization: Bearer {{session.token}}", "secret": true}]}"#
        )
        let elements = flatten(try menuJSON()["elements"])
        let entry = try #require(elements.first { $0["id"] as? String == "auth" })
        #expect(entry["secret"] as? Bool == true && entry["subtitle"] is NSNull)
        #expect(try home.ok(["run", "auth", "--to", "stdout"]).out == "Authorization: Bearer \(Samples.canary)\n")
    }

    @Test func aBadConfigIsExit78NamingFileLineAndKey() throws {
        try writeConfig(
            "{\n  \"actions\": [\n    {\"id\": \"x\", \"title\": \"X\", \"template\": \"{{session.token}}\"}\n  ]\n}\n")
        for arguments in [["menu"], ["run", "x"]] {
            let result = try home.run(arguments)
            #expect(result.status == 78, "\(arguments): \(result)")
            #expect(
                result.err.contains("config.json:3:43: actions[0].template: uses {{session.token}}, a secret"),
                "\(result.err)")
        }
        // A built-in id reads no config: the hotkey still works while the file is being fixed.
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")
    }

    @Test func traceShowsEachLifecyclePathInOrder() throws {
        let performed = try home.ok(["run", "copy-id", "--to", "stdout", "--trace"])
        #expect(
            performed.err == """
                userdebug: trace: menu requested
                userdebug: trace: will display (7 elements)
                userdebug: trace: will perform copy-id
                userdebug: trace: will end (performed copy-id)

                """)
        let cancelled = try home.ok(["menu", "--trace"])
        #expect(
            cancelled.err.components(separatedBy: "\n").map {
                $0.replacingOccurrences(of: #"\d+ elements"#, with: "N elements", options: .regularExpression)
            }
                == [
                    "userdebug: trace: menu requested", "userdebug: trace: will display (N elements)",
                    "userdebug: trace: will end (cancelled)", "",
                ])
        let failed = try home.run(["menu", "--trace", "--session", "nobody"])
        #expect(failed.status == 66)
        let lines = failed.err.split(separator: "\n").map(String.init)
        #expect(lines.first == "userdebug: trace: menu requested")
        #expect(lines.dropFirst().first?.hasPrefix("userdebug: trace: will end (failed: ") == true)
        #expect(!failed.err.contains("will display"))
    }

    @Test func theShortcutsStillBehaveAsBefore() throws {
        #expect(try home.ok(["copy-token", "--to", "stdout"]).out == Samples.canary + "\n")
        #expect(try home.ok(["print-response", "1", "--headers"]).out.hasPrefix("HTTP 200\n"))
        #expect(try home.run(["print-response", "--status", "500"]).status == 66)
        #expect(try home.run(["print-response", "x1"]).status == 64)
    }
}
