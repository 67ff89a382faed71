import Foundation
import TestSupport
import Testing

@testable import UserDebugCLI

/// The files that ship beside the binary: shell completions, the man page, Scripts/install.sh.
/// They are checked with the real tools (bash, zsh, fish, groff), which Scripts/deps.sh --test installs;
/// a missing tool fails the test rather than skipping it, so CI cannot pass without checking.
@Suite(.desktopTier) struct InstallTests {
    /// The repository root, from this file's path (Tests/UserDebugCLITests/InstallTests.swift).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let bashCompletion = root.appendingPathComponent("config/completions/userdebug.bash").path
    static let zshCompletion = root.appendingPathComponent("config/completions/_userdebug").path
    static let fishCompletion = root.appendingPathComponent("config/completions/userdebug.fish").path
    static let manPage = root.appendingPathComponent("config/userdebug.1").path
    static let installScript = root.appendingPathComponent("Scripts/install.sh").path

    /// What `install.sh` puts under the prefix, and the mode of each.
    static let installed: [(path: String, mode: Int, source: String?)] = [
        ("bin/userdebug", 0o755, nil),
        ("share/man/man1/userdebug.1", 0o644, "config/userdebug.1"),
        ("share/bash-completion/completions/userdebug", 0o644, "config/completions/userdebug.bash"),
        ("share/zsh/site-functions/_userdebug", 0o644, "config/completions/_userdebug"),
        ("share/fish/vendor_completions.d/userdebug.fish", 0o644, "config/completions/userdebug.fish"),
        ("share/systemd/user/userdebug.service", 0o644, "config/systemd/userdebug.service"),
        ("share/userdebug/proxy/userdebug_addon.py", 0o644, "config/proxy/userdebug_addon.py"),
        ("share/userdebug/sample-session.json", 0o644, "config/sample-session.json"),
    ]

    /// A template install.sh fills in: `@BINDIR@` becomes the installed binary's directory.
    static func rendered(_ source: Data, prefix: URL) -> Data {
        let bin = prefix.appendingPathComponent("bin").path
        return Data(String(decoding: source, as: UTF8.self).replacingOccurrences(of: "@BINDIR@", with: bin).utf8)
    }

    // MARK: - Syntax

    @Test(arguments: [
        ("bash", InstallTests.bashCompletion),
        ("zsh", InstallTests.zshCompletion),
        ("fish", InstallTests.fishCompletion),
    ])
    func completionScriptsParseInTheirShell(shell: String, file: String) throws {
        guard let executable = InstallShell.find(shell) else {
            Issue.record(
                "\(shell) is not installed, so \(file) cannot be checked; Scripts/deps.sh --test installs it (apt-get install \(shell))"
            )
            return
        }
        let result = try InstallShell.run(executable, ["-n", file])
        #expect(result.status == 0, "\(shell) -n \(file): \(result)")
        #expect(result.err.isEmpty, "\(shell) -n \(file): \(result)")
    }

    // MARK: - Bash completion behaviour

    struct CompletionCase: Sendable, CustomTestStringConvertible {
        var words: [String]
        /// Replies that must be offered.
        var contains: [String] = []
        /// When set, exactly these replies (in any order).
        var exactly: [String]? = nil
        /// Replies that must not be offered.
        var excludes: [String] = []
        var testDescription: String { words.joined(separator: " ") + "⇥" }
    }

