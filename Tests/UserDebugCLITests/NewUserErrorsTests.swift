import Foundation
import Testing

/// The rough edges a new user met: suggestions that know the commands' hyphens, a bad value
/// reported before the store is opened, global options before the command, and `run` of a
/// backend action saying why the backend gave nothing.
@Suite struct NewUserErrorsTests {
    @Test(arguments: [
        (["copyid"], "did you mean 'copy-id'?"),
        (["dumpjson"], "did you mean 'dump-json'?"),
        (["print_response"], "did you mean 'print-response'?"),
        (["export-har"], "did you mean 'export har'?"),
        (["sesion", "list"], "did you mean 'session'?"),
        (["session", "imprt", "-"], "did you mean 'session import'?"),
        (["export", "postman-colection"], "did you mean 'export postman-collection'?"),
        (["print-response", "--tga", "login"], "did you mean '--tag'?"),
        (["copy-id", "--too", "stdout"], "did you mean '--to'?"),
    ])
    func aTypoGetsTheNameWithItsHyphens(arguments: [String], suggestion: String) throws {
        let home = try UserDebugHome()
        let result = try home.run(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.err.contains(suggestion), "\(result.err)")
    }

    /// Each hint names the command that fixes the state it reports, and running it does
    /// (every state of the table, run as printed: FirstHourHintTests).
    @Test func theMissingStoreAndResponseHintsNameTheCommandThatFixesThem() throws {
        let home = try UserDebugHome()
        let noStore = try home.run(["copy-id", "--to", "stdout"])
        #expect(noStore.status == 66)
        #expect(
            noStore.err.contains("record a session first, the sample one: userdebug session import /"), "\(noStore)")
        #expect(!noStore.err.contains("…"), "\(noStore.err)")
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")

        let noResponse = try home.run(["print-response", "--to", "stdout"])
        #expect(noResponse.status == 66)
        #expect(noResponse.err.contains("no recorded response matches (session 'staging')"), "\(noResponse)")
        #expect(noResponse.err.contains("record one: userdebug capture --session staging -- curl -sS https://"))
        #expect(!noResponse.err.contains("session import"), "\(noResponse.err)")
        let filtered = try home.run(["print-response", "--tag", "login", "--to", "stdout"])
        #expect(filtered.status == 66)
        #expect(filtered.err.contains("record one: userdebug capture --session staging"), "\(filtered)")
        let exported = try home.run(["export", "har", "--to", "stdout"])
        #expect(exported.status == 66 && exported.err.contains("record one: userdebug capture"), "\(exported)")

        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
        #expect(try home.ok(["print-response", "--to", "stdout"]).out.contains("usr_1"))
        let missed = try home.run(["print-response", "--tag", "other", "--to", "stdout"])
        #expect(missed.err.contains("see what it has: userdebug response list --session staging"), "\(missed)")
    }

    /// In a Wayland session without an X display (sway without XWayland, GNOME's and KDE's own
    /// windows) the daemon and the popup point to what works there: `userdebug setup`, which binds
    /// the keys the compositor's way, and `menu --dmenu`.
    @Test func theDaemonAndThePopupOnWaylandWithoutXPointToSetupAndTheLauncher() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let wayland = ["WAYLAND_DISPLAY": "wayland-1", "XDG_SESSION_TYPE": "wayland"]
        let daemon = try home.run(["daemon"], extraEnvironment: wayland)
        #expect(daemon.status == 69, "\(daemon)")
        #expect(daemon.err.contains("no DISPLAY in this Wayland session"), "\(daemon)")
        #expect(daemon.err.contains("userdebug setup (sway: an include file with menu --dmenu on Super+Alt+M"))
        let popup = try home.run(["menu", "--popup"], extraEnvironment: wayland)
        #expect(popup.status == 69, "\(popup)")
        #expect(popup.err.contains("this Wayland session has no X display"), "\(popup)")
        #expect(popup.err.contains("use a launcher: userdebug menu --dmenu (userdebug setup binds it"), "\(popup)")
        // Outside a Wayland session the popup is run as before (no display: its own error).
        let x11 = try home.run(["menu", "--popup"])
        #expect(x11.status == 69 && !x11.err.contains("use a launcher"), "\(x11)")
    }

    @Test func noSuggestionForAWordFarFromEveryCommand() throws {
        let result = try UserDebugHome().run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.err.contains("unknown command 'frobnicate'") && !result.err.contains("did you mean"))
    }

    /// With no store at all, the bad value is what is wrong, not the missing store.
    @Test(arguments: [
        (["copy-id", "--to", "clipbord"], "clipbord"),
        (["dump-json", "--backend", "wayand"], "wayand"),
        (["run", "copy-id", "--to", "clipboard", "--lifetime", "soon"], "--lifetime"),
        (["copy-token", "--to=prmary"], "prmary"),
        (["export", "har", "--to", "file"], "file"),
    ])
    func aBadValueIsReportedBeforeTheStoreIsOpened(arguments: [String], named: String) throws {
        let home = try UserDebugHome()
        let result = try home.run(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.err.contains(named), "\(result.err)")
        #expect(!result.err.contains("store"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: home.databasePath))
    }

    @Test func globalOptionsMayComeBeforeTheCommand() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(
            ["session", "set", "--session", "other", "--id", "usr_other"], stdin: nil)
        try home.ok(["session", "use", "staging"])
        #expect(
            try home.ok(["--session", "other", "copy-id", "--to", "stdout"]).out.trimmingCharacters(in: .newlines)
                == "usr_other")
        #expect(
            try home.ok(["--session=other", "-q", "copy-id", "--to", "stdout"]).out.trimmingCharacters(in: .newlines)
                == "usr_other")
        let revealed = try home.ok(["--reveal", "copy-token", "--to", "stdout"]).out.trimmingCharacters(in: .newlines)
        #expect(revealed == Samples.canary)
        let missing = try home.run(["--session"])
        #expect(missing.status == 64 && missing.err.contains("'--session' needs a value"), "\(missing)")
        let noCommand = try home.run(["--session", "other"])
        #expect(noCommand.status == 64 && noCommand.err.contains("expected a command"), "\(noCommand)")
    }

    @Test func aBackendActionWithTheBackendDownReportsTheBackendsError() throws {
        let home = try UserDebugHome()
        // Port 9 (discard) on the loopback: nothing listens, the connection is refused at once.
        try home.ok(
            ["session", "import", "-"],
            stdin: #"{"name": "down", "user": {"identifier": "usr_d"}, "baseURL": "http://127.0.0.1:9"}"#)
        try home.file("config/config.json", #"{"backend": {"path": "/me", "timeoutSeconds": 5}}"#)
        let result = try home.run(["run", "backend.body", "--to", "stdout"])
        #expect(result.status == 69, "\(result)")
        #expect(!result.err.contains("no action"), "\(result.err)")
        #expect(result.err.contains("'backend.body' comes from 'From the backend', which failed"), "\(result.err)")
        #expect(result.err.contains("curl"), "\(result.err)")
    }

    @Test func aBackendActionWithoutABackendSectionSaysWhatToAdd() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let result = try home.run(["run", "backend.body", "--to", "stdout"])
        #expect(result.status == 64, "\(result)")
        #expect(result.err.contains("no backend section"), "\(result.err)")
    }
}
