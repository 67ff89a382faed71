import Foundation
import TestSupport
import Testing

@testable import UserDebugCLI

private func repositoryFile(_ path: String) throws -> String {
    try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
}

/// `userdebug setup`'s config merge and its refusals: no display needed.
@Suite struct SetupConfigTests {
    let bindings = [
        SetupBinding(key: "Super+Alt+I", action: "copy-id"), SetupBinding(key: "Super+Alt+M", action: "menu"),
    ]

    func merge(_ text: String?) throws -> String {
        String(
            decoding: try ConfigMerge.merge(text.map { Array($0.utf8) }, bindings, file: "config.json"), as: UTF8.self)
    }

    @Test func theWrittenFilesAreTheShippedOnesByteForByte() throws {
        #expect(SetupTemplates.config == (try repositoryFile("config/config.json")))
        #expect(SetupTemplates.autostart == (try repositoryFile("config/autostart/userdebug.desktop")))
    }

    @Test func withoutAConfigItWritesTheShippedOneWithTheKeys() throws {
        let shipped = try repositoryFile("config/config.json")
        let written = try merge(nil)
        let keys = """
            "hotkeys": {
                "Super+Alt+I": "copy-id",
                "Super+Alt+M": "menu"
              }
            """
        #expect(written == shipped.replacingOccurrences(of: "\"hotkeys\": {}", with: keys))
    }

    @Test func aMergeKeepsTheUsersKeysCommentsAndLayout() throws {
        let mine = """
            // mine
            {
              "notifications": "never", // quiet
              "hotkeys": {
                "Ctrl+Alt+X": "dump-json" # my key
              }
            }

            """
        let merged = try merge(mine)
        #expect(
            merged == """
                // mine
                {
                  "notifications": "never", // quiet
                  "hotkeys": {
                    "Ctrl+Alt+X": "dump-json", # my key
                    "Super+Alt+I": "copy-id",
                    "Super+Alt+M": "menu"
                  }
                }

                """)
        // A second merge has nothing to add: the same bytes.
        #expect(try merge(merged) == merged)
    }

    @Test func aMergeAddsTheSectionWhereThereIsNoneAndInlineWhereTheObjectIsOnOneLine() throws {
        #expect(
            try merge("{\"notifications\": \"never\"}\n")
                == "{\n  \"hotkeys\": {\n    \"Super+Alt+I\": \"copy-id\",\n    \"Super+Alt+M\": \"menu\"\n  },"
                + " \"notifications\": \"never\"}\n")
        #expect(
            try merge("{}")
                == "{\n  \"hotkeys\": {\n    \"Super+Alt+I\": \"copy-id\",\n    \"Super+Alt+M\": \"menu\"\n  }\n}")
        #expect(
            try merge("{\"hotkeys\": {\"Ctrl+Alt+X\": \"dump-json\"}}")
                == "{\"hotkeys\": {\"Ctrl+Alt+X\": \"dump-json\", \"Super+Alt+I\": \"copy-id\", \"Super+Alt+M\": \"menu\"}}"
        )
        #expect(
            try merge("# only a comment\n")
                == "# only a comment\n{\n  \"hotkeys\": {\n    \"Super+Alt+I\": \"copy-id\",\n    \"Super+Alt+M\": \"menu\"\n  }\n}\n"
        )
        // The same keys spelt otherwise are the same keys: nothing to add.
        let spelt = "{\"hotkeys\": {\"alt+super+i\": \"copy-id\", \"SUPER+ALT+m\": \"menu\"}}"
        #expect(try merge(spelt) == spelt)
    }

    @Test func aKeyBoundToAnotherActionIsRefused() throws {
        #expect(throws: ConfigMerge.Refusal.self) {
            try merge("{\"hotkeys\": {\"Super+Alt+I\": \"dump-json\"}}")
        }
    }

    /// The command line: the refusal shows the diff and exits 78; the file is left as it was.
    @Test func theCommandRefusesAConflictWithTheDiffAndChangesNothing() throws {
        let home = try UserDebugHome()
        let text = "{\"hotkeys\": {\"Super+Alt+I\": \"dump-json\"}}\n"
        try home.file("config/config.json", text)
        let result = try home.run(["setup", "--yes", "--desktop", "x11"])
        #expect(result.status == 78, "\(result)")
        #expect(result.err.contains("binds Super+Alt+I to \"dump-json\""), "\(result)")
        #expect(result.err.contains("-{\"hotkeys\": {\"Super+Alt+I\": \"dump-json\"}}"), "\(result)")
        #expect(result.err.contains("+{\"hotkeys\": {\"Super+Alt+I\": \"copy-id\"}}"), "\(result)")
        #expect(try String(contentsOfFile: home.configPath, encoding: .utf8) == text)
        #expect(!FileManager.default.fileExists(atPath: home.root.appendingPathComponent("state/setup").path))
    }

    @Test func badOptionsAreUsageErrorsThatNameTheValue() throws {
        let home = try UserDebugHome()
        let desktop = try home.run(["setup", "--desktop", "windows"])
        #expect(desktop.status == 64 && desktop.err.contains("'windows'"), "\(desktop)")
        let keys = try home.run(["setup", "--keys", "Super+Alt+I=nope"])
        #expect(keys.status == 64 && keys.err.contains("unknown action \"nope\""), "\(keys)")
        let shape = try home.run(["setup", "--keys", "Super+Alt+I"])
        #expect(shape.status == 64 && shape.err.contains("KEY=ACTION"), "\(shape)")
        let undo = try home.run(["setup", "--undo", "--keys", "Super+Alt+I=copy-id"])
        #expect(undo.status == 64, "\(undo)")
    }

    @Test func withoutATerminalOrYesItChangesNothing() throws {
        let home = try UserDebugHome()
        let result = try home.run(["setup", "--desktop", "sway"])
        #expect(result.status == 64 && result.err.contains("--yes"), "\(result)")
        #expect(result.out.contains("create \(home.configPath)"), "the plan is shown: \(result)")
        #expect(!FileManager.default.fileExists(atPath: home.configPath))
        let undo = try home.run(["setup", "--undo"])
        #expect(undo.status == 0 && undo.out.contains("nothing to undo"), "\(undo)")
    }

    /// On a terminal (script(1) gives it one) it shows the plan and asks; "n" changes nothing.
    @Test func onATerminalItAsksAndANoChangesNothing() throws {
        let home = try UserDebugHome()
        let result = try runTool(
            "/usr/bin/script", ["-qec", "\(UserDebugHome.binary) setup --desktop sway", "/dev/null"],
            stdin: Data("n\n".utf8), environment: home.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.out.contains("Apply? [y/N] nothing changed"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: home.configPath))
        #expect(!FileManager.default.fileExists(atPath: home.root.appendingPathComponent(".config/sway").path))
    }

    @Test func x11WithoutADisplayIsExit69BeforeAnythingChanges() throws {
        let home = try UserDebugHome()
        let result = try home.run(["setup", "--yes", "--desktop", "x11"])
        #expect(result.status == 69 && result.err.contains("DISPLAY is not set"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: home.configPath))
    }

    @Test func noDesktopIsExit69NamingTheVariables() throws {
        let home = try UserDebugHome()
        let result = try home.run(["setup", "--yes"])
        #expect(result.status == 69 && result.err.contains("DISPLAY and WAYLAND_DISPLAY are unset"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: home.configPath))
    }
}