    static let completionCases: [CompletionCase] = [
        CompletionCase(words: ["userdebug", "ses"], exactly: ["session"]),
        CompletionCase(
            words: ["userdebug", ""],
            contains: [
                "copy-id", "dump-json", "print-response", "copy-token", "session", "response", "copy", "paste", "help",
            ],
            excludes: ["import", "--to"]),
        CompletionCase(
            words: ["userdebug", "session", ""], exactly: ["import", "set", "list", "show", "use", "remove"]),
        CompletionCase(words: ["userdebug", "response", ""], exactly: ["record", "list", "import"]),
        CompletionCase(
            words: ["userdebug", "copy-id", "--to", ""],
            exactly: ["auto", "stdout", "clipboard", "primary", "clipboard+stdout"]),
        CompletionCase(words: ["userdebug", "dump-json", "--to", "c"], exactly: ["clipboard", "clipboard+stdout"]),
        CompletionCase(words: ["userdebug", "copy-id", "--to", "=", "p"], exactly: ["primary"]),
        CompletionCase(words: ["userdebug", "copy-id", "--to=s"], exactly: ["--to=stdout"]),
        CompletionCase(words: ["userdebug", "copy", "--selection", ""], exactly: ["clipboard", "primary"]),
        CompletionCase(words: ["userdebug", "paste", "--selection", ""], exactly: ["clipboard", "primary"]),
        CompletionCase(words: ["userdebug", "copy-id", "--backend", ""], exactly: ["auto", "wayland", "x11"]),
        CompletionCase(words: ["userdebug", "doctor", "--"], contains: ["--backend", "--json"], excludes: ["--to"]),
        // Tags, statuses, session names and action ids come from the binary: CompletionTests.
        CompletionCase(
            words: ["userdebug", "copy-id", "--"],
            exactly: [
                "--to", "--lifetime", "--hand-off", "--new-owner", "--backend", "--session", "--reveal", "--quiet",
                "--help",
            ]),
        CompletionCase(
            words: ["userdebug", "session", "import", "--"],
            exactly: [
                "--name", "--keep-current", "--from-clipboard", "--backend", "--session", "--reveal", "--quiet",
                "--help",
            ]),
        CompletionCase(
            words: ["userdebug", "print-response", "--"],
            contains: ["--tag", "--path", "--status", "--body", "--headers", "--full", "--json", "--to"],
            excludes: ["--limit", "--selection"]),
        // A value is not an option: after `--to clipboard` the options come back.
        CompletionCase(words: ["userdebug", "copy-id", "--to", "clipboard", "--l"], exactly: ["--lifetime"]),
        CompletionCase(words: ["userdebug", "print-response", ""], exactly: ["last"]),
        CompletionCase(words: ["userdebug", "nonsense", ""], exactly: []),
    ]

    @Test(arguments: InstallTests.completionCases)
    func bashCompletionOffers(_ testCase: CompletionCase) throws {
        let replies = try InstallShell.bashComplete(testCase.words)
        if let exactly = testCase.exactly {
            #expect(replies.sorted() == exactly.sorted(), "replies: \(replies)")
        }
        for expected in testCase.contains {
            #expect(replies.contains(expected), "\(expected) not in \(replies)")
        }
        for unexpected in testCase.excludes {
            #expect(!replies.contains(unexpected), "\(unexpected) offered in \(replies)")
        }
        #expect(replies.count == Set(replies).count, "duplicates in \(replies)")
    }

    @Test func bashCompletionOffersFilesForImportAndRecord() throws {
        let directory = try InstallTemporaryDirectory()
        try directory.write("login.json", "{}")
        try directory.write("other.txt", "")
        let prefix = directory.url.appendingPathComponent("lo").path
        for words in [
            ["userdebug", "session", "import", prefix], ["userdebug", "response", "record", "--tag", "x", prefix],
        ] {
            let replies = try InstallShell.bashComplete(words)
            #expect(replies == [directory.url.appendingPathComponent("login.json").path], "\(words): \(replies)")
        }
    }

    // MARK: - Drift between the commands and the files that describe them

    /// Every command the CLI dispatches (`session import`), from its own table.
    static func commandPaths() -> [String] {
        CLI.commands.map { $0.path.joined(separator: " ") }
    }

