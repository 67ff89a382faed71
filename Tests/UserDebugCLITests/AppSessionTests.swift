import Foundation
import Testing

/// The example app of README's "A Swift app" section (Tests/Fixtures/SessionFixture): built as a
/// user's app would be, run against the echo server, it logs in and records its session with
/// `UserDebugSession.loggedIn`; `userdebug copy-id` then reads its user, and after `logout`
/// (`UserDebugSession.loggedOut`) no session is current.
///
/// The fixture is built once per run in a scratch directory under /tmp kept between runs, so a
/// rebuild is incremental (the first one takes a few minutes on a loaded machine).
@Suite(.serialized) struct AppSessionTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/SessionFixture")
    static let scratch = "/tmp/userdebug-session-fixture-\(getuid())"

    @Test func theExampleAppsLoginIsTheSessionCopyIdReads() throws {
        let output = try MenuReleaseBuildTests.run(
            "/usr/bin/env", ["swift", "build", "--package-path", Self.fixture.path, "--scratch-path", Self.scratch])
        let app = Self.scratch + "/debug/SessionApp"
        try #require(FileManager.default.isExecutableFile(atPath: app), "no \(app) after swift build:\n\(output)")

        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let login = try runTool(app, [server.baseURL, "fixture"], environment: home.environment)
        #expect(login.status == 0, "\(login)")
        #expect(login.out.contains("signed in as Fixture Login"), "\(login)")
        #expect(login.out.contains("userdebug session: usr_fixture@\(server.hostAndPort)"), "\(login)")
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_fixture\n")
        #expect(try home.ok(["copy-token", "--to", "stdout", "--reveal"]).out == LoginRuleCLITests.token + "\n")
        let shown = try home.ok(["session", "show"]).out
        #expect(
            shown.contains(#""baseURL": "\#(server.baseURL)""#) && shown.contains("fixture@example.test"), "\(shown)")

        let logout = try runTool(app, ["logout"], environment: home.environment)
        #expect(
            logout.status == 0 && logout.out.contains("userdebug session ended: usr_fixture@\(server.hostAndPort)"),
            "\(logout)")
        let after = try home.run(["copy-id", "--to", "stdout"])
        #expect(after.status == 66 && after.err.contains("no current session"), "\(after)")
    }
}
