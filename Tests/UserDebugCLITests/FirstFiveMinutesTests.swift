import Foundation
import TestSupport
import Testing

/// A new user's first five minutes, end to end: install from a fresh copy of the repository into
/// a temporary prefix with `Scripts/install.sh` (which builds), capture a login with `capture --
/// curl` against a local server (the login rule makes it the current session), press the hotkey
/// under Xvfb with sxhkd started with its stdout sent to a file, and read the id from the
/// clipboard with xclip.
///
/// The copy holds the repository's files as a clone would (tracked and new files, not ignored
/// ones) and lives under /tmp between runs with its `.build`, so a rerun's build is incremental
/// (the first one, a static release build, takes many minutes on a loaded machine).
@Suite(.serialized, .desktopTier) struct FirstFiveMinutesTests {
    static let clone = "/tmp/userdebug-first-five-\(getuid())/userdebug"

    /// Makes `clone` hold exactly the repository's files (keeping its `.build`).
    static func refreshClone() throws {
        let script = """
            set -euo pipefail
            mkdir -p "$CLONE"
            find "$CLONE" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
            cd "$ROOT"
            git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
              [[ -e $file ]] && cp --parents -p -- "$file" "$CLONE/"
            done
            """
        let result = try runTool(
            "/bin/bash", ["-c", script],
            environment: ["CLONE": clone, "ROOT": repositoryRoot.path, "PATH": "/usr/bin:/bin"])
        try #require(result.status == 0, "\(result)")
    }

    @Test func installCaptureALoginPressTheHotkeyAndPasteTheId() throws {
        try Self.refreshClone()
        let home = try LoginRuleCLITests.home()
        let prefix = home.root.appendingPathComponent("prefix").path
        var environment = ProcessInfo.processInfo.environment
        environment["PREFIX"] = prefix
        environment["HOME"] = home.root.path
        let install = try runTool(Self.clone + "/Scripts/install.sh", [], environment: environment)
        try #require(install.status == 0, "\(install)")
        let userdebug = prefix + "/bin/userdebug"
        try #require(FileManager.default.isExecutableFile(atPath: userdebug), "\(install)")

        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let capture = try runTool(
            userdebug,
            [
                "capture", "--", "curl", "-s", "-d", #"{"username": "newuser", "password": "pw"}"#,
                server.baseURL + "/v1/login",
            ],
            environment: home.environment)
        #expect(capture.status == 0, "\(capture)")
        #expect(capture.err.contains("recorded session 'usr_newuser@\(server.hostAndPort)'"), "\(capture)")

        try withXvfb { x in try Self.pressTheHotkey(userdebug: userdebug, home: home, x: x) }
    }

    /// sxhkd with its stdout and stderr in files, the hotkey pressed with xdotool until the id is
    /// on the clipboard (sxhkd grabs its keys some time after it starts); the old value first
    /// proves that the copy changed it.
    static func pressTheHotkey(userdebug: String, home: UserDebugHome, x: Xvfb) throws {
        var environment = home.environment
        environment["DISPLAY"] = x.display
        environment["SHELL"] = "/bin/sh"  // sxhkd runs each command with $SHELL -c
        let rc = try home.file("sxhkdrc", "super + alt + i\n  \(userdebug) copy-id --to clipboard\n")
        let out = home.root.appendingPathComponent("sxhkd.out").path
        let setOld = try Peer.own(
            ["xclip", "-selection", "clipboard"], input: Array("old".utf8), environment: environment)
        #expect(setOld == 0)
        let sxhkd = try Spawned.start(
            ["/bin/sh", "-c", "exec sxhkd -c \"$1\" >\"$2\" 2>\"$2.err\"", "sh", rc, out], environment: environment)
        defer {
            sxhkd.kill(SIGTERM)
            sxhkd.wait()
        }
        var pasted = ""
        let copied = eventually(timeout: 60) {
            _ = try? Peer.read(["xdotool", "key", "super+alt+i"], environment: environment, limit: 5)
            let settled = eventually(timeout: 2) {
                pasted =
                    (try? Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: environment, limit: 5))
                    .map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
                return pasted == "usr_newuser"
            }
            return settled
        }
        #expect(
            copied,
            "the clipboard holds \"\(pasted)\"; sxhkd: \(String(decoding: readWholeFile(out + ".err") ?? [], as: UTF8.self))"
        )
        #expect(readWholeFile(out)?.isEmpty ?? true, "the id went to sxhkd's stdout, not (only) the clipboard")
    }
}