    /// `.flag("json"` and `.value("to"` in the commands, the global options and the output router.
    static func optionNames() throws -> [String] {
        let files =
            try InstallSources.commandFiles() + [
                root.appendingPathComponent("Sources/UserDebugCLI/Parsing/CommandSpec.swift"),
                root.appendingPathComponent("Sources/UserDebugCLI/Runtime/OutputRouter.swift"),
            ]
        return Array(Set(try InstallSources.matches(#"\.(?:flag|value)\(\s*"([a-z0-9-]+)""#, in: files))).sorted()
    }

    @Test func everyCommandIsCompletedAndDocumented() throws {
        let paths = Self.commandPaths()
        #expect(paths.count >= 14, "found only \(paths) in Sources/UserDebugCLI/Commands")
        let bash = try String(contentsOfFile: Self.bashCompletion, encoding: .utf8)
        let zsh = try String(contentsOfFile: Self.zshCompletion, encoding: .utf8)
        let fish = try String(contentsOfFile: Self.fishCompletion, encoding: .utf8)
        let man = try String(contentsOfFile: Self.manPage, encoding: .utf8)
        for path in paths {
            #expect(bash.contains("'\(path)|"), "\(path) missing from _userdebug_commands in userdebug.bash")
            #expect(zsh.contains("'\(path)|"), "\(path) missing from commands in _userdebug")
            let fishWords = path.contains(" ") ? "'\(path)'" : path
            #expect(fish.contains("__userdebug_command \(fishWords) "), "\(path) missing from userdebug.fish")
            // A tagged paragraph headed `.B copy\-id` or `.BI "session use " name`.
            let heading =
                "(?m)^\\.BI? \"?"
                + NSRegularExpression.escapedPattern(for: path.replacingOccurrences(of: "-", with: "\\-")) + "( |\"|$)"
            #expect(
                man.range(of: heading, options: .regularExpression) != nil,
                "\(path) missing from COMMANDS in userdebug.1")
        }
    }

    @Test func everyOptionIsCompletedAndDocumented() throws {
        let names = try Self.optionNames()
        #expect(names.contains("to") && names.contains("session") && names.contains("keep-current"), "found \(names)")
        let bash = try String(contentsOfFile: Self.bashCompletion, encoding: .utf8)
        let zsh = try String(contentsOfFile: Self.zshCompletion, encoding: .utf8)
        let fish = try String(contentsOfFile: Self.fishCompletion, encoding: .utf8)
        let man = try String(contentsOfFile: Self.manPage, encoding: .utf8)
        for name in names {
            let bashPattern = "--\(name)[ |']"
            #expect(
                bash.range(of: bashPattern, options: .regularExpression) != nil, "--\(name) missing from userdebug.bash"
            )
            #expect(
                zsh.contains("--\(name)[") || zsh.contains("--\(name)=["),
                "--\(name) missing from option_specs in _userdebug")
            #expect(fish.contains("-l \(name) "), "--\(name) missing from __userdebug_option in userdebug.fish")
            #expect(
                man.contains("\\-\\-\(name.replacingOccurrences(of: "-", with: "\\-"))"),
                "--\(name) missing from userdebug.1")
        }
    }

    // MARK: - Man page

    @Test func manPageRendersWithoutWarnings() throws {
        guard let groff = InstallShell.find("groff") else {
            Issue.record(
                "groff is not installed, so config/userdebug.1 cannot be checked; Scripts/deps.sh --test installs it (apt-get install groff-base)"
            )
            return
        }
        let result = try InstallShell.run(groff, ["-man", "-Tutf8", "-ww", "-z", Self.manPage])
        #expect(result.status == 0, "\(result)")
        #expect(result.err.isEmpty, "groff warnings:\n\(result.err)")

        // -P-cbou: plain text, no escape sequences or overstrike for bold and underline.
        let rendered = try InstallShell.run(groff, ["-man", "-Tutf8", "-ww", "-P-cbou", Self.manPage])
        #expect(rendered.status == 0 && rendered.err.isEmpty, "\(rendered.err)")
        for section in [
            "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OUTPUT", "FILES", "ENVIRONMENT", "EXIT STATUS", "EXAMPLES",
            "SEE ALSO",
        ] {
            #expect(rendered.out.contains("\n\(section)\n"), "no \(section) section")
        }
    }

    // MARK: - install.sh

    /// Every file install.sh installs is under `prefix` with its mode and its source's bytes
    /// (`binary` for bin/userdebug), and `report` (install.sh's stderr) names each one.
    private func expectEveryFileInstalled(under prefix: URL, report: String, binary: String) throws {
        for file in Self.installed {
            let target = prefix.appendingPathComponent(file.path).path
            #expect(report.contains("installed \(target)"), "not reported: \(target)\n\(report)")
            #expect(try InstallSources.mode(of: target) == file.mode, "\(target) mode")
            let source = file.source.map { Self.root.appendingPathComponent($0).path } ?? binary
            let expected = Self.rendered(try Data(contentsOf: URL(fileURLWithPath: source)), prefix: prefix)
            #expect(FileManager.default.contents(atPath: target) == expected, "\(target) differs from its source")
        }
    }

    @Test func installPutsEveryFileInPlaceAndUninstallRemovesExactlyThose() throws {
        let directory = try InstallTemporaryDirectory()
        let fake = try directory.write("fake-userdebug", "#!/bin/sh\necho fake userdebug\n", mode: 0o755)
        let prefix = directory.url.appendingPathComponent("prefix")
        let sentinel = try directory.write("prefix/bin/someone-else", "keep me", mode: 0o755)
        var environment = [
            "PREFIX": prefix.path, "USERDEBUG_INSTALL_BINARY": fake, "HOME": directory.url.path,
            "PATH": "/usr/bin:/bin",
        ]

        let first = try InstallShell.run(
            "/bin/bash", [Self.installScript], environment: environment, directory: directory.url)
        #expect(first.status == 0, "\(first)")
        #expect(first.out.isEmpty, "install.sh wrote to stdout: \(first.out)")
        #expect(first.err.contains("not on PATH"), "no PATH warning: \(first.err)")
        try expectEveryFileInstalled(under: prefix, report: first.err, binary: fake)
        #expect(try InstallShell.run(prefix.appendingPathComponent("bin/userdebug").path, []).out == "fake userdebug\n")
        // Nothing else: no temporary files left beside the installed ones.
        let everything = try InstallSources.files(under: prefix).sorted()
        #expect(everything == (Self.installed.map(\.path) + ["bin/someone-else"]).sorted())
        // Installing enables nothing: no autostart entry, one line saying how to enable the daemon.
        let autostart = directory.url.appendingPathComponent(".config/autostart/userdebug.desktop").path
        #expect(
            !FileManager.default.fileExists(atPath: autostart), "an install without --enable-daemon wrote \(autostart)")
        let hints = first.err.split(separator: "\n").map(String.init).filter { $0.contains("--enable-daemon") }
        #expect(hints == [Self.notEnabledHint], "\(first.err)")

        // Again, with the prefix on PATH: nothing changes, nothing to warn about.
        environment["PATH"] = prefix.appendingPathComponent("bin").path + ":/usr/bin:/bin"
        let second = try InstallShell.run(
            "/bin/bash", [Self.installScript], environment: environment, directory: directory.url)
        #expect(second.status == 0, "\(second)")
        #expect(!second.err.contains("installed "), "a second install rewrote files: \(second.err)")
        #expect(second.err.components(separatedBy: "up to date: ").count - 1 == Self.installed.count, "\(second.err)")
        #expect(!second.err.contains("not on PATH"), "\(second.err)")

        // A changed binary is replaced; a mode someone changed is put back.
        try Data("#!/bin/sh\necho new\n".utf8).write(to: URL(fileURLWithPath: fake))
        let manTarget = prefix.appendingPathComponent("share/man/man1/userdebug.1").path
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: manTarget)
        let third = try InstallShell.run(
            "/bin/bash", [Self.installScript], environment: environment, directory: directory.url)
        #expect(third.status == 0, "\(third)")
        #expect(try InstallShell.run(prefix.appendingPathComponent("bin/userdebug").path, []).out == "new\n")
        #expect(try InstallSources.mode(of: manTarget) == 0o644)

        let removal = try InstallShell.run(
            "/bin/bash", [Self.installScript, "--uninstall"], environment: environment, directory: directory.url)
        #expect(removal.status == 0, "\(removal)")
        for file in Self.installed {
            let target = prefix.appendingPathComponent(file.path).path
            #expect(!FileManager.default.fileExists(atPath: target), "\(target) still there")
            #expect(removal.err.contains("removed \(target)"), "not reported: \(target)")
        }
        #expect(FileManager.default.fileExists(atPath: sentinel), "--uninstall removed a file it did not install")
        #expect(!FileManager.default.fileExists(atPath: autostart), "\(autostart) still there")

        let again = try InstallShell.run(
            "/bin/bash", [Self.installScript, "--uninstall"], environment: environment, directory: directory.url)
        #expect(again.status == 0, "\(again)")
    }

    @Test func installHonoursDestdirAndRelativePaths() throws {
        let directory = try InstallTemporaryDirectory()
        try directory.write("fake-userdebug", "#!/bin/sh\n", mode: 0o755)
        // Relative DESTDIR and binary: relative to where install.sh is started, not to the repository.
        let result = try InstallShell.run(
            "/bin/bash", [Self.installScript],
            environment: [
                "DESTDIR": "stage", "PREFIX": "/usr", "USERDEBUG_INSTALL_BINARY": "fake-userdebug",
                "PATH": "/usr/bin:/bin",
            ],
            directory: directory.url)
        #expect(result.status == 0, "\(result)")
        #expect(!result.err.contains("not on PATH"), "a staged install should not warn about PATH: \(result.err)")
        for file in Self.installed {
            let target = directory.url.appendingPathComponent("stage/usr/\(file.path)").path
            #expect(try InstallSources.mode(of: target) == file.mode, "\(target)")
        }
        // A package enables nothing unless asked: the system's autostart entry only with --enable-daemon.
        let autostart = directory.url.appendingPathComponent("stage/etc/xdg/autostart/userdebug.desktop").path
        #expect(!FileManager.default.fileExists(atPath: autostart), "\(autostart) written without --enable-daemon")
        let enabled = try InstallShell.run(
            "/bin/bash", [Self.installScript, "--enable-daemon"],
            environment: [
                "DESTDIR": "stage", "PREFIX": "/usr", "USERDEBUG_INSTALL_BINARY": "fake-userdebug",
                "PATH": "/usr/bin:/bin",
            ],
            directory: directory.url)
        #expect(enabled.status == 0, "\(enabled)")
        #expect(try InstallSources.mode(of: autostart) == 0o644, "\(autostart)")
    }

    /// The line an install without --enable-daemon prints about the daemon.
    static let notEnabledHint =
        "the hotkey daemon is not enabled; to start it at every login: Scripts/install.sh --enable-daemon, or systemctl --user enable --now userdebug.service (README: The hotkey daemon)"

    @Test func enableDaemonWritesTheAutostartEntryAndNamesTheUnitInstead() throws {
        let directory = try InstallTemporaryDirectory()
        let fake = try directory.write("fake-userdebug", "#!/bin/sh\n", mode: 0o755)
        let prefix = directory.url.appendingPathComponent("prefix")
        let environment = [
            "PREFIX": prefix.path, "USERDEBUG_INSTALL_BINARY": fake, "HOME": directory.url.path,
            "PATH": "/usr/bin:/bin",
        ]
        let result = try InstallShell.run(
            "/bin/bash", [Self.installScript, "--enable-daemon"], environment: environment, directory: directory.url)
        #expect(result.status == 0, "\(result)")
        // The user's autostart directory for a prefix in their home, with the installed binary.
        let autostart = directory.url.appendingPathComponent(".config/autostart/userdebug.desktop").path
        let entry = String(decoding: FileManager.default.contents(atPath: autostart) ?? Data(), as: UTF8.self)
        #expect(entry.contains("Exec=\"\(prefix.path)/bin/userdebug\" daemon\n"), "\(autostart): \(entry)")
        #expect(result.err.contains("installed \(autostart)"), "\(result.err)")
        #expect(
            result.err.contains(
                "enabled: the hotkey daemon starts at every login (\(autostart)); to use the systemd unit instead: rm \(autostart) && systemctl --user import-environment DISPLAY XAUTHORITY && systemctl --user enable --now userdebug.service (not both: the second exits 75)"
            ), "\(result.err)")
        #expect(!result.err.contains(Self.notEnabledHint), "\(result.err)")

        // Installing again without the flag keeps the entry and says so.
        let again = try InstallShell.run(
            "/bin/bash", [Self.installScript], environment: environment, directory: directory.url)
        #expect(again.status == 0, "\(again)")
        #expect(FileManager.default.fileExists(atPath: autostart))
        #expect(
            again.err.contains("the hotkey daemon starts at every login (\(autostart)); --uninstall removes it"),
            "\(again.err)")

        let both = try InstallShell.run(
            "/bin/bash", [Self.installScript, "--enable-daemon", "--uninstall"], environment: environment,
            directory: directory.url)
        #expect(both.status == 64, "\(both)")
        #expect(FileManager.default.fileExists(atPath: autostart), "a refused command line removed \(autostart)")
    }

    /// The real binary installed with --enable-daemon and its unit enabled as `systemctl --user
    /// enable` does; a daemon of the installed binary runs on one display, one of the build tree
    /// on another. --uninstall stops the first (found through its lock file), leaves the other
    /// running, and removes the autostart entry and the unit's link.
    @Test func uninstallStopsTheInstalledDaemonAndRemovesWhatEnabledIt() throws {
        let home = try UserDebugHome()
        try home.file("config/config.json", #"{"hotkeys": {"Super+Alt+I": "copy-id"}}"#)
        let prefix = home.root.appendingPathComponent("prefix")
        let runtime = home.root.appendingPathComponent("run")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = [
            "PREFIX": prefix.path, "USERDEBUG_INSTALL_BINARY": UserDebugHome.binary, "HOME": home.root.path,
            "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime.path,
        ]
        let install = try InstallShell.run(
            "/bin/bash", [Self.installScript, "--enable-daemon"], environment: environment, directory: home.root)
        try #require(install.status == 0, "\(install)")
        let autostart = home.root.appendingPathComponent(".config/autostart/userdebug.desktop").path
        #expect(FileManager.default.fileExists(atPath: autostart))
        let wants = home.root.appendingPathComponent(".config/systemd/user/graphical-session.target.wants")
        try FileManager.default.createDirectory(at: wants, withIntermediateDirectories: true)
        let link = wants.appendingPathComponent("userdebug.service").path
        try FileManager.default.createSymbolicLink(
            atPath: link,
            withDestinationPath: prefix.appendingPathComponent("share/systemd/user/userdebug.service").path)

        try withXvfb { x in
            try withXvfb { other in
                let daemonEnvironment = { (display: String) in
                    home.environment.merging(["DISPLAY": display, "XDG_RUNTIME_DIR": runtime.path]) { $1 }
                }
                let installed = try DaemonRun(
                    home: home, environment: daemonEnvironment(x.display),
                    binary: prefix.appendingPathComponent("bin/userdebug").path)
                defer { installed.stop() }
                let development = try DaemonRun(home: home, environment: daemonEnvironment(other.display))
                defer { development.stop() }
                try #require(installed.waitFor("daemon: pid "), "\(installed.text)")
                try #require(development.waitFor("daemon: pid "), "\(development.text)")

                let removal = try InstallShell.run(
                    "/bin/bash", [Self.installScript, "--uninstall"], environment: environment, directory: home.root)
                #expect(removal.status == 0, "\(removal)")
                #expect(
                    removal.err.contains("stopped the userdebug daemon (pid \(installed.pid)) on \(x.display)"),
                    "\(removal.err)")
                #expect(eventually { installed.exited() != nil }, "\(installed.text)")
                #expect(installed.exited() == 0, "\(installed.text)")
                #expect(installed.text.contains("leaving (SIGTERM)"), "\(installed.text)")
                #expect(
                    removal.err.contains(
                        "left running: the userdebug daemon (pid \(development.pid)) on \(other.display) runs "),
                    "\(removal.err)")
                #expect(development.exited() == nil, "--uninstall stopped a daemon it did not install")
                #expect(!FileManager.default.fileExists(atPath: autostart), "\(autostart) still there")
                #expect(
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == nil, "\(link) still there")
                #expect(removal.err.contains("disabled userdebug.service: removed \(link)"), "\(removal.err)")
            }
        }
    }

    @Test func installRefusesAMissingBinaryAndUnknownArguments() throws {
        let directory = try InstallTemporaryDirectory()
        let prefix = directory.url.appendingPathComponent("prefix").path
        let missing = try InstallShell.run(
            "/bin/bash", [Self.installScript],
            environment: [
                "PREFIX": prefix, "USERDEBUG_INSTALL_BINARY": directory.url.appendingPathComponent("nope").path,
                "PATH": "/usr/bin:/bin",
            ])
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.err.contains("USERDEBUG_INSTALL_BINARY"), "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: prefix), "created the prefix for a failed install")

        let unknown = try InstallShell.run(
            "/bin/bash", [Self.installScript, "--frobnicate"], environment: ["PREFIX": prefix, "PATH": "/usr/bin:/bin"])
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.err.contains("--frobnicate"), "\(unknown)")
    }
}