/// `userdebug setup` on Xvfb as an X11 window manager's session: the daemon by XDG autostart
/// (no systemd user manager here), started now, a real key press (xdotool, XTEST) read back with
/// xclip, a second run that changes nothing, and `--undo` restoring every file byte for byte.
@Suite(.serialized, .desktopTier) struct SetupX11Tests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    var autostartPath: String { home.root.appendingPathComponent(".config/autostart/userdebug.desktop").path }

    func environment(_ x: Xvfb) throws -> [String: String] {
        let runtime = home.root.appendingPathComponent("run")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return home.environment.merging(["DISPLAY": x.display, "XDG_RUNTIME_DIR": runtime.path]) { $1 }
    }

    /// The pid in the daemon's lock file for `x`, while that process runs `userdebug daemon`.
    func daemonPid(_ x: Xvfb) -> Int32? {
        let name = "userdebug-daemon-\(x.display).lock"
        let lock = home.root.appendingPathComponent("run/\(name)").path
        guard let text = try? String(contentsOfFile: lock, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
            let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
            command.contains("daemon"),
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            !stat.contains(") Z ")
        else { return nil }
        return pid
    }

    /// Runs `body` on a fresh Xvfb; whatever happens, the daemon setup started is killed.
    func withDisplay(_ body: (Xvfb, [String: String]) throws -> Void) throws {
        try withXvfb { x in
            defer {
                if let pid = daemonPid(x) {
                    kill(pid, SIGKILL)
                    _ = eventually { daemonPid(x) == nil }
                }
            }
            try body(x, try environment(x))
        }
    }

    func run(_ arguments: [String], _ environment: [String: String]) throws -> RunResult {
        try runTool(UserDebugHome.binary, arguments, environment: environment)
    }

    func clipboard(_ x: Xvfb) -> String {
        let out = try? Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 10)
        return out.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
    }

    func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func aFreshSetupBindsAKeyThatCopiesAndASecondRunChangesNothingAndUndoRemovesAll() throws {
        try withDisplay { x, environment in
            let setup = try run(["setup", "--yes"], environment)
            try #require(setup.status == 0, "\(setup)")
            #expect(setup.out.contains("desktop: x11"), "\(setup)")
            #expect(setup.out.contains("created \(home.configPath)"), "\(setup)")
            #expect(setup.out.contains("created \(autostartPath)"), "\(setup)")
            #expect(setup.out.contains("check: pressed Super+Alt+I (xdotool); the clipboard holds"), "\(setup)")
            #expect(setup.out.contains("undo: userdebug setup --undo"), "\(setup)")
            // The autostart entry is the shipped one, rendered as install.sh renders it.
            let bindir = URL(fileURLWithPath: UserDebugHome.binary).resolvingSymlinksInPath()
                .deletingLastPathComponent()
            let entry = try repositoryFile("config/autostart/userdebug.desktop")
                .replacingOccurrences(of: "@BINDIR@", with: bindir.path)
            #expect(contents(autostartPath) == Data(entry.utf8))
            let pid = try #require(daemonPid(x), "the daemon runs")

            // A real key press (XTEST) on a clipboard someone else holds.
            _ = try Peer.own(
                ["xclip", "-i", "-selection", "clipboard"], input: Array("stale".utf8), environment: x.environment)
            #expect(eventually { clipboard(x) == "stale" })
            let press = try Peer.read(
                ["xdotool", "key", "--delay", "0", "super+alt+i"], environment: x.environment, limit: 20)
            #expect(press.status == 0)
            #expect(eventually { clipboard(x) == "usr_1" }, "clipboard: \(clipboard(x))")

            // Idempotent: nothing written, the same daemon.
            let manifest = home.root.appendingPathComponent("state/setup/manifest.json").path
            let before = [home.configPath, autostartPath, manifest].map(contents)
            let again = try run(["setup", "--yes"], environment)
            #expect(again.status == 0, "\(again)")
            #expect(again.out.contains("nothing to change"), "\(again)")
            #expect([home.configPath, autostartPath, manifest].map(contents) == before)
            #expect(daemonPid(x) == pid)

            let undo = try run(["setup", "--undo"], environment)
            #expect(undo.status == 0, "\(undo)")
            #expect(!FileManager.default.fileExists(atPath: home.configPath), "\(undo)")
            #expect(!FileManager.default.fileExists(atPath: autostartPath), "\(undo)")
            #expect(!FileManager.default.fileExists(atPath: manifest))
            #expect(eventually { daemonPid(x) == nil }, "\(undo)")
        }
    }

    /// As a new user goes: Scripts/install.sh (of the built binary) → the installed `userdebug setup
    /// --yes` → a key press copies; the autostart entry is the one `install.sh --enable-daemon`
    /// writes, byte for byte.
    @Test func afterInstallShTheInstalledSetupBindsAWorkingKey() throws {
        let prefix = home.root.appendingPathComponent("prefix")
        let install = try InstallShell.run(
            "/bin/bash", [InstallTests.installScript],
            environment: [
                "PREFIX": prefix.path, "USERDEBUG_INSTALL_BINARY": UserDebugHome.binary, "HOME": home.root.path,
                "PATH": "/usr/bin:/bin",
            ], directory: home.root)
        try #require(install.status == 0, "\(install)")
        #expect(!FileManager.default.fileExists(atPath: autostartPath), "install.sh enables nothing")
        let installed = prefix.appendingPathComponent("bin/userdebug").path
        try withDisplay { x, environment in
            let setup = try runTool(installed, ["setup", "--yes"], environment: environment)
            try #require(setup.status == 0, "\(setup)")
            let template = try #require(
                FileManager.default.contents(
                    atPath: repositoryRoot.appendingPathComponent("config/autostart/userdebug.desktop").path))
            #expect(contents(autostartPath) == InstallTests.rendered(template, prefix: prefix))
            let pid = try #require(daemonPid(x))
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
            #expect(executable == installed, "the daemon runs the installed binary")
            let press = try Peer.read(
                ["xdotool", "key", "--delay", "0", "super+alt+j"], environment: x.environment, limit: 20)
            #expect(press.status == 0)
            #expect(eventually { clipboard(x).hasPrefix("{") && clipboard(x).contains("usr_1") }, "\(clipboard(x))")
        }
    }

    @Test func anExistingConfigIsMergedAndUndoPutsEveryByteBack() throws {
        let mine =
            "// my config\n{\n  \"notifications\": \"never\", # quiet\n  \"hotkeys\": {\"Ctrl+Alt+X\": \"dump-json\"}\n}\n"
        try home.file("config/config.json", mine)
        // An autostart entry of the user's own, different from setup's: replaced, then put back.
        let own = "[Desktop Entry]\nType=Application\nName=mine\nExec=/bin/true\n"
        try home.file(".config/autostart/userdebug.desktop", own)
        try withDisplay { x, environment in
            let setup = try run(["setup", "--yes", "--keys", "Super+Alt+I=copy-id"], environment)
            try #require(setup.status == 0, "\(setup)")
            let merged = try String(contentsOfFile: home.configPath, encoding: .utf8)
            #expect(merged.hasPrefix("// my config\n{\n  \"notifications\": \"never\", # quiet\n"), "\(merged)")
            #expect(merged.contains("\"Ctrl+Alt+X\": \"dump-json\", \"Super+Alt+I\": \"copy-id\""), "\(merged)")
            // The user's own key works too: the daemon grabbed both.
            let press = try Peer.read(
                ["xdotool", "key", "--delay", "0", "ctrl+alt+x"], environment: x.environment, limit: 20)
            #expect(press.status == 0)
            #expect(eventually { clipboard(x).contains("usr_1") && clipboard(x).hasPrefix("{") })

            let undo = try run(["setup", "--undo"], environment)
            #expect(undo.status == 0, "\(undo)")
            #expect(contents(home.configPath) == Data(mine.utf8))
            #expect(contents(autostartPath) == Data(own.utf8))
        }
    }

    @Test func aDryRunShowsThePlanAndChangesNothing() throws {
        try withDisplay { x, environment in
            let plan = try run(["setup", "--dry-run"], environment)
            #expect(plan.status == 0, "\(plan)")
            #expect(plan.out.contains("create \(home.configPath)"), "\(plan)")
            #expect(plan.out.contains("start `userdebug daemon` on \(x.display) now"), "\(plan)")
            #expect(!FileManager.default.fileExists(atPath: home.configPath))
            #expect(!FileManager.default.fileExists(atPath: autostartPath))
            #expect(daemonPid(x) == nil)
        }
    }

    @Test func undoLeavesAFileChangedSinceSetupAndSaysWhere() throws {
        try withDisplay { _, environment in
            try #require(try run(["setup", "--yes"], environment).status == 0)
            try home.file("config/config.json", "{\"notifications\": \"never\"}\n")
            let undo = try run(["setup", "--undo"], environment)
            #expect(undo.status == 78, "\(undo)")
            #expect(undo.err.contains("changed since setup wrote them: \(home.configPath)"), "\(undo)")
            #expect(contents(home.configPath) == Data("{\"notifications\": \"never\"}\n".utf8))
            #expect(!FileManager.default.fileExists(atPath: autostartPath), "the rest is undone: \(undo)")
        }
    }
}

