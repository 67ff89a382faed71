import Foundation
import Testing

/// Completion of what only the store and the config know — action ids after `run`, tags,
/// statuses, session names (before the command too) — through each shell's real completion
/// machinery: bash runs `_userdebug` with COMP_WORDS set, zsh completes a typed line in a
/// pseudo-terminal with compinit (Tests/Support/zsh_complete.zsh), fish answers `complete -C`.
/// Every shell asks the built `userdebug __complete KIND`, found on PATH, of a real store.
@Suite struct CompletionTests {
    /// A store with two sessions ("staging" with the canary token, "prod eu"), responses tagged
    /// `login` and `checkout` with statuses 200 and 404, and a config with one action of its own
    /// and a backend section.
    static func populatedHome() throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
        try home.ok(["response", "record", "--tag", "checkout", "-"], stdin: Samples.notFound)
        try home.ok(["session", "import", "--name", "prod eu", "--keep-current", "-"], stdin: Samples.session)
        try home.file(
            "config/config.json",
            #"""
            {"actions": [{"id": "admin-url", "title": "Open in Admin",
                          "template": "https://admin.example.com/users/{{user.identifier | url}}"}],
             "backend": {"path": "/me", "timeoutSeconds": 2}}
            """#)
        return home
    }

    /// The home's environment with the built binary first on PATH, as after an install.
    static func shellEnvironment(_ home: UserDebugHome) -> [String: String] {
        let directory = URL(fileURLWithPath: UserDebugHome.binary).deletingLastPathComponent().path
        return home.environment.merging(["PATH": directory + ":/usr/bin:/bin", "TERM": "dumb"]) { $1 }
    }

    static let builtinActions = ["copy-id", "copy-name", "dump-json", "copy-token", "print-login-response"]

    // MARK: - userdebug __complete

    @Test func completeListsWhatTheStoreAndTheConfigHold() throws {
        let home = try Self.populatedHome()
        let actions = try home.ok(["__complete", "actions"]).out.split(separator: "\n").map(String.init)
        for id in Self.builtinActions + ["admin-url", "backend.body"] {
            #expect(actions.contains(id), "\(id) not in \(actions)")
        }
        #expect(try home.ok(["__complete", "tags"]).out == "checkout\nlogin\n")
        #expect(try home.ok(["__complete", "sessions"]).out == "prod eu\nstaging\n")
        #expect(try home.ok(["__complete", "statuses"]).out == "1xx\n2xx\n3xx\n4xx\n5xx\n200\n404\n")
        for kind in ["actions", "tags", "sessions", "statuses"] {
            let result = try home.ok(["__complete", kind])
            #expect(!result.out.contains(Samples.canary) && !result.err.contains(Samples.canary))
        }
        // Hidden: not in the command list.
        #expect(!(try home.ok(["--help"]).out.contains("__complete")))
    }

    @Test func completeWithoutAStoreOffersTheBuiltinsAndNothingElse() throws {
        let home = try UserDebugHome()
        #expect(try home.ok(["__complete", "tags"]).out.isEmpty)
        #expect(try home.ok(["__complete", "sessions"]).out.isEmpty)
        let actions = try home.ok(["__complete", "actions"]).out
        #expect(actions.contains("copy-id\n") && !actions.contains("backend.body"))
        #expect(!FileManager.default.fileExists(atPath: home.databasePath), "completion created the store")
        let bad = try home.run(["__complete", "colours"])
        #expect(bad.status == 64 && bad.err.contains("colours"), "\(bad)")
    }

    @Test func completeLeavesOutNamesWithControlCharacters() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "--tag", "two\nlines", "--tag", "fine", "-"], stdin: Samples.notFound)
        #expect(try home.ok(["__complete", "tags"]).out == "fine\n")
    }

    // MARK: - bash

    struct Case: Sendable, CustomTestStringConvertible {
        var line: [String]
        var contains: [String] = []
        var exactly: [String]? = nil
        var excludes: [String] = []
        var testDescription: String { line.joined(separator: " ") + "⇥" }
    }

    static let cases: [Case] = [
        Case(
            line: ["userdebug", "run", ""], contains: builtinActions + ["admin-url", "backend.body"], excludes: ["--to"]
        ),
        Case(line: ["userdebug", "run", "adm"], exactly: ["admin-url"]),
        Case(line: ["userdebug", "print-response", "--tag", ""], exactly: ["checkout", "login"]),
        Case(line: ["userdebug", "export", "har", "--tag", "lo"], exactly: ["login"]),
        Case(line: ["userdebug", "response", "list", "--status", ""], contains: ["2xx", "4xx", "200", "404"]),
        Case(line: ["userdebug", "print-response", "--status", "4"], exactly: ["4xx", "404"]),
        Case(line: ["userdebug", "--session", ""], exactly: ["prod\\ eu", "staging"]),
        Case(line: ["userdebug", "copy-id", "--session", "st"], exactly: ["staging"]),
        Case(line: ["userdebug", "session", "use", ""], exactly: ["prod\\ eu", "staging"]),
        Case(line: ["userdebug", "--session", "staging", "cop"], contains: ["copy-id", "copy-token", "copy"]),
        Case(line: ["userdebug", "--session", "staging", "--reveal", "run", "adm"], exactly: ["admin-url"]),
        Case(line: ["userdebug", "--"], contains: ["--session", "--reveal", "--quiet", "--help", "--version"]),
        Case(line: ["userdebug", "--session", "staging", "print-response", "--tag", "c"], exactly: ["checkout"]),
    ]

    @Test(arguments: cases)
    func bashOffers(_ testCase: Case) throws {
        let home = try Self.populatedHome()
        let replies = try InstallShell.bashComplete(testCase.line, environment: Self.shellEnvironment(home))
        check(replies, testCase)
    }

    // MARK: - zsh

    static let zshCases: [Case] = [
        Case(line: ["userdebug", "run", ""], contains: builtinActions + ["admin-url", "backend.body"]),
        Case(line: ["userdebug", "print-response", "--tag", ""], exactly: ["checkout", "login"]),
        Case(line: ["userdebug", "response", "list", "--status", ""], contains: ["2xx", "200", "404"]),
        Case(line: ["userdebug", "--session", ""], contains: ["prod eu", "staging"]),
        Case(line: ["userdebug", "--session", "staging", "run", "adm"], exactly: ["admin-url"]),
        // What the generated tables say (Scripts/gen-cli.py, from the command specs): an option's
        // values, a command's options with the global ones, the options one excludes, the commands.
        Case(line: ["userdebug", "copy-id", "--to", ""], exactly: targets),
        Case(
            line: ["userdebug", "print-response", "--"], contains: ["--tag", "--body", "--to", "--session", "--help"],
            excludes: ["--limit", "--selection"]),
        Case(
            line: ["userdebug", "print-response", "--body", "--"], contains: ["--tag", "--to"],
            excludes: ["--body", "--headers", "--full", "--json"]),
        Case(line: ["userdebug", "session", "set", "--token-stdin", "--tok"], exactly: []),
        Case(line: ["userdebug", "help", ""], contains: ["copy-id", "session", "export", "doctor", "version"]),
    ]

    static let targets = ["auto", "stdout", "clipboard", "primary", "clipboard+stdout"]

    @Test(arguments: zshCases)
    func zshOffers(_ testCase: Case) throws {
        let zsh = try #require(InstallShell.find("zsh"), "zsh is not installed; Scripts/deps.sh --test installs it")
        let home = try Self.populatedHome()
        let functions = home.root.appendingPathComponent("zsh-functions")
        try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: InstallTests.zshCompletion, toPath: functions.appendingPathComponent("_userdebug").path)
        let driver = InstallTests.root.appendingPathComponent("Tests/Support/zsh_complete.zsh").path
        var environment = Self.shellEnvironment(home)
        environment["ZDOTDIR"] = home.root.path
        let result = try InstallShell.run(
            zsh, ["-f", driver, functions.path, testCase.line.joined(separator: " ")], environment: environment)
        #expect(result.status == 0, "\(result)")
        check(result.out.split(separator: "\n").map(String.init), testCase)
    }

    // MARK: - fish

    static let fishCases: [Case] = [
        Case(line: ["userdebug", "run", ""], contains: builtinActions + ["admin-url", "backend.body"]),
        Case(line: ["userdebug", "print-response", "--tag", ""], exactly: ["checkout", "login"]),
        Case(line: ["userdebug", "response", "list", "--status", "4"], exactly: ["4xx", "404"]),
        Case(line: ["userdebug", "--session", ""], exactly: ["prod eu", "staging"]),
        Case(line: ["userdebug", "--session", "staging", "run", "adm"], exactly: ["admin-url"]),
        Case(line: ["userdebug", "--session", "staging", "cop"], contains: ["copy-id", "copy-token"]),
        Case(line: ["userdebug", "copy-id", "--to", ""], exactly: targets),
        Case(
            line: ["userdebug", "doctor", "--"],
            exactly: ["--backend", "--json", "--salvage", "--session", "--reveal", "--quiet", "--help"]),
        Case(line: ["userdebug", "help", ""], contains: ["copy-id", "session", "export", "doctor", "version"]),
    ]

    @Test(arguments: fishCases)
    func fishOffers(_ testCase: Case) throws {
        let fish = try #require(InstallShell.find("fish"), "fish is not installed; Scripts/deps.sh --test installs it")
        let home = try Self.populatedHome()
        var environment = Self.shellEnvironment(home)
        environment["XDG_CONFIG_HOME"] = home.root.appendingPathComponent("fish-config").path
        environment["XDG_DATA_HOME"] = home.root.appendingPathComponent("fish-data").path
        let script = "source $argv[1]; complete -C $argv[2]"
        let result = try InstallShell.run(
            fish, ["--no-config", "-c", script, InstallTests.fishCompletion, testCase.line.joined(separator: " ")],
            environment: environment)
        #expect(result.status == 0 && result.err.isEmpty, "\(result)")
        // `complete -C` prints `word<TAB>description`.
        let replies = result.out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        check(replies, testCase)
    }

    private func check(_ replies: [String], _ testCase: Case, sourceLocation: SourceLocation = #_sourceLocation) {
        if let exactly = testCase.exactly {
            #expect(replies.sorted() == exactly.sorted(), "replies: \(replies)", sourceLocation: sourceLocation)
        }
        for expected in testCase.contains {
            #expect(replies.contains(expected), "\(expected) not in \(replies)", sourceLocation: sourceLocation)
        }
        for unexpected in testCase.excludes {
            #expect(!replies.contains(unexpected), "\(unexpected) in \(replies)", sourceLocation: sourceLocation)
        }
    }
}