/// What a helper process did.
struct InstallShellResult: CustomStringConvertible {
    var status: Int32
    var out: String
    var err: String
    var description: String { "exit \(status)\nstdout: \(out)\nstderr: \(err)" }
}

/// Runs the shells and tools these tests check the files with.
enum InstallShell {
    /// The executable named `name` on PATH (or in the usual directories), if installed.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/local/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `arguments`; output goes through files so a chatty child never blocks.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = ["PATH": "/usr/bin:/bin"],
        directory: URL? = nil
    ) throws -> InstallShellResult {
        let scratch = try InstallTemporaryDirectory()
        let outURL = scratch.url.appendingPathComponent("out")
        let errURL = scratch.url.appendingPathComponent("err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        return InstallShellResult(
            status: process.terminationStatus,
            out: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            err: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Sources the bash completion and runs `_userdebug` as bash would for `words` (the cursor at
    /// the end of the last word); returns COMPREPLY.
    static func bashComplete(_ words: [String], environment: [String: String] = ["PATH": "/usr/bin:/bin"]) throws
        -> [String]
    {
        let script = """
            source "$1" || exit 90
            shift
            COMP_WORDS=("$@")
            COMP_CWORD=$(($# - 1))
            _userdebug userdebug || exit 91
            for reply in "${COMPREPLY[@]}"; do printf '%s\\n' "$reply"; done
            """
        let result = try run(
            "/bin/bash", ["--norc", "--noprofile", "-c", script, "bash", InstallTests.bashCompletion] + words,
            environment: environment)
        guard result.status == 0, result.err.isEmpty else {
            Issue.record("bash completion failed for \(words): \(result)")
            return []
        }
        return result.out.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}

/// Reading the sources and the file system for the drift and install checks.
enum InstallSources {
    static func commandFiles() throws -> [URL] {
        let directory = InstallTests.root.appendingPathComponent("Sources/UserDebugCLI/Commands")
            .resolvingSymlinksInPath()
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
    }

    /// The first capture group of every match of `pattern` in `files`.
    static func matches(_ pattern: String, in files: [URL]) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern)
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            for match in expression.matches(in: text, range: range) {
                if let group = Range(match.range(at: 1), in: text) { found.append(String(text[group])) }
            }
        }
        return found
    }

    /// The permission bits of a file, or nil when it does not exist.
    static func mode(of path: String) throws -> Int? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber).map { $0.intValue & 0o7777 }
    }

    /// Every regular file under `directory` (hidden ones too), relative to it.
    static func files(under directory: URL) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(relative).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(relative)
            }
        }
        return files
    }
}

/// A directory removed when the test is done.
final class InstallTemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "userdebug-install-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `contents` to `relative` (creating directories) and returns its path.
    @discardableResult
    func write(_ relative: String, _ contents: String, mode: Int = 0o644) throws -> String {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        return file.path
    }
}
