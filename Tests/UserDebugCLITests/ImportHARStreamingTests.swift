import Foundation
import Testing

/// `response import` reads the HAR one entry at a time (issue 12, item 11): an error anywhere is
/// still named by its line and column in the file, from a file or standard input, and nothing
/// of the entries before it is recorded.
@Suite(.desktopTier) struct ImportHARStreamingTests {
    static func entry(_ name: String) -> String {
        #"{"startedDateTime": "2026-11-30T10:00:00Z", "time": 1, "request": {"method": "GET", "url": "https://x/\#(name)"}, "response": {"status": 200, "content": {"text": "\#(name)"}}}"#
    }

    /// Five entries, the third given, on these lines: 1 `{"log": …`, 2 `"entries": [`, 3 the
    /// first, 4 the second and then the third on the same line, 5 and 6 the others, 7 `]}}`.
    static func har(third: String) -> String {
        """
        {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
         "entries": [
          \(entry("a")),
          \(entry("b")), \(third),
          \(entry("d")),
          \(entry("e"))
         ]}}
        """
    }

    /// The 1-based line and byte column of the first `needle` in `text`.
    static func position(of needle: String, in text: String) throws -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() {
            if let range = line.range(of: needle) {
                return "\(number + 1):\(line.utf8.distance(from: line.startIndex, to: range.lowerBound) + 1)"
            }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var third: String
        var needle: String
        var reason: String
        var testDescription: String { name }
    }

    static let cases = [
        Case(
            name: "on the entry's first line, after two others",
            third: #"{"startedDateTime": "2026-11-30T10:00:00Z" "time": 1}"#, needle: #""time": 1}"#,
            reason: "unexpected character '\"'; expected ',' or '}'"),
        Case(
            name: "on a later line of the entry",
            third: "{\"time\": 1,\n   \"request\": {\"method\": \"GET\", \"url\": tru}}", needle: "tru}",
            reason: "invalid literal; expected 'true'"),
        Case(
            name: "a control character in a string",
            third: "{\"request\": {\"method\": \"G\u{01}ET\"}}", needle: "\u{01}",
            reason: "control character 0x1 inside a string; it must be escaped"),
    ]

    @Test(arguments: cases, [false, true])
    func anErrorInTheThirdOfFiveEntriesIsNamedByItsLineAndColumnAndNothingIsRecorded(
        _ badCase: Case, fromStandardInput: Bool
    ) throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.notFound)
        let before = try home.storeFingerprint()
        let text = Self.har(third: badCase.third)
        let result =
            fromStandardInput
            ? try home.run(["response", "import", "-"], stdin: Data(text.utf8))
            : try home.run(["response", "import", try home.file("five.har", text)])
        let source = fromStandardInput ? "standard input" : "five.har"
        let position = try Self.position(of: badCase.needle, in: text)
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains("\(source): \(position): \(badCase.reason); nothing was imported"), "\(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(try home.storeFingerprint() == before)
    }

    @Test func aTruncatedFileIsNamedWhereItEndsAndNothingIsRecorded() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let before = try home.storeFingerprint()
        let whole = Self.har(third: Self.entry("c"))
        let cuts = [
            // Inside the fourth entry, after a member: the object is open.
            (
                whole.components(separatedBy: #""time": 1, "#)[0...3].joined(separator: #""time": 1, "#)
                    + #""time": 1,"#, "unexpected end of input inside an object"
            ),
            // After the comma that follows the fourth entry: a value was expected.
            (
                String(whole[..<whole.range(of: Self.entry("d") + ",")!.upperBound]),
                "unexpected end of input; expected a value"
            ),
            // After the fifth entry: the array is open.
            (String(whole[..<whole.range(of: Self.entry("e"))!.upperBound]), "unexpected end of input inside an array"),
        ]
        for (text, reason) in cuts {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let end = "\(lines.count):\(lines[lines.count - 1].utf8.count + 1)"
            let result = try home.run(["response", "import", try home.file("cut.har", text)])
            #expect(result.status == 65, "\(result)")
            #expect(result.err.contains("cut.har: \(end): \(reason)"), "\(result.err)")
            #expect(try home.storeFingerprint() == before)
        }
    }

    @Test func aWholeFileFromStandardInputIsImportedInOrder() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let result = try home.run(
            ["response", "import", "-", "--tag", "piped"], stdin: Data(Self.har(third: Self.entry("c")).utf8))
        #expect(result.status == 0 && result.out == "1\n2\n3\n4\n5\n", "\(result)")
        #expect(result.err.contains("imported 5 of 5 entries from standard input"), "\(result.err)")
        let third = try home.ok(["print-response", "3", "--json", "--to", "stdout"]).out
        #expect(third.contains("https://x/c") && third.contains(#""piped""#), "\(third)")
    }

    /// A body of several MiB (escapes across read chunks) through a pipe reads back whole.
    @Test func aLargeBodyFromStandardInputReadsBackWhole() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let body = String(repeating: #"ab\"c\\d\/ "#, count: 300_000)
        let big =
            #"{"request": {"method": "GET", "url": "https://x/big"}, "response": {"status": 200, "content": {"text": "\#(body)"}}}"#
        let result = try home.run(["response", "import", "-"], stdin: Data(Self.har(third: big).utf8))
        #expect(result.status == 0 && result.out == "1\n2\n3\n4\n5\n", "\(result.err)")
        let shown = try home.ok(["print-response", "3", "--reveal", "--to", "stdout"]).out
        #expect(shown.hasPrefix(String(repeating: #"ab"c\d/ "#, count: 300_000)), "\(shown.prefix(80))")
    }
}