/// `userdebug setup` on a headless sway, run as the unprivileged test account as a sway user runs
/// it (HOME, XDG_CURRENT_DESKTOP=sway, SWAYSOCK): the include file, its line in sway's config
/// (reached through a link, as dotfiles often are, and written where it points), `swaymsg
/// reload`, a key typed with wtype and read back with wl-paste, and `--undo` restoring the config.
@Suite(.serialized, .desktopTier) struct SetupSwayTests {
    func environment(_ sway: Sway) throws -> [String: String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: sway.runtimeDir)
        let ipc = try #require(names.first { $0.hasPrefix("sway-ipc.") }, "no sway IPC socket")
        return [
            "PATH": "/usr/bin:/bin", "HOME": sway.runtimeDir, "XDG_RUNTIME_DIR": sway.runtimeDir,
            "WAYLAND_DISPLAY": sway.socket, "SWAYSOCK": sway.runtimeDir + "/" + ipc, "XDG_CURRENT_DESKTOP": "sway",
            "LANG": "C.UTF-8",
        ]
    }

    /// `userdebug ARGUMENTS` as the test account.
    func run(_ sway: Sway, _ arguments: [String], stdin: String? = nil) throws -> RunResult {
        let prefix = TestUser.runningAs(sway.account)
        return try runTool(
            prefix[0], Array(prefix.dropFirst()) + [UserDebugHome.binary] + arguments,
            stdin: stdin.map { Data($0.utf8) },
            environment: try environment(sway))
    }

    func paste(_ sway: Sway) -> String {
        let out = try? Peer.read(["wl-paste", "--no-newline"], environment: sway.environment, limit: 10)
        return out.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
    }

    @Test func setupWritesTheIncludeReloadsSwayAndATypedKeyCopies() throws {
        try withSway { sway in
            let dir = sway.runtimeDir
            let imported = try run(sway, ["session", "import", "-"], stdin: Samples.session)
            try #require(imported.status == 0, "\(imported)")
            // sway runs with -c DIR/sway.conf; ~/.sway/config leads there.
            let dotSway = dir + "/.sway"
            try FileManager.default.createDirectory(atPath: dotSway, withIntermediateDirectories: false)
            chown(dotSway, sway.account.uid, sway.account.gid)
            try FileManager.default.createSymbolicLink(
                atPath: dotSway + "/config", withDestinationPath: dir + "/sway.conf")
            lchown(dotSway + "/config", sway.account.uid, sway.account.gid)
            let original = try #require(FileManager.default.contents(atPath: dir + "/sway.conf"))

            let setup = try run(sway, ["setup", "--yes"])
            try #require(setup.status == 0, "\(setup)")
            #expect(setup.out.contains("desktop: sway"), "\(setup)")
            #expect(setup.out.contains("ran swaymsg reload"), "\(setup)")
            #expect(setup.out.contains("check: ran Super+Alt+I's command; the clipboard holds"), "\(setup)")
            let include = dir + "/.config/sway/userdebug.config"
            let text = try String(contentsOfFile: include, encoding: .utf8)
            #expect(text.contains("bindsym Mod4+Mod1+i exec "), "\(text)")
            #expect(text.contains(" menu --dmenu\n"), "\(text)")
            let config = try String(contentsOfFile: dir + "/sway.conf", encoding: .utf8)
            #expect(config.hasPrefix(String(decoding: original, as: UTF8.self)), "\(config)")
            #expect(config.hasSuffix("include \(include)\n"), "\(config)")
            let link = try FileManager.default.destinationOfSymbolicLink(atPath: dotSway + "/config")
            #expect(link == dir + "/sway.conf", "the link stays")

            // Super+Alt+J typed on a virtual keyboard: sway runs the bound command.
            let typed = try Peer.read(
                ["wtype", "-M", "logo", "-M", "alt", "-k", "j", "-m", "alt", "-m", "logo"],
                environment: sway.environment,
                limit: 20)
            #expect(typed.status == 0)
            #expect(eventually { paste(sway).hasPrefix("{") && paste(sway).contains("usr_1") }, "\(paste(sway))")

            let again = try run(sway, ["setup", "--yes"])
            #expect(again.status == 0 && again.out.contains("nothing to change"), "\(again)")

            let undo = try run(sway, ["setup", "--undo"])
            #expect(undo.status == 0, "\(undo)")
            #expect(FileManager.default.contents(atPath: dir + "/sway.conf") == original)
            #expect(!FileManager.default.fileExists(atPath: include))
            #expect(undo.out.contains("ran swaymsg reload"), "\(undo)")
        }
    }
}

