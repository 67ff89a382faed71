import Foundation
import TestSupport
import Testing

/// README's quick start, run as written: the commands of the fenced block after the
/// `<!-- quick-start -->` mark under "## Quick start", each typed on a terminal (script(1) gives
/// it a pseudo-terminal, as a user's shell has) in the repository, with the built `userdebug`
/// first on PATH, a fresh HOME and XDG directories, and an Xvfb for the clipboard. Each must exit
/// 0 and do what its comment says, checked against the sample files it names. Before it, "The
/// first ten minutes" the same way: install → setup → record a session → press the key it names.
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

    /// The lines of the first ```sh block under "## The first ten minutes", comments included.
    static func firstTenMinutesLines() throws -> [String] {
        let readme = try String(
            contentsOf: InstallTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(
            readme.range(of: "\n## The first ten minutes\n"), "README has no '## The first ten minutes'")
        let open = try #require(readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```", range: open.upperBound..<readme.endIndex))
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
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

        /// `line` typed on a terminal in the repository with `environment`, `answer` typed after
        /// it (what a question of the command reads).
        func type(_ line: String, answer: String, environment: [String: String]) throws -> (
            status: Int32, shown: String
        ) {
            let command = "cd \(InstallTests.root.path) && set -o pipefail && \(line)"
            let quoted = "'" + command.replacingOccurrences(of: "'", with: "'\\''") + "'"
            var environment = environment
            environment["ANSWER"] = answer
            let out = try Peer.read(
                [
                    "bash", "--norc", "--noprofile", "-c",
                    "printf '%s' \"$ANSWER\" | script -qec \"bash --norc --noprofile -c \(quoted)\" /dev/null",
                ], environment: environment, limit: 120)
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

    /// The first ten minutes as a new user goes through them on an X11 desktop without a desktop
    /// environment: `Scripts/install.sh` (given the built binary in USERDEBUG_INSTALL_BINARY, as
    /// its own build would give it, and installing into the fresh HOME's ~/.local), the installed
    /// `userdebug setup` answered "y" on its terminal (the daemon, started now), the sample session
    /// imported, then the key the block's last comment names, pressed with xdotool (XTEST): the
    /// clipboard holds the sample's identifier.
    @Test func theFirstTenMinutesRunAsWrittenAndTheKeyCopies() throws {
        let lines = try Self.firstTenMinutesLines()
        let commands = lines.filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
        }
        #expect(
            commands.map { $0.split(separator: " ").prefix { $0 != "#" }.prefix(2).joined(separator: " ") } == [
                "Scripts/install.sh", "userdebug setup", "userdebug session",
            ], "\(commands)")
        let pressLine = try #require(lines.last { $0.hasPrefix("# now press ") }, "no key to press in \(lines)")
        let key = try #require(pressLine.dropFirst("# now press ".count).split(separator: " ").first)
        let identifier = try Self.sample("config/sample-session.json", ["user", "identifier"])
        try withXvfb { x in
            let user = try FreshUser(display: x.display)
            let home = user.root.appendingPathComponent("home")
            var environment = user.environment
            environment["PATH"] = home.appendingPathComponent(".local/bin").path + ":/usr/bin:/bin"
            environment["USERDEBUG_INSTALL_BINARY"] = UserDebugHome.binary
            let lock = user.root.appendingPathComponent("run/userdebug-daemon-\(x.display).lock").path
            defer {
                if let text = try? String(contentsOfFile: lock, encoding: .utf8),
                    let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
                {
                    kill(pid, SIGKILL)
                }
                try? FileManager.default.removeItem(at: user.root)
            }
            for line in commands {
                let (status, shown) = try user.type(
                    line, answer: line.hasPrefix("userdebug setup") ? "y\n" : "", environment: environment)
                #expect(status == 0, "`\(line)` exited \(status): \(shown)")
                if line.hasPrefix("Scripts/install.sh") {
                    let installed = home.appendingPathComponent(".local/bin/userdebug").path
                    #expect(FileManager.default.isExecutableFile(atPath: installed), "\(shown)")
                } else if line.hasPrefix("userdebug setup") {
                    #expect(shown.contains("Apply? [y/N]") && shown.contains("started userdebug daemon"), "\(shown)")
                }
            }
            let press = try Peer.read(
                ["xdotool", "key", "--delay", "0", key.lowercased()], environment: x.environment, limit: 20)
            #expect(press.status == 0)
            #expect(eventually { (try? clipboard(x)) == identifier }, "after \(key): \((try? clipboard(x)) ?? "")")
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
