import Foundation
import Testing

/// A host app (Tests/Fixtures/DebugMenuFixture) integrates the debug menu behind `#if DEBUG`, as
/// DebugMenuInteraction's documentation asks. Its release build must contain none of the
/// integration API's symbols and none of its own debug actions' strings; its debug build must
/// contain them (else the test would pass for a binary that never had them).
///
/// Each configuration is built once per run, in its own scratch directory under /tmp that is
/// kept between runs so a rebuild is incremental (the first one takes a minute or two).
@Suite(.serialized, .desktopTier) struct MenuReleaseBuildTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/DebugMenuFixture")
    static let scratch = "/tmp/userdebug-fixture-\(getuid())"

    /// Demangled symbol names that only the integration API and the fixture's debug code define.
    static let debugSymbols = [
        "UserDebugKit.DebugMenuInteraction", "UserDebugKit.DebugMenuInteractionDelegate",
        "FixtureApp.FixtureAccountView",
    ]
    /// Strings only the fixture's debug code holds: an action's title and id, its type's name.
    static let debugStrings = ["Copy Fixture Account Identifier", "fixture-copy-account", "FixtureAccountView"]

    @Test func theReleaseBuildHasNoDebugMenuAndTheDebugBuildHasIt() throws {
        let release = try Self.build("release")
        let debug = try Self.build("debug")
        let (releaseSymbols, releaseStrings) = try (Self.symbols(release), Self.strings(release))
        let (debugSymbols, debugStrings) = try (Self.symbols(debug), Self.strings(debug))
        for symbol in Self.debugSymbols {
            #expect(!releaseSymbols.contains(symbol), "release build defines \(symbol)")
            #expect(debugSymbols.contains(symbol), "debug build lacks \(symbol): the check proves nothing")
        }
        for string in Self.debugStrings {
            #expect(!releaseStrings.contains(string), "release build holds \"\(string)\"")
            #expect(debugStrings.contains(string), "debug build lacks \"\(string)\": the check proves nothing")
        }
        // Both still run the app's own code.
        #expect(try Self.run(release, []).contains("signed in as Fixture Account"))
        #expect(try Self.run(debug, []).contains("acct_fixture_42"))
    }

    /// Builds the fixture in `configuration` and returns its binary's path.
    static func build(_ configuration: String) throws -> String {
        let path = scratch + "/" + configuration
        var arguments = ["build", "--package-path", fixture.path, "--scratch-path", path]
        if configuration == "release" { arguments += ["-c", "release"] }
        let output = try run("/usr/bin/env", ["swift"] + arguments)
        let binary = path + "/\(configuration)/FixtureApp"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw FixtureError(message: "no \(binary) after swift build:\n\(output)")
        }
        return binary
    }

    static func symbols(_ binary: String) throws -> String {
        let mangled = try run("/usr/bin/nm", [binary])
        return try run("/usr/bin/env", ["swift", "demangle", "--compact"], stdin: mangled)
    }

    static func strings(_ binary: String) throws -> String {
        try run("/usr/bin/strings", ["-a", "-n", "6", binary])
    }

    /// Runs a program, returns stdout; a failure throws with stderr.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], stdin: String? = nil) throws -> String {
        let result = try runTool(program, arguments, stdin: stdin.map { Data($0.utf8) })
        guard result.status == 0 else {
            throw FixtureError(
                message: "\(program) \(arguments.joined(separator: " ")) exited \(result.status):\n"
                    + result.out + result.err)
        }
        return result.out
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