/// `userdebug setup` on GNOME: custom keybindings written through gsettings into a private
/// database (the keyfile backend in the test's own XDG_CONFIG_HOME), read back with `gsettings
/// get`, the user's own keybinding kept, the bound command run as GNOME runs it (the clipboard of
/// an Xvfb, as GNOME's XWayland would hold it), and `--undo` putting the settings back.
@Suite(.serialized, .desktopTier) struct SetupGnomeTests {
    static let schema = "org.gnome.settings-daemon.plugins.media-keys"
    static let base = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings"
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func environment(_ x: Xvfb) -> [String: String] {
        home.environment.merging([
            "DISPLAY": x.display, "XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_TYPE": "x11",
            "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": home.root.appendingPathComponent("xdg").path,
        ]) { $1 }
    }

    func gsettings(_ arguments: [String], _ environment: [String: String]) throws -> String {
        let result = try runTool("/usr/bin/gsettings", arguments, environment: environment)
        #expect(result.status == 0, "gsettings \(arguments): \(result)")
        return result.out.trimmingCharacters(in: .newlines)
    }

    @Test func setupAddsCustomKeybindingsNextToTheUsersOwnAndUndoRemovesThem() throws {
        try withXvfb { x in
            let environment = environment(x)
            let own = "\(Self.base)/custom0/"
            _ = try gsettings(["set", "\(Self.schema).custom-keybinding:\(own)", "binding", "'<Super>t'"], environment)
            _ = try gsettings(["set", Self.schema, "custom-keybindings", "['\(own)']"], environment)

            let setup = try runTool(UserDebugHome.binary, ["setup", "--yes"], environment: environment)
            try #require(setup.status == 0, "\(setup)")
            #expect(setup.out.contains("desktop: gnome"), "\(setup)")
            #expect(setup.out.contains("check: ran Super+Alt+I's command; the clipboard holds"), "\(setup)")
            let ids = ["copy-id", "dump-json", "print-response", "menu"].map { "\(Self.base)/userdebug-\($0)/" }
            let list = try gsettings(["get", Self.schema, "custom-keybindings"], environment)
            #expect(list == "[" + ([own] + ids).map { "'\($0)'" }.joined(separator: ", ") + "]")
            let relocatable = "\(Self.schema).custom-keybinding:\(ids[1])"
            #expect(try gsettings(["get", relocatable, "binding"], environment) == "'<Super><Alt>j'")
            #expect(
                try gsettings(["get", "\(Self.schema).custom-keybinding:\(own)", "binding"], environment)
                    == "'<Super>t'")

            // The command GNOME runs for Super+Alt+J, through a shell-like split as GNOME does.
            let command = try gsettings(["get", relocatable, "command"], environment)
            #expect(command.contains(" run dump-json --to clipboard"), "\(command)")
            let ran = try runTool("/bin/sh", ["-c", String(command.dropFirst().dropLast())], environment: environment)
            #expect(ran.status == 0, "\(ran)")
            let pasted = try Peer.read(
                ["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 10)
            #expect(String(decoding: pasted.bytes, as: UTF8.self).contains("\"usr_1\""))

            let keyfile = home.root.appendingPathComponent("xdg/glib-2.0/settings/keyfile").path
            let before = FileManager.default.contents(atPath: keyfile)
            let again = try runTool(UserDebugHome.binary, ["setup", "--yes"], environment: environment)
            #expect(again.status == 0 && again.out.contains("nothing to change"), "\(again)")
            #expect(FileManager.default.contents(atPath: keyfile) == before)

            let undo = try runTool(UserDebugHome.binary, ["setup", "--undo"], environment: environment)
            #expect(undo.status == 0, "\(undo)")
            #expect(try gsettings(["get", Self.schema, "custom-keybindings"], environment) == "['\(own)']")
            #expect(try gsettings(["get", relocatable, "binding"], environment) == "''")
            #expect(!FileManager.default.fileExists(atPath: home.configPath))
        }
    }
}

/// `userdebug setup` on KDE Plasma: the shortcuts in `kglobalshortcutsrc` through `kwriteconfig5`,
/// read back with `kreadconfig5`, the user's own shortcut kept, each key's hidden application entry
/// run as Plasma runs it (its Exec line), and `--undo` putting the file back byte for byte.
@Suite(.serialized, .desktopTier) struct SetupKDETests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    @Test func setupWritesGlobalShortcutsNextToTheUsersOwnAndUndoPutsTheFileBack() throws {
        try withXvfb { x in
            let xdg = home.root.appendingPathComponent("xdg").path
            let data = home.root.appendingPathComponent("data-home").path
            let environment = home.environment.merging([
                "DISPLAY": x.display, "XDG_CURRENT_DESKTOP": "KDE", "XDG_SESSION_TYPE": "x11",
                "XDG_CONFIG_HOME": xdg, "XDG_DATA_HOME": data,
            ]) { $1 }
            let shortcuts = xdg + "/kglobalshortcutsrc"
            let mine = "[services][org.kde.konsole.desktop]\n_launch=Ctrl+Alt+T\n"
            try home.file("xdg/kglobalshortcutsrc", mine)

            let setup = try runTool(UserDebugHome.binary, ["setup", "--yes"], environment: environment)
            try #require(setup.status == 0, "\(setup)")
            #expect(setup.out.contains("desktop: kde"), "\(setup)")
            #expect(setup.out.contains("check: ran Super+Alt+I's command; the clipboard holds"), "\(setup)")
            func read(_ group: String) throws -> String {
                let result = try runTool(
                    "/usr/bin/kreadconfig5",
                    ["--file", shortcuts, "--group", "services", "--group", group, "--key", "_launch"],
                    environment: environment)
                #expect(result.status == 0, "\(result)")
                return result.out.trimmingCharacters(in: .newlines)
            }
            #expect(try read("userdebug-dump-json.desktop") == "Meta+Alt+J")
            #expect(try read("userdebug-menu.desktop") == "Meta+Alt+M")
            #expect(try read("org.kde.konsole.desktop") == "Ctrl+Alt+T")

            // What Plasma runs for Meta+Alt+J: the entry's Exec line.
            let entry = try String(
                contentsOfFile: data + "/applications/userdebug-dump-json.desktop", encoding: .utf8)
            let exec = try #require(entry.split(separator: "\n").first { $0.hasPrefix("Exec=") }).dropFirst(5)
            let ran = try runTool("/bin/sh", ["-c", String(exec)], environment: environment)
            #expect(ran.status == 0, "\(ran)")
            let pasted = try Peer.read(
                ["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 10)
            #expect(String(decoding: pasted.bytes, as: UTF8.self).contains("\"usr_1\""))

            let before = FileManager.default.contents(atPath: shortcuts)
            let again = try runTool(UserDebugHome.binary, ["setup", "--yes"], environment: environment)
            #expect(again.status == 0 && again.out.contains("nothing to change"), "\(again)")
            #expect(FileManager.default.contents(atPath: shortcuts) == before)

            let undo = try runTool(UserDebugHome.binary, ["setup", "--undo"], environment: environment)
            #expect(undo.status == 0, "\(undo)")
            #expect(FileManager.default.contents(atPath: shortcuts) == Data(mine.utf8))
            #expect(!FileManager.default.fileExists(atPath: data + "/applications/userdebug-dump-json.desktop"))
        }
    }
}

/// `userdebug setup` under real X11 window managers on an Xvfb: i3 (XDG_CURRENT_DESKTOP=i3, as its
/// session sets it: an include file in ~/.config/i3, its line in the user's config and `i3-msg
/// reload`, then a key pressed with xdotool runs i3's binding), and openbox (no desktop named: the
/// daemon, its XDG autostart entry, and a key pressed with xdotool reaching the daemon's grab
/// while openbox manages the screen). The clipboard is read with xclip.
@Suite(.serialized, .desktopTier) struct SetupWindowManagerTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func environment(_ x: Xvfb, desktop: String?) throws -> [String: String] {
        let runtime = home.root.appendingPathComponent("run")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = home.environment.merging(["DISPLAY": x.display, "XDG_RUNTIME_DIR": runtime.path]) { $1 }
        environment["XDG_CURRENT_DESKTOP"] = desktop
        return environment
    }

