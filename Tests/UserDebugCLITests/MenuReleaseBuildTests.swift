import Foundation
import Testing

/// A host app (Tests/Fixtures/DebugMenuFixture) integrates the debug menu behind `#if DEBUG`, as
/// the seeds recommend. Its release build must contain none of the integration API's symbols and
/// none of its own debug actions' strings; its debug build must contain them (else the test
/// would pass for a binary that never had them).
///
/// Each configuration is built once per run, in its own scratch directory under /tmp that is
/// kept between runs so a rebuild is incremental (the first one takes a minute or two).
@Suite(.serialized) struct MenuReleaseBuildTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/DebugMenuFixture")
    static let scratch = "/tmp/userdebug-fixture-\(getuid())"

    /// Demangled symbol names that only the integration API and the fixture's debug code define.
    static let debugSymbols = ["UserDebugKit.DebugMenuInteraction", "UserDebugKit.DebugMenuInteractionDelegate", "FixtureApp.FixtureAccountView"]
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            let writer = input.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: Data(stdin.utf8))
                try? writer.close()
            }
        }
        let box = DataBox()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            box.data = err.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "\(program) \(arguments.joined(separator: " ")) exited \(process.terminationStatus):\n"
                + String(decoding: data + box.data, as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
