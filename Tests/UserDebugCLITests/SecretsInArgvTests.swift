import Foundation
import Testing

/// Arguments are visible to every local user in /proc/PID/cmdline, so no secret may become one:
/// a config command's arguments may only use placeholders that cannot carry a secret (the
/// config is refused otherwise, 78 at file:line:col), and a revealed `export curl` run by a shell
/// hands curl the request on its stdin. Every exec is watched with `strace -f -e trace=execve`,
/// which logs each program's whole argv: the canary must never be in it.
@Suite struct SecretsInArgvTests {
    /// Runs `argv` under strace; returns what it did and every execve strace saw (argv in full).
    static func traced(_ argv: [String], stdin: Data? = nil, environment: [String: String], in home: UserDebugHome)
        throws -> (result: RunResult, execs: String)
    {
        let log = home.root.appendingPathComponent("execve-\(UUID().uuidString).trace").path
        let result = try runTool(
            "/usr/bin/strace", ["-f", "-qq", "-s", "65536", "-e", "trace=execve", "-o", log] + argv, stdin: stdin,
            environment: environment)
        let execs = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: log)
        return (result, execs)
    }

    /// A session whose user field `echo` holds the token, and a recorded login whose URL, headers
    /// and body hold it too.
    @discardableResult
    static func secretRichHome(_ home: UserDebugHome? = nil, baseURL: String = "https://api.example.com") throws
        -> UserDebugHome
    {
        let home = try home ?? UserDebugHome()
        try home.ok(
            ["session", "import", "-"],
            stdin: """
                {"name": "s", "user": {"identifier": "usr_1", "name": "Zoë", "echo": "\(Samples.canary)",
                 "email": "zoe@example.com"}, "token": "\(Samples.canary)", "baseURL": "\(baseURL)"}
                """)
        try home.ok(
            ["response", "record", "-"],
            stdin: """
                {"request": {"method": "POST", "url": "\(baseURL)/echo/login?access_token=\(Samples.canary)&page=2",
                  "headers": {"Authorization": "Bearer \(Samples.canary)", "Content-Type": "application/json"},
                  "body": "{\\"token\\":\\"\(Samples.canary)\\"}"},
                 "response": {"status": 200, "body": "{\\"access_token\\":\\"\(Samples.canary)\\"}"}}
                """)
        return home
    }

    @Test(arguments: [
        "{{response.url}}", "{{response.body}}", "{{user.echo}}", "{{user.email}}", "{{ response.url | url }}",
        "--token={{session.token}}",
    ])
    func anArgumentThatCanCarryASecretIsRefusedAtLoad(_ argument: String) throws {
        let home = try Self.secretRichHome()
        let path = try home.file(
            "config/config.json",
            """
            {"actions": [
              {"id": "leak", "title": "Leak",
               "command": ["sh", "-c", "cat >/dev/null; sleep 0.2", "x", "\(argument)"]}
            ]}
            """)
        let (result, execs) = try Self.traced(
            [UserDebugHome.binary, "run", "leak", "--reveal", "--to", "stdout"], environment: home.environment,
            in: home)
        #expect(result.status == 78, "\(argument): \(result)")
        #expect(result.err.contains("\(path):3:"), "file:line:col: \(result)")
        #expect(result.err.contains("actions[0].command[4]"), "\(result)")
        #expect(!execs.contains(Samples.canary), "\(argument) reached an argv:\n\(execs)")
        #expect(try home.run(["menu", "--json"]).status == 78)
    }

    @Test func identifierLikeArgumentsStayAllowedAndTemplatesCarryTheRestOnStdin() throws {
        let home = try Self.secretRichHome()
        try home.file(
            "config/config.json",
            """
            {"actions": [
              {"id": "who", "title": "Who",
               "command": ["printf", "%s|%s|%s|%s|%s|%s\\n", "{{user.identifier}}", "{{user.name}}", "{{session.name}}",
                           "{{response.id}}", "{{response.status}}", "{{response.method}}"]},
              {"id": "piped", "title": "Piped", "template": "{{response.url}} {{user.echo}} {{response.body}}",
               "command": ["sh", "-c", "cat; sleep 0.1", "x"]}
            ]}
            """)
        let who = try Self.traced(
            [UserDebugHome.binary, "run", "who", "--to", "stdout"], environment: home.environment, in: home)
        #expect(who.result.status == 0 && who.result.out == "usr_1|Zoë|s|1|200|POST\n", "\(who.result)")
        let piped = try Self.traced(
            [UserDebugHome.binary, "run", "piped", "--reveal", "--to", "stdout"], environment: home.environment,
            in: home)
        #expect(piped.result.status == 0, "\(piped.result)")
        #expect(piped.result.out.contains("access_token=\(Samples.canary)"), "the real values, on stdin")
        #expect(!piped.execs.contains(Samples.canary), "\(piped.execs)")
        #expect(piped.execs.contains("cat; sleep 0.1"), "strace saw the command run")
    }

    /// Runs, under strace, a config action whose last argument is `{{user.name}}` (an allowed
    /// placeholder) for a session whose user is named `name` and whose token is `token`: what it
    /// did, every execve, and whether the command itself ran (it touches a marker).
    static func runWithUserNameArgument(name: String, token: String) throws -> (
        result: RunResult, execs: String, ran: Bool
    ) {
        let home = try UserDebugHome()
        try home.ok(
            ["session", "import", "-"],
            stdin: #"{"name": "s", "user": {"identifier": "usr_1", "name": "\#(name)"}, "token": "\#(token)"}"#)
        let marker = home.root.appendingPathComponent("marker").path
        try home.file(
            "config/config.json",
            #"{"actions": [{"id": "n", "title": "N", "command": ["sh", "-c", "touch '\#(marker)'", "x", "{{user.name}}"]}]}"#
        )
        let (result, execs) = try Self.traced(
            [UserDebugHome.binary, "run", "n", "--to", "stdout"], environment: home.environment, in: home)
        return (result, execs, FileManager.default.fileExists(atPath: marker))
    }

    /// A user field holding the token is refused in an argument even when it looks harmless by
    /// name (`name` is allowed): at run time, an argument holding the session's token stops the
    /// command before it starts.
    @Test func anAllowedArgumentThatHoldsTheTokenStopsTheCommand() throws {
        let (result, execs, ran) = try Self.runWithUserNameArgument(
            name: "x\(Samples.canary)x", token: Samples.canary)
        #expect(result.status == 78, "\(result)")
        #expect(result.err.contains("actions[0].command[4]"), "\(result)")
        #expect(!execs.contains(Samples.canary))
        #expect(!ran)
    }

    /// Issue 25, item 6: the token encoded (base64, percent-encoded, a letter percent-encoded
    /// that needs no encoding, hex) in a user field an argument may hold stops the command as the
    /// literal does.
    @Test(arguments: ["base64", "percent", "non-canonical", "hex"])
    func anArgumentHoldingTheTokenEncodedStopsTheCommand(_ form: String) throws {
        let token = "Tok/EN+CANARY2=="
        let encoded: String = {
            switch form {
            case "base64": return Data(token.utf8).base64EncodedString()
            case "percent": return token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            case "non-canonical": return "Tok%2FEN%2B%43ANARY2%3D%3D"
            default: return token.utf8.map { String(format: "%02x", $0) }.joined()
            }
        }()
        let (result, execs, ran) = try Self.runWithUserNameArgument(name: encoded, token: token)
        #expect(result.status == 78, "\(form) \(encoded): \(result)")
        #expect(result.err.contains("actions[0].command[4]"), "\(result)")
        #expect(!execs.contains(encoded), "\(form) reached argv")
        #expect(!ran)
    }

    @Test(arguments: ["/bin/bash", "/usr/bin/dash", "/usr/bin/zsh"], [false, true])
    func aRevealedExportCurlRunsWithTheTokenOutsideArgv(_ shell: String, oneLine: Bool) throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try Self.secretRichHome(home, baseURL: server.baseURL)
        let export = try home.ok(["export", "curl", "--reveal", "--to", "stdout"] + (oneLine ? ["--one-line"] : []))
        // As README says: piped into a shell, so the script is not in the shell's argv either.
        let (ran, execs) = try Self.traced(
            [shell, "-s"], stdin: Data(export.out.utf8), environment: home.environment, in: home)
        #expect(ran.status == 0, "\(ran)\n\(export.out)")
        let received = try #require(try server.requests().last, "the server got nothing:\n\(export.out)")
        #expect(received.hasHeader("Authorization", Data("Bearer \(Samples.canary)".utf8)))
        #expect(received.target == "/echo/login?access_token=\(Samples.canary)&page=2")
        #expect(received.body == Data(#"{"token":"\#(Samples.canary)"}"#.utf8))
        #expect(execs.contains("curl"), "strace saw curl:\n\(execs)")
        #expect(!execs.contains(Samples.canary), "the token was in an argv:\n\(execs)")
    }

    /// The documented way to hand the token to curl from a shell, under bash with strace.
    @Test func theDocumentedCopyTokenPipeKeepsTheTokenOutOfArgv() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try Self.secretRichHome(home, baseURL: server.baseURL)
        let readme = try userDocumentation()
        let line = try #require(
            readme.split(separator: "\n").first {
                $0.contains("copy-token") && $0.contains("curl") && $0.contains("@-")
            },
            "the documentation shows how to give curl the token without an argument")
        let command = String(line.drop { $0 == "$" || $0 == " " }.prefix { $0 != "#" })
            .replacingOccurrences(of: "userdebug", with: UserDebugHome.binary)
        var environment = home.environment
        environment["API"] = server.baseURL
        let (ran, execs) = try Self.traced(["/bin/bash", "-c", command], environment: environment, in: home)
        #expect(ran.status == 0, "\(command): \(ran)")
        let received = try #require(try server.requests().last, "\(command)")
        #expect(received.hasHeader("Authorization", Data("Bearer \(Samples.canary)".utf8)), "\(command)")
        #expect(!execs.contains(Samples.canary), "\(execs)")
    }
}