    func clipboard(_ x: Xvfb) -> String {
        let out = try? Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 10)
        return out.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
    }

    /// Runs `body` with the window manager `argv` managing the display; it is killed after,
    /// whatever happens (and so is a daemon setup started, by the pid in its lock file).
    func withWindowManager(
        _ argv: [String], desktop: String?, ready: [String], _ body: (Xvfb, [String: String]) throws -> Void
    ) throws {
        try withXvfb { x in
            let environment = try environment(x, desktop: desktop)
            let manager = try Spawned.start(argv, environment: environment)
            defer {
                manager.kill()
                manager.wait()
                let lock = home.root.appendingPathComponent("run/userdebug-daemon-\(x.display).lock").path
                if let text = try? String(contentsOfFile: lock, encoding: .utf8),
                    let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
                {
                    kill(pid, SIGKILL)
                }
            }
            let up = eventually {
                (try? Peer.read(ready, environment: environment, limit: 5))?.status == 0
            }
            try #require(up, "\(argv[0]) did not come up on \(x.display)")
            try body(x, environment)
        }
    }

    func press(_ x: Xvfb, _ keys: String) throws {
        let press = try Peer.read(["xdotool", "key", "--delay", "0", keys], environment: x.environment, limit: 20)
        #expect(press.status == 0)
    }

