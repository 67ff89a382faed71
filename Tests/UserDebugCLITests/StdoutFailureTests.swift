import Foundation
import TestSupport
import Testing
import UserDebugKit

@testable import UserDebugCLI

/// Every command, run as a user would with its standard output closed (`>&-`), on /dev/full and
/// on a broken pipe: a command that writes to standard output exits 74 naming it, never dies of
/// SIGPIPE or a crash; one that writes nothing there exits as it does with a working stdout. The
/// commands come from the CLI's own table, so a new command is covered at once: it fails here
/// until it has a sample invocation below.
@Suite("Standard output that fails, for every command", .processDeadline(300), .desktopTier)
struct StdoutFailureTests {
    /// How to run a command so that it reaches its output: arguments after `userdebug`, and
    /// standard input. No display is set: `--to auto` writes to standard output.
    struct Sample: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        var stdin: [UInt8]? = nil
        /// Whether it writes to standard output (checked: a sample that fails early would
        /// otherwise pass as one that writes nothing).
        var writes = true
        var testDescription: String { arguments.joined(separator: " ") }
    }

    /// A sample per command path. Missing: `capture`, whose output, errors and exit status are
    /// curl's own (README), not ours.
    static let samples: [String: Sample] = [
        "copy-id": Sample(arguments: ["copy-id"]),
        "dump-json": Sample(arguments: ["dump-json"]),
        "print-response": Sample(arguments: ["print-response"]),
        "copy-token": Sample(arguments: ["copy-token"]),
        "menu": Sample(arguments: ["menu"]),
        "run": Sample(arguments: ["run", "copy-id"]),
        "rofi": Sample(arguments: ["rofi"]),
        "session import": Sample(
            arguments: ["session", "import", "-"], stdin: Array(Samples.session.utf8), writes: false),
        "session set": Sample(arguments: ["session", "set", "--session", "other", "--id", "usr_2"], writes: false),
        "session list": Sample(arguments: ["session", "list"]),
        "session show": Sample(arguments: ["session", "show"]),
        "session use": Sample(arguments: ["session", "use", "staging"], writes: false),
        "session remove": Sample(arguments: ["session", "remove", "staging"], writes: false),
        "response record": Sample(arguments: ["response", "record", "-"], stdin: Array(Samples.notFound.utf8)),
        "response list": Sample(arguments: ["response", "list"]),
        "response import": Sample(
            arguments: ["response", "import", "-"], stdin: Array(ImportHARTests.lenientHAR.utf8)),
        "copy": Sample(arguments: ["copy"], stdin: Array("copied".utf8), writes: false),
        "paste": Sample(arguments: ["paste"], writes: false),
        "export curl": Sample(arguments: ["export", "curl"]),
        "export har": Sample(arguments: ["export", "har"]),
        "export postman-env": Sample(arguments: ["export", "postman-env"]),
        "export postman-collection": Sample(arguments: ["export", "postman-collection"]),
        "daemon": Sample(arguments: ["daemon", "--check"]),
        "doctor": Sample(arguments: ["doctor"]),
        "setup": Sample(arguments: ["setup", "--dry-run", "--desktop", "sway"]),
        "proxy": Sample(arguments: ["proxy", "--addon"]),
    ]

    /// Commands whose standard output is another program's: not held to our rule.
    static let passThrough: Set<String> = ["capture"]

    /// Every command of the table, then what answers without one.
    static let rows: [Sample] =
        CLI.commands.map { $0.path.joined(separator: " ") }.filter { !passThrough.contains($0) }.map {
            samples[$0] ?? Sample(arguments: ["no-sample-for", $0])
        } + [Sample(arguments: ["help"]), Sample(arguments: ["--version"]), Sample(arguments: ["session", "--help"])]

    @Test(arguments: rows)
    func aFailingStandardOutputIsExit74OrChangesNothing(_ sample: Sample) throws {
        try #require(
            sample.arguments.first != "no-sample-for",
            "'\(sample.arguments[1])' has no sample invocation in StdoutFailureTests.samples: add one")
        let working = try run(sample, stdout: .captured)
        let writes = !working.stdout.isEmpty
        #expect(writes == sample.writes, "\(sample.testDescription) with a working stdout: \(working)")
        for setup in [StdoutSetup.closed, .full, .brokenPipe] {
            let failing = try run(sample, stdout: setup)
            let status = failing.termination.shellStatus
            #expect(!failing.termination.isSignal, "\(sample.testDescription) \(setup.testDescription): \(failing)")
            if writes {
                #expect(status == 74, "\(sample.testDescription) \(setup.testDescription): \(failing)")
                #expect(failing.stderr.contains("standard output"), "\(failing)")
            } else {
                #expect(
                    status == working.termination.shellStatus,
                    "\(sample.testDescription) writes nothing to stdout, yet \(setup.testDescription) changed it: \(failing)"
                )
            }
        }
    }

    /// A fresh home holding the sample session (current) and a response, then the sample run.
    private func run(_ sample: Sample, stdout: StdoutSetup) throws -> BoundedResult {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
        return try runBounded(
            [UserDebugHome.binary] + sample.arguments, environment: home.environment, stdin: sample.stdin,
            stdout: stdout)
    }
}

extension ChildProcess.Termination {
    /// Whether a signal ended it.
    var isSignal: Bool {
        if case .signalled = self { return true }
        return false
    }
}
