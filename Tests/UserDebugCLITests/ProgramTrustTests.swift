import Foundation
import TestSupport
import Testing

/// Issue 25, item 5: the launcher and `userdebug-popup` choose the action that runs with the
/// session, so a program someone else could replace (here: in a directory anyone may write,
/// first on PATH) is refused before it runs, as a config's `command` is: 77 for one found on
/// PATH or given with `--launcher`, 78 for `menu.launcher` in the config. The planted program
/// would leave a mark; none is left.
@Suite struct ProgramTrustTests {
    let home: UserDebugHome
    let planted: URL
    let mark: URL

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        planted = home.root.appendingPathComponent("anyone-writes")
        mark = home.root.appendingPathComponent("planted-program-ran")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: true)
        // World-writable and not sticky: anyone may replace what is in it.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: planted.path)
        for name in ["dmenu", "userdebug-popup"] {
            let program = planted.appendingPathComponent(name)
            try "#!/bin/sh\ntouch '\(mark.path)'\necho copy-id\n".write(to: program, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        }
    }

    var path: [String: String] { ["PATH": planted.path + ":/usr/bin:/bin"] }

    @Test func aLauncherFoundOnPathInADirectoryAnyoneWritesIsRefused() throws {
        let result = try home.run(["menu", "--dmenu"], extraEnvironment: path)
        #expect(result.status == 77, "\(result)")
        #expect(result.err.contains("refusing to run the launcher \(planted.path)/dmenu"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: mark.path), "the planted launcher ran")
    }

    @Test func aLauncherNamedWithTheOptionOrTheConfigIsRefusedToo() throws {
        let option = try home.run(["menu", "--dmenu", "--launcher", "dmenu -i"], extraEnvironment: path)
        #expect(option.status == 77, "\(option)")
        #expect(option.err.contains("(--launcher)"), "\(option)")
        try home.file("config/config.json", #"{"menu": {"launcher": ["dmenu", "-i"]}}"#)
        let config = try home.run(["menu", "--dmenu"], extraEnvironment: path)
        #expect(config.status == 78, "\(config)")
        #expect(config.err.contains("(menu.launcher)"), "\(config)")
        #expect(!FileManager.default.fileExists(atPath: mark.path), "the planted launcher ran")
    }

    @Test func aPopupProgramInADirectoryAnyoneWritesIsRefused() throws {
        // The binary alone (no userdebug-popup beside it), so PATH is searched.
        let alone = home.root.appendingPathComponent("bin-alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        let binary = alone.appendingPathComponent("userdebug").path
        try copyExecutable(UserDebugHome.binary, to: binary)
        let result = try runTool(binary, ["menu", "--popup"], environment: home.environment.merging(path) { $1 })
        #expect(result.status == 77, "\(result)")
        #expect(result.err.contains("refusing to run \(planted.path)/userdebug-popup"), "\(result)")
        #expect(result.err.contains("writable"), "names why: \(result)")
        #expect(!FileManager.default.fileExists(atPath: mark.path), "the planted popup ran")
    }
}