    @Test func onI3SetupWritesTheIncludeReloadsI3AndAPressedKeyCopies() throws {
        let mine = "# my i3\nfont pango:monospace 8\nbindsym Mod4+Return exec --no-startup-id true\n"
        let config = try home.file(".config/i3/config", mine)
        let include = home.root.appendingPathComponent(".config/i3/userdebug.config").path
        try withWindowManager(["i3"], desktop: "i3", ready: ["i3-msg", "-t", "get_version"]) { x, environment in
            let setup = try runTool(UserDebugHome.binary, ["setup", "--yes"], environment: environment)
            try #require(setup.status == 0, "\(setup)")
            #expect(setup.out.contains("desktop: i3"), "\(setup)")
            #expect(setup.out.contains("ran i3-msg reload"), "\(setup)")
            #expect(setup.out.contains("check: ran Super+Alt+I's command; the clipboard holds"), "\(setup)")
            let text = try String(contentsOfFile: include, encoding: .utf8)
            #expect(text.contains("bindsym Mod4+Mod1+i exec --no-startup-id "), "\(text)")
            #expect(text.contains(" menu --dmenu\n"), "\(text)")
            let written = try String(contentsOfFile: config, encoding: .utf8)
            #expect(written.hasPrefix(mine) && written.hasSuffix("include \(include)\n"), "\(written)")

            // i3 read the include: its binding runs on a real key press (XTEST).
            _ = try Peer.own(
                ["xclip", "-i", "-selection", "clipboard"], input: Array("stale".utf8), environment: x.environment)
            #expect(eventually { clipboard(x) == "stale" })
            try press(x, "super+alt+i")
            #expect(eventually { clipboard(x) == "usr_1" }, "clipboard: \(clipboard(x))")

            let undo = try runTool(UserDebugHome.binary, ["setup", "--undo"], environment: environment)
            #expect(undo.status == 0, "\(undo)")
            #expect(FileManager.default.contents(atPath: config) == Data(mine.utf8))
            #expect(!FileManager.default.fileExists(atPath: include))
            #expect(undo.out.contains("ran i3-msg reload"), "\(undo)")
        }
    }

