import Foundation
import TestSupport
import Testing

/// README's quick start, run as written: the commands of the fenced block after the
/// `<!-- quick-start -->` mark under "## Quick start", each typed on a terminal (script(1) gives
/// it a pseudo-terminal, as a user's shell has) in the repository, with the built `userdebug`
/// first on PATH, a fresh HOME and XDG directories, and an Xvfb for the clipboard. Each must exit
/// 0 and do what its comment says, checked against the sample files it names.
@Suite(.desktopTier) struct ReadmeQuickStartTests {
    /// The command lines of the quick-start block: every line that is not blank or a comment.
    static func quickStartCommands() throws -> [String] {
        let readme = try String(
            contentsOf: InstallTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "\n## Quick start\n"), "README has no '## Quick start'")
        let mark = try #require(
            readme.range(of: "<!-- quick-start -->", range: section.upperBound..<readme.endIndex),
            "the quick start's block is not marked <!-- quick-start -->")
        let open = try #require(readme.range(of: "```sh\n", range: mark.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```", range: open.upperBound..<readme.endIndex))
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init).filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#")
        }
    }

    /// A fresh user: HOME and every XDG directory empty, nothing of userdebug's but the binary.
    struct FreshUser {
        let root: URL
        let environment: [String: String]

        init(display: String) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent(
                "userdebug-readme-\(UUID().uuidString)")
            var environment = [
                "PATH": URL(fileURLWithPath: UserDebugHome.binary).deletingLastPathComponent().path + ":/usr/bin:/bin",
                "LANG": "C.UTF-8", "TERM": "xterm", "DISPLAY": display,
                // The reader's own token, which the quick start pipes in.
                "TOKEN": "tok-readme-quick-start",
            ]
            for (name, directory) in [
                ("HOME", "home"), ("XDG_CONFIG_HOME", "home/.config"), ("XDG_DATA_HOME", "home/.local/share"),
                ("XDG_STATE_HOME", "home/.local/state"), ("XDG_CACHE_HOME", "home/.cache"), ("XDG_RUNTIME_DIR", "run"),
            ] {
                let url = root.appendingPathComponent(directory)
                try FileManager.default.createDirectory(
                    at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                environment[name] = url.path
            }
            self.environment = environment
        }

        /// `line` typed on a terminal in the repository; stdout and stderr as the terminal shows them.
        func type(_ line: String) throws -> (status: Int32, shown: String) {
            let command = "cd \(InstallTests.root.path) && set -o pipefail && \(line)"
            let quoted = "'" + command.replacingOccurrences(of: "'", with: "'\\''") + "'"
            let out = try Peer.read(
                ["script", "-qec", "bash --norc --noprofile -c \(quoted)", "/dev/null"], environment: environment,
                limit: 60)
            return (out.status, String(decoding: out.bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"))
        }

        /// `userdebug ARGS` run by the test (not typed), to see what the store now holds.
        func userdebug(_ arguments: [String]) throws -> String {
            let out = try Peer.read([UserDebugHome.binary] + arguments, environment: environment, limit: 30)
            #expect(out.status == 0, "userdebug \(arguments): \(out.status)")
            return String(decoding: out.bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
        }
    }

    /// A field of a JSON file in the repository, by key path.
    static func sample(_ file: String, _ path: [String]) throws -> String {
        let data = try Data(contentsOf: InstallTests.root.appendingPathComponent(file))
        var value: Any = try JSONSerialization.jsonObject(with: data)
        for key in path { value = try #require((value as? [String: Any])?[key], "\(file): no \(path)") }
        return try #require(value as? String)
    }

    @Test func theQuickStartRunsAsWrittenAndDoesWhatItSays() throws {
        let commands = try Self.quickStartCommands()
        for required in ["session import", "response record", "copy-id", "dump-json", "print-response"] {
            #expect(commands.contains { $0.contains("userdebug \(required)") }, "no '\(required)' in \(commands)")
        }
        let identifier = try Self.sample("config/sample-session.json", ["user", "identifier"])
        let email = try Self.sample("config/sample-session.json", ["user", "email"])
        let userName = try Self.sample("config/sample-session.json", ["user", "name"])
        try withXvfb { x in
            let user = try FreshUser(display: x.display)
            defer { try? FileManager.default.removeItem(at: user.root) }
            for line in commands {
                let (status, shown) = try user.type(line)
                #expect(status == 0, "`\(line)` exited \(status): \(shown)")
                #expect(!shown.contains("tok-readme-quick-start"), "`\(line)` showed the token: \(shown)")
                try check(line, shown: shown, user: user, x: x, expect: (identifier, email, userName))
            }
        }
    }

    /// What the comment of `line` promises.
    private func check(
        _ line: String, shown: String, user: FreshUser, x: Xvfb,
        expect: (identifier: String, email: String, name: String)
    ) throws {
        if line.contains("userdebug session set") {
            #expect(try user.userdebug(["session", "show", "local"]).contains("usr_42"))
        } else if line.contains("userdebug session import") {
            #expect(try user.userdebug(["copy-id", "--to", "stdout"]) == expect.identifier, "not the current session")
        } else if line.contains("userdebug response record") {
            #expect(try user.userdebug(["response", "list", "--json"]).contains("/v1/login"))
        } else if line.contains("userdebug menu") {
            #expect(shown.contains("copy-id") && shown.contains(expect.identifier), "\(shown)")
        } else if line.contains("userdebug copy-id") {
            #expect(try clipboard(x) == expect.identifier, "the clipboard after `\(line)`")
        } else if line.contains("userdebug dump-json") {
            #expect(shown.contains(expect.email), "\(shown)")
        } else if line.contains("userdebug print-response --tag login") {
            // The body is shown, or (on a terminal, as before output learnt to show it) copied.
            let body = try user.userdebug(["print-response", "--tag", "login", "--to", "stdout"])
            #expect(body.contains(expect.identifier))
            let copied = try clipboard(x)
            #expect(shown.contains(body) || copied == body, "shown: \(shown) clipboard: \(copied)")
        } else if line.contains("userdebug run copy-name") {
            #expect(shown.contains(expect.name), "\(shown)")
        }
    }

    /// CLIPBOARD as xclip reads it.
    private func clipboard(_ x: Xvfb) throws -> String {
        let out = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 30)
        return String(decoding: out.bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
