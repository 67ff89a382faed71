import Foundation
import Testing

/// docs/recording.md's recipes for apps in other languages ("Any other app: send the login response to
/// userdebug"), taken from the documentation itself (fenced blocks whose first line is `# recipe: NAME` or
/// `// recipe: NAME`) so the text cannot drift from what works, each run against the echo server
/// with the built `userdebug` first on PATH. Afterwards the recipe's user is the current session.
@Suite(.desktopTier) struct LoginRecipeTests {
    /// The recipes in README and docs/, by name.
    static func recipes() throws -> [String: String] {
        let readme = try userDocumentation()
        var found: [String: String] = [:]
        var block: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let lines = block else {
                if line.hasPrefix("```") { block = [] }
                continue
            }
            guard line.hasPrefix("```") else {
                block = lines + [line]
                continue
            }
            block = nil
            guard let first = lines.first else { continue }
            for prefix in ["# recipe: ", "// recipe: "] where first.hasPrefix(prefix) {
                found[String(first.dropFirst(prefix.count))] = lines.joined(separator: "\n") + "\n"
            }
        }
        return found
    }

    /// A home (with the README's login rule when `rule`), the echo server, and the environment
    /// a recipe runs in.
    static func setUp(rule: Bool) throws -> (UserDebugHome, EchoServer, [String: String]) {
        let home = rule ? try LoginRuleCLITests.home() : try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        var environment = home.environment
        let binaries = URL(fileURLWithPath: UserDebugHome.binary).deletingLastPathComponent().path
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["API"] = server.baseURL
        environment["MYAPP_DEBUG"] = "1"
        return (home, server, environment)
    }

    static func expectAda(_ home: UserDebugHome, after result: RunResult, _ recipe: String) throws {
        #expect(result.status == 0, "recipe \(recipe): \(result)")
        #expect(!result.out.contains(LoginRuleCLITests.token), "recipe \(recipe) printed the token")
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_ada\n", "recipe \(recipe)")
        #expect(
            try home.ok(["copy-token", "--to", "stdout", "--reveal"]).out == LoginRuleCLITests.token + "\n",
            "recipe \(recipe)")
    }

    @Test func readmeHasEveryRecipe() throws {
        #expect(Set(try Self.recipes().keys) == ["shell", "shell-import", "python", "node", "har"])
    }

    @Test(arguments: [
        ("shell", ["/bin/sh", "-c"], true), ("shell-import", ["/bin/bash", "-c"], false),
        ("python", ["/usr/bin/python3", "-c"], false), ("node", ["/usr/bin/node", "-e"], true),
    ])
    func aRecipeMakesItsLoginTheCurrentSession(name: String, interpreter: [String], needsRule: Bool) throws {
        let recipe = try #require(try Self.recipes()[name], "the documentation has no recipe '\(name)'")
        let (home, server, environment) = try Self.setUp(rule: needsRule)
        defer { server.stop() }
        let result = try runTool(interpreter[0], Array(interpreter.dropFirst()) + [recipe], environment: environment)
        try Self.expectAda(home, after: result, name)
    }

    /// The browser recipe: a HAR saved from the dev tools after logging in (made here from the
    /// server's real answer, shaped as Chromium writes it) imported as README says.
    @Test func theBrowsersHARRecipeMakesItsLoginTheCurrentSession() throws {
        let recipe = try #require(try Self.recipes()["har"])
        let (home, server, environment) = try Self.setUp(rule: true)
        defer { server.stop() }
        let answer = try runTool(
            "/usr/bin/curl", ["-s", "-d", #"{"username": "ada", "password": "hunter2"}"#, server.baseURL + "/v1/login"])
        #expect(answer.status == 0 && answer.out.contains("usr_ada"), "\(answer)")
        let har = try LoginRuleCLITests.har([
            ("GET", server.baseURL + "/app.js", 200, "{}"), ("POST", server.baseURL + "/v1/login", 200, answer.out),
        ])
        let downloads = home.root.appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try har.write(to: downloads.appendingPathComponent("app.har"))
        let result = try runTool("/bin/sh", ["-c", recipe], environment: environment)
        try Self.expectAda(home, after: result, "har")
        #expect(result.err.contains("recorded session 'usr_ada@\(server.hostAndPort)'"), "\(result)")
    }
}