    @Test func onOpenboxSetupStartsTheDaemonAndAPressedKeyCopies() throws {
        let autostart = home.root.appendingPathComponent(".config/autostart/userdebug.desktop").path
        // openbox answers xprop's query of its _NET_SUPPORTING_WM_CHECK once it manages the screen.
        try withWindowManager(
            ["openbox", "--sm-disable"], desktop: nil,
            ready: ["sh", "-c", "xprop -root _NET_SUPPORTING_WM_CHECK | grep -q 'window id'"]
        ) { x, environment in
            let setup = try runTool(UserDebugHome.binary, ["setup", "--yes"], environment: environment)
            try #require(setup.status == 0, "\(setup)")
            #expect(setup.out.contains("desktop: x11"), "\(setup)")
            #expect(setup.out.contains("created \(autostart)"), "\(setup)")
            #expect(setup.out.contains("check: pressed Super+Alt+I (xdotool); the clipboard holds"), "\(setup)")
            try press(x, "super+alt+j")
            #expect(
                eventually { clipboard(x).hasPrefix("{") && clipboard(x).contains("usr_1") },
                "clipboard: \(clipboard(x))")
            let undo = try runTool(UserDebugHome.binary, ["setup", "--undo"], environment: environment)
            #expect(undo.status == 0, "\(undo)")
            #expect(!FileManager.default.fileExists(atPath: autostart))
        }
    }

    /// The next login: openbox-session runs the XDG autostart entries (PyXDG's
    /// openbox-xdg-autostart), and the entry setup wrote starts the daemon, whose key copies.
    /// XDG_CONFIG_DIRS names an empty directory, so only the user's entries start (not the
    /// system's clipboard managers of /etc/xdg/autostart).
    @Test func onOpenboxTheNextLoginStartsTheDaemonFromSetupsAutostartEntry() throws {
        let autostart = home.root.appendingPathComponent(".config/autostart/userdebug.desktop").path
        let system = home.root.appendingPathComponent("xdg-system").path
        try FileManager.default.createDirectory(atPath: system, withIntermediateDirectories: true)
        try withXvfb { x in
            var environment = try environment(x, desktop: nil)
            environment["XDG_CONFIG_DIRS"] = system
            let setup = try runTool(UserDebugHome.binary, ["setup", "--yes"], environment: environment)
            try #require(setup.status == 0, "\(setup)")
            #expect(FileManager.default.fileExists(atPath: autostart), "\(setup)")
            let lock = home.root.appendingPathComponent("run/userdebug-daemon-\(x.display).lock").path
            func daemonPid() -> Int32? {
                guard let text = try? String(contentsOfFile: lock, encoding: .utf8),
                    let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0,
                    let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
                    command.contains("daemon"),
                    let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), !stat.contains(") Z ")
                else { return nil }
                return pid
            }
            // The session ends: the daemon setup started goes with it.
            let first = try #require(daemonPid(), "setup started the daemon")
            kill(first, SIGTERM)
            try #require(eventually { daemonPid() == nil }, "the daemon did not leave")

            let session = try Spawned.start(["openbox-session"], environment: environment)
            defer {
                if let pid = daemonPid() { kill(pid, SIGKILL) }
                session.kill()
                session.wait()
            }
            #expect(eventually { daemonPid() != nil }, "no daemon after the login")
            let started = daemonPid()
            #expect(started != first)
            try press(x, "super+alt+j")
            #expect(
                eventually { clipboard(x).hasPrefix("{") && clipboard(x).contains("usr_1") },
                "clipboard: \(clipboard(x))")
        }
    }
}
