import Foundation
import Testing

/// Bad input of every kind: a clear message naming what was wrong, its exit status, and a store
/// that is byte for byte what it was before.
@Suite struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var stdin: Data?
        var status: Int32
        var message: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "malformed JSON", arguments: ["session", "import", "-"],
            stdin: Data("{\n  \"user\": {\"identifier\": \"u\",}\n}".utf8),
            status: 65, message: "standard input: 2:"),
        Case(
            name: "missing identifier", arguments: ["session", "import", "-"],
            stdin: Data(#"{"user": {"name": "no id"}}"#.utf8),
            status: 65, message: "identifier"),
        Case(
            name: "not UTF-8", arguments: ["session", "import", "-"],
            stdin: Data([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D]),
            status: 65, message: "UTF-8"),
        Case(
            name: "deeply nested", arguments: ["session", "import", "-"],
            stdin: Data(
                (#"{"id":"u","x":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
                    + "}").utf8),
            status: 65, message: "nesting"),
        Case(name: "empty input", arguments: ["session", "import", "-"], stdin: Data(), status: 65, message: "empty"),
        Case(
            name: "an array where a session belongs", arguments: ["session", "import", "-"], stdin: Data("[1]".utf8),
            status: 65, message: "object"),
        Case(
            name: "response without status", arguments: ["response", "record", "-"],
            stdin: Data(#"{"request": {"method": "GET", "url": "https://x/"}, "response": {}}"#.utf8), status: 65,
            message: "status"),
        Case(
            name: "one bad element of an array", arguments: ["response", "record", "-"],
            stdin: Data(
                #"[{"request": {"method": "GET", "url": "https://x/"}, "response": {"status": 200}}, {"request": {}}]"#
                    .utf8),
            status: 65, message: "element [1]"),
        Case(
            name: "unknown flag", arguments: ["copy-id", "--frobnicate"], stdin: nil, status: 64,
            message: "unknown option '--frobnicate'"),
        Case(
            name: "value that starts with --", arguments: ["session", "set", "--id", "--name", "x"], stdin: nil,
            status: 64,
            message: "--id=--name"),
        Case(
            name: "unknown command", arguments: ["copy-idd"], stdin: nil, status: 64, message: "did you mean 'copy-id'"),
        Case(
            name: "missing file", arguments: ["session", "import", "/nonexistent/s.json"], stdin: nil, status: 66,
            message: "/nonexistent/s.json"),
        Case(name: "bad --to", arguments: ["copy-id", "--to", "printer"], stdin: nil, status: 64, message: "printer"),
        Case(
            name: "infinite --lifetime", arguments: ["copy-id", "--to", "clipboard", "--lifetime", "inf"], stdin: nil,
            status: 64,
            message: "--lifetime needs a positive number of seconds, got 'inf'"),
        Case(
            name: "infinite paste --timeout", arguments: ["paste", "--timeout", "inf"], stdin: nil, status: 64,
            message: "--timeout"),
        Case(
            name: "bad --status", arguments: ["print-response", "--status", "abc"], stdin: nil, status: 64,
            message: "--status"),
        Case(
            name: "a valued option twice", arguments: ["print-response", "--status", "200", "--status", "404"],
            stdin: nil, status: 64, message: "option '--status' given more than once"),
        Case(
            name: "a flag twice", arguments: ["copy-id", "--to", "stdout", "--reveal", "--reveal"], stdin: nil,
            status: 64, message: "option '--reveal' given more than once"),
        Case(
            name: "a short flag twice in one bundle", arguments: ["copy-id", "--to", "stdout", "-qq"], stdin: nil,
            status: 64, message: "option '-q' (--quiet) given more than once"),
        Case(
            name: "a global flag before the command and after it", arguments: ["--quiet", "copy-id", "--quiet"],
            stdin: nil, status: 64, message: "option '--quiet' given more than once"),
        Case(
            name: "a command's own flag twice", arguments: ["session", "list", "--json", "--json"], stdin: nil,
            status: 64, message: "option '--json' given more than once"),
    ]

    @Test(arguments: cases)
    func badInputIsRefusedAndTheStoreIsUnchanged(_ badCase: Case) throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.notFound)
        let before = try home.storeFingerprint()
        #expect(before.contains("usr_1"))
        let result = try home.run(badCase.arguments, stdin: badCase.stdin)
        #expect(result.status == badCase.status, "\(result)")
        #expect(result.err.contains(badCase.message), "\(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(try home.storeFingerprint() == before)
    }

    @Test func aOneGibibyteFileIsRefusedWithoutReadingIt() throws {
        let home = try UserDebugHome()
        let path = home.root.appendingPathComponent("huge.json").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let result = try home.run(["session", "import", path])
        #expect(result.status == 65)
        #expect(result.err.contains("larger than"))
        #expect(!FileManager.default.fileExists(atPath: home.databasePath))
    }

    @Test func aLargeStreamOnStdinIsRefusedPastTheLimit() throws {
        let home = try UserDebugHome()
        let result = try home.run(["response", "record", "-"], stdin: Data(repeating: 0x20, count: 65 * 1024 * 1024))
        #expect(result.status == 65)
        #expect(result.err.contains("larger than"))
    }
}
