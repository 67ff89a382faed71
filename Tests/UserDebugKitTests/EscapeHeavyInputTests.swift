import Testing

@testable import UserDebugKit

// Hostile bodies made of escapes, at a size where quadratic work cannot hide.
//
// These tests assert no time. They decode 2-8 MiB of escape-heavy input and check every byte of the
// result. Decoding used to be quadratic: `String.UnicodeScalarView.append(contentsOf:)` copies the
// whole view on each call. Measured on the old code in a debug build, 25k/50k/100k units of `a\"`
// took 0.03/0.10/0.41 s, so the 2.3M units here would take about 5 minutes (release builds are
// hardly faster) and the suite would visibly hang. Linear decoding takes well under a second. A
// time bound would either fail on a loaded machine or have to be too loose to mean anything.

/// One unit of input per escape form, its raw-text neighbour and a surrogate pair, with what it decodes to.
private let unit = (
    json: #"a\"b\\c\/\n\t\b\f\r\u00e9\u20AC\ud83d\ude00Zoë 😀"#,
    text: "a\"b\\c/\n\t\u{08}\u{0C}\r\u{E9}\u{20AC}\u{1F600}Zoë 😀"
)

/// The JSON string literal holding `count` units, and the string it means.
private func escapeHeavy(units count: Int) -> (json: [UInt8], text: [UInt8]) {
    let json = "\"" + String(repeating: unit.json, count: count) + "\""
    return (Array(json.utf8), Array(String(repeating: unit.text, count: count).utf8))
}

private let eightMiB = 8 << 20
private let twoMiB = 2 << 20

@Test func eightMebibytesOfMixedEscapesDecodeExactly() throws {
    let count = eightMiB / unit.json.utf8.count + 1
    let (json, text) = escapeHeavy(units: count)
    #expect(json.count > eightMiB)
    let value = try JSONParser().parse(json)
    #expect(value.stringValue.map { Array($0.utf8) } == text)
}

@Test func eightMebibytesOfQuoteEscapesDecodeExactly() throws {
    let count = eightMiB / 2
    let json = Array(("[\"" + String(repeating: #"\""#, count: count) + "\"]").utf8)
    let value = try JSONParser().parse(json)
    #expect(value.arrayValue?.first?.stringValue.map { Array($0.utf8) } == Array(repeating: 0x22, count: count))
}

@Test func anEscapeHeavyMemberNameIsDecodedToo() throws {
    let (json, text) = escapeHeavy(units: eightMiB / 4 / unit.json.utf8.count)
    let document = Array("{".utf8) + json + Array(#": 1, "pass\u0077ord": "x"}"#.utf8)
    let members = try #require(try JSONParser().parse(document).objectValue?.members)
    #expect(members.map { Array($0.key.utf8) } == [text, Array("password".utf8)])
}

@Test func errorsAfterALongEscapeHeavyRunStillNameTheirColumn() throws {
    let (json, _) = escapeHeavy(units: 10_000)
    let bad = json.dropLast() + Array(#"\x""#.utf8)
    let error = try #require(throws: JSONParseError.self) { try JSONParser().parse(Array(bad)) }
    #expect(error.reason == "invalid escape '\\character 'x''")
    #expect((error.line, error.column, error.offset) == (1, json.count + 1, json.count))
}

@Test func eightMebibytesOfControlBytesAreEscapedForATerminal() {
    let bytes = Array(String(repeating: "a\u{1B}", count: eightMiB / 2).utf8)
    let shown = TerminalText.escape(bytes: bytes)
    #expect(shown == String(repeating: "a\\x1b", count: eightMiB / 2))
    // Two-byte and three-byte controls, 2 MiB of them: the old code took minutes for a tenth of that.
    let text = String(repeating: "b\u{9B}\u{202E}", count: twoMiB / 6)
    #expect(TerminalText.escape(text) == String(repeating: "b\\u{9b}\\u{202e}", count: twoMiB / 6))
}

@Test func theWriterEscapesMebibytesOfControlsAndReadsThemBack() throws {
    let text = String(repeating: "a\"\u{1B}\u{202E}\\é", count: twoMiB / 8)
    let json = JSONWriter().bytes(.string(text))
    #expect(json == Array(("\"" + String(repeating: #"a\"\u001b\u202e\\é"#, count: twoMiB / 8) + "\"").utf8))
    #expect(Array(try JSONParser().parse(json).stringValue?.utf8 ?? "".utf8) == Array(text.utf8))
}
