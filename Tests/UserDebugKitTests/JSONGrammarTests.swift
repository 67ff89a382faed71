import Testing

@testable import UserDebugKit

private func parseError(_ bytes: [UInt8], parser: JSONParser = JSONParser()) -> JSONParseError? {
    do {
        _ = try parser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String, parser: JSONParser = JSONParser()) -> JSONParseError? {
    parseError(Array(text.utf8), parser: parser)
}

@Test func escapesAreDecodedIncludingSurrogatePairs() throws {
    let value = try JSONParser().parse(#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u20AC", "\ud83d\ude00"]"#)
    #expect(value == .array([.string("a\"b\\c/d\u{08}\u{0C}\n\r\t"), .string("é€"), .string("😀")]))
}

@Test func rawMultiByteUTF8IsKept() throws {
    #expect(try JSONParser().parse("\"Zoë 😀\"") == .string("Zoë 😀"))
}

@Test func aByteOrderMarkIsSkipped() throws {
    #expect(try JSONParser().parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .object(JSONObject()))
}

@Test func numbersKeepTheirLiteralText() throws {
    let value = try JSONParser().parse("[0, -0, 1.50, 1e10, 2E-3, -12.5e+7, 123456789012345678901234567890]")
    let literals = value.arrayValue?.compactMap(\.scalarText)
    #expect(literals == ["0", "-0", "1.50", "1e10", "2E-3", "-12.5e+7", "123456789012345678901234567890"])
}

struct BadJSON: CustomTestStringConvertible, Sendable {
    let input: [UInt8]
    let line: Int
    let column: Int
    let offset: Int
    let fragment: String
    var testDescription: String { fragment }

    init(_ text: String, line: Int = 1, column: Int, offset: Int? = nil, fragment: String) {
        self.init(bytes: Array(text.utf8), line: line, column: column, offset: offset, fragment: fragment)
    }

    /// `offset` defaults to `column - 1`, right for single-line inputs.
    init(bytes: [UInt8], line: Int = 1, column: Int, offset: Int? = nil, fragment: String) {
        self.input = bytes
        self.line = line
        self.column = column
        self.offset = offset ?? column - 1
        self.fragment = fragment
    }
}

@Test(arguments: [
    BadJSON("", column: 1, fragment: "the input is empty"),
    BadJSON("01", column: 2, fragment: "leading zero"),
    BadJSON("1.", column: 3, fragment: "expected a digit after '.'"),
    BadJSON(".5", column: 1, fragment: "unexpected character '.'"),
    BadJSON("+1", column: 1, fragment: "unexpected character '+'"),
    BadJSON("1e", column: 3, fragment: "exponent"),
    BadJSON("-", column: 2, fragment: "expected a digit"),
    BadJSON("[1,]", column: 4, fragment: "expected a value"),
    BadJSON("{\"a\":1,}", column: 8, fragment: "expected a member name"),
    BadJSON("{\"a\":1, \"a\":2}", column: 9, fragment: "duplicate key \"a\""),
    BadJSON("{\"a\" 1}", column: 6, fragment: "expected ':'"),
    BadJSON("[1 2]", column: 4, fragment: "expected ',' or ']'"),
    BadJSON("\"abc", column: 1, fragment: "unterminated string"),
    BadJSON("\"a\u{01}\"", column: 3, fragment: "control character 0x1"),
    BadJSON(#""\x""#, column: 3, fragment: "invalid escape"),
    BadJSON(#""\ud800""#, column: 8, fragment: "unpaired high surrogate"),
    BadJSON(#""\udc00""#, column: 8, fragment: "unpaired low surrogate"),
    BadJSON(#""\ud800\u0041""#, column: 14, fragment: "not followed by a low surrogate"),
    BadJSON("tru", column: 1, fragment: "expected 'true'"),
    BadJSON("{} x", column: 4, fragment: "after the JSON value"),
    BadJSON("[\n1,\n  ]", line: 3, column: 3, offset: 7, fragment: "expected a value"),
    BadJSON("// comment\n{}", column: 1, fragment: "unexpected character '/'"),
    BadJSON(bytes: Array("\"ab".utf8) + [0xFF] + Array("\"".utf8), column: 4, fragment: "invalid UTF-8 byte 0xFF"),
    BadJSON(bytes: [0x22, 0xC0, 0xAF, 0x22], column: 2, fragment: "invalid UTF-8 byte 0xC0"),
    BadJSON(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], column: 2, fragment: "invalid UTF-8 sequence"),
    BadJSON(bytes: [0x22, 0xE2, 0x82], column: 2, fragment: "truncated UTF-8"),
])
func malformedJSONIsRefusedWithItsPosition(_ bad: BadJSON) throws {
    let error = try #require(parseError(bad.input))
    #expect(error.reason.contains(bad.fragment), "\(error)")
    #expect((error.line, error.column, error.offset) == (bad.line, bad.column, bad.offset), "\(error)")
}

/// Objects under 16 members are searched for a repeated name, larger ones through a set: a
/// repeat is refused at its own position either way, and distinct names are all kept.
@Test(arguments: [2, 15, 16, 17, 60])
func aRepeatedNameIsRefusedWhateverTheObjectsSize(_ count: Int) throws {
    let members = (0..<count).map { "\"k\($0)\":\($0)" }
    let distinct = "{" + members.joined(separator: ",") + "}"
    #expect(parseError(distinct) == nil)
    let repeated = "{" + members.joined(separator: ",") + ",\"k1\":0}"
    let error = try #require(parseError(repeated))
    #expect(error.reason.contains("duplicate key \"k1\""), "\(error)")
    #expect(error.column == distinct.count + 1, "\(error)")
}

@Test func nestingTenThousandDeepIsRefusedWithoutRecursingIntoIt() throws {
    let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    let error = try #require(parseError(deep))
    #expect(error.reason == "nesting deeper than 256 levels")
    #expect(error.column == 257)
}

@Test func nestingUpToTheLimitIsAccepted() throws {
    let deep = String(repeating: "{\"a\":", count: 256) + "1" + String(repeating: "}", count: 256)
    _ = try JSONParser().parse(deep)
}

@Test func commentsAreSkippedOnlyWhenAllowedAndStillCountAsLines() throws {
    let text = """
        # settings
        {
          // the limit
          "a": 1, # trailing
          "b": "// not a comment # either"
        }
        """
    let value = try JSONParser(allowsComments: true).parse(text)
    #expect(value == .object(JSONObject(["a": .number("1"), "b": .string("// not a comment # either")])))
    #expect(parseError(text)?.line == 1)
    let error = try #require(parseError("{\n// one\n\"a\": x}", parser: JSONParser(allowsComments: true)))
    #expect((error.line, error.column) == (3, 6))
    #expect(parseError("{\"a\": 1 / 2}", parser: JSONParser(allowsComments: true))?.reason.contains("'/'") == true)
}

@Test func theSourceMapGivesTheLineAndColumnOfEveryMember() throws {
    let text = "{\n  \"retention\": {\n    \"maxResponses\": \"many\"\n  },\n  \"list\": [1, 22]\n}"
    let (_, map) = try JSONParser().parseWithSourceMap(Array(text.utf8))
    #expect(map.valuePosition(of: "retention.maxResponses") == .init(line: 3, column: 21))
    #expect(map.keyPosition(of: "retention.maxResponses") == .init(line: 3, column: 5))
    #expect(map.valuePosition(of: "list[1]") == .init(line: 5, column: 15))
    #expect(map.valuePosition(of: "missing") == nil)
}

@Test func theWriterEscapesEverythingATerminalWouldObey() {
    let text = "a\"\\\n\t\u{1B}]52;c;x\u{07}\u{7F}\u{9B}\u{202E}\u{2028}é"
    #expect(JSONWriter().string(.string(text)) == #""a\"\\\n\t\u001b]52;c;x\u0007\u007f\u009b\u202e\u2028é""#)
}

@Test func writtenJSONParsesBackToTheSameValue() throws {
    let value = JSONValue.object(
        JSONObject([
            "z": .array([.null, .bool(true), .number("-1.5e3")]),
            "a": .string("\u{0}\u{1F}😀"),
            "nested": .object(JSONObject(["k": .string("v")])),
        ]))
    for writer in [JSONWriter(), JSONWriter(indent: 2)] {
        #expect(try JSONParser().parse(writer.string(value)) == value)
    }
    #expect(JSONWriter(keyOrder: .sorted).string(value).hasPrefix(#"{"a":"#))
}
