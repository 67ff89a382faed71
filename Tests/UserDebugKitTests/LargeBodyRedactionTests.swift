import FoundationEssentials
import Testing

@testable import UserDebugKit

/// Issue 13: `Redactor.writeRedactedBody` (a JSON body redacted in its own buffer, placeholders
/// put in as it is written) writes exactly what `redactBody(_:headers:)` returns, for every body
/// of the redaction tests, the fuzz seeds and generated ones, in pieces of every size.
@Suite struct LargeBodyRedactionTests {
    static let token = RedactionLeakTests.token
    static let redactor = Redactor(knownSecrets: [token])
    static let chunkSizes = [1, 3, 7, 64, 1 << 20]

    /// What `writeRedactedBody` wrote, joined, and what it reported.
    static func written(_ body: [UInt8], headers: [HTTPHeader], chunkSize: Int) throws -> (
        bytes: [UInt8], report: Redactor.WrittenBody
    ) {
        var buffer = body
        var out: [UInt8] = []
        let report = try redactor.writeRedactedBody(&buffer, headers: headers, chunkSize: chunkSize) { chunk in
            #expect(chunk.count <= chunkSize)
            out += chunk
        }
        return (out, report)
    }

    /// Checks one body against the whole-body redactor in every piece size; whether it was
    /// redacted in place.
    @discardableResult
    static func check(_ body: [UInt8], contentType: String? = "application/json", _ name: String) throws -> Bool {
        let headers = contentType.map { [HTTPHeader(name: "Content-Type", value: $0)] } ?? []
        let expected = redactor.redactBody(body, headers: headers).body
        var inPlace = false
        for size in chunkSizes {
            let (bytes, report) = try written(body, headers: headers, chunkSize: size)
            #expect(bytes == expected, "\(name), pieces of \(size)")
            #expect(report.count == expected.count && report.last == expected.last, "\(name)")
            #expect(report.isText == (String(validating: expected, as: UTF8.self) != nil), "\(name)")
            inPlace = report.inPlace
        }
        return inPlace
    }

    @Test func everyBodyOfTheLeakTestsIsWrittenAsTheWholeRedactorReturnsIt() throws {
        for body in RedactionLeakTests.bodies {
            try Self.check(Array(body.body.utf8), contentType: body.contentType, body.name)
        }
    }

    @Test func everyFuzzSeedIsWrittenAsTheWholeRedactorReturnsIt() throws {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz")
        var seen = 0
        for kind in ["json", "response", "session", "har", "config"] {
            let directory = fuzz.appendingPathComponent(kind)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() {
                let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
                try Self.check(bytes, "\(kind)/\(name)")
                try Self.check(bytes, contentType: nil, "\(kind)/\(name) untyped")
                seen += 1
            }
        }
        #expect(seen >= 10)
    }

    /// JSON records with secret members (some shorter than the placeholder, so the body grows in
    /// places and shrinks in others), the token, encoded forms of it and a JWT.
    static func records(_ count: Int, extra: (Int) -> String = { _ in "" }) -> [UInt8] {
        let jwt = Encodings.jwt(#"{"sub":"usr_1"}"#)
        var text = "["
        for index in 0..<count {
            if index > 0 { text += ",\n" }
            text += #"{"id":\#(index),"name":"user \#(index)","pin":\#(index % 10),"token":"tok_\#(index)abcdef","#
            text += #""note":"\#(extra(index))","api_key":"k","obj":{"password":[1,{"a":"b"}]},"e":"é😀"}"#
            if index % 7 == 3 { text += #",{"echo":"\#(token)","jwt":"\#(jwt)","esc":"Tok\/EN+canary"}"# }
        }
        return Array((text + "]").utf8)
    }

    @Test func generatedJSONBodiesAreRedactedInPlaceExactly() throws {
        #expect(try Self.check(Self.records(200), "records"))
        #expect(try Self.check(Self.byteOrderMark + Self.records(20), "records after a BOM"))
        #expect(try Self.check(Array(#"{"token":"ab"}"#.utf8), "one short secret (grows)"))
        #expect(try Self.check(Array(#"{"variables":"{\"password\":\"hunter22\"}","token":"x"}"#.utf8), "embedded"))
        #expect(try Self.check(Array("[]".utf8), "empty array"))
        // Not JSON, or not text: the whole path, still the same bytes.
        #expect(try !Self.check(Array("token=abc&x=1".utf8), contentType: "application/x-www-form-urlencoded", "form"))
        #expect(try !Self.check(Array("a: 1\ntoken: \(Self.token)\n".utf8), contentType: "text/plain", "lines"))
        #expect(try !Self.check([0, 1, 2, 0xFF], contentType: nil, "binary"))
        #expect(try !Self.check([], "empty"))
    }

    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    @Test func theTokenIsFoundAtEveryOffsetWhateverThePieceSize() throws {
        // The known secret (and its JSON-escaped form) at every offset from a piece boundary.
        for offset in 0..<24 {
            let pad = String(repeating: "x", count: offset)
            let body = #"{"a":"\#(pad)\#(Self.token)","b":"\#(pad)Tok\/EN+canary-5e1f=Zq"}"#
            try Self.check(Array(body.utf8), "offset \(offset)")
        }
    }

    @Test func splicingInPlaceEqualsBuildingANewArray() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let count = Int.random(in: 0..<80, using: &generator)
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &+ round) }
            var replacements: [(Range<Int>, [UInt8])] = []
            var position = 0
            while position < count, Bool.random(using: &generator) {
                let start = Int.random(in: position...count, using: &generator)
                let end = Int.random(in: start...min(count, start + 20), using: &generator)
                let replacement = [UInt8](repeating: 0xEE, count: Int.random(in: 0..<20, using: &generator))
                replacements.append((start..<end, replacement))
                position = end
                if position == count { break }
            }
            var expected: [UInt8] = []
            var copied = 0
            for (span, replacement) in replacements {
                expected += bytes[copied..<span.lowerBound] + replacement
                copied = span.upperBound
            }
            expected += bytes[copied...]
            var spliced = bytes
            Redactor.splice(replacements, into: &spliced)
            #expect(spliced == expected, "round \(round): \(replacements.map(\.0))")
        }
    }

    @Test func aWriteThatFailsStopsTheRedactionWithItsError() {
        struct Closed: Error {}
        var body = Self.records(50)
        #expect(throws: Closed.self) {
            try Self.redactor.writeRedactedBody(&body, headers: [], chunkSize: 100) { _ in throw Closed() }
        }
    }
}
