import FoundationEssentials
import Testing

@testable import UserDebugKit

/// Content-Encoding decoding over zlib and libbrotli, and what redaction makes of the result.
///
/// The fixtures were made once with Python from the text in `text`:
/// `gzip.compress(T, mtime=0)`, `zlib.compress(T)`, raw deflate (`zlib.compressobj(wbits=-15)`),
/// `brotli.compress(T)` (Debian's python3-brotli, over libbrotli), and `brotli.compress(gzip…)`.
@Suite struct ContentEncodingTests {
    static let text = #"{"access_token":"unit-secret-42","user":"usr_1"}"#
    static let fixtures: [(codings: [String], base64: String)] = [
        (["gzip"], "H4sIAAAAAAACA6tWSkxOTi0uji/Jz07NU7JSKs3LLNEtTk0uSi3RNTFS0lEqLU4tAokXF8UbKtUCAG9iU9gwAAAA"),
        (["x-gzip"], "H4sIAAAAAAACA6tWSkxOTi0uji/Jz07NU7JSKs3LLNEtTk0uSi3RNTFS0lEqLU4tAokXF8UbKtUCAG9iU9gwAAAA"),
        (["deflate"], "eJyrVkpMTk4tLo4vyc9OzVOyUirNyyzRLU5NLkot0TUxUtJRKi1OLQKJFxfFGyrVAgCgXRBK"),
        (["deflate"], "q1ZKTE5OLS6OL8nPTs1TslIqzcss0S1OTS5KLdE1MVLSUSotTi0CiRcXxRsq1QIA"),
        (["br"], "ixeAeyJhY2Nlc3NfdG9rZW4iOiJ1bml0LXNlY3JldC00MiIsInVzZXIiOiJ1c3JfMSJ9Aw=="),
        (
            ["gzip", "br"],
            "iyCAH4sIAAAAAAACA6tWSkxOTi0uji/Jz07NU7JSKs3LLNEtTk0uSi3RNTFS0lEqLU4tAokXF8UbKtUCAG9iU9gwAAAAAw=="
        ),
    ]
    /// `gzip.compress(b"a" * 200_000, mtime=0)` and `brotli.compress(b"a" * 200_000)`.
    static let bigGzip =
        "H4sIAAAAAAACA+3BMQEAAADCoKzrX8IM/kABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAK8Bm1Np"
        + "4EANAwA="
    static let bigBrotli = "Wz8Ng18iLB4LBPIJBgA="

    static func bytes(_ base64: String) throws -> [UInt8] {
        Array(try #require(Data(base64Encoded: base64)))
    }

    @Test func everySupportedCodingAndAStackOfThemDecodesToTheText() throws {
        for fixture in Self.fixtures {
            let decoded = try ContentEncoding.decode(try Self.bytes(fixture.base64), codings: fixture.codings)
            #expect(String(decoding: decoded, as: UTF8.self) == Self.text, "\(fixture.codings)")
        }
        let headers = [
            HTTPHeader(name: "content-encoding", value: "gzip"),
            HTTPHeader(name: "Content-Encoding", value: " BR ,identity"),
        ]
        #expect(ContentEncoding.codings(of: headers) == ["gzip", "BR"])
    }

    @Test func concatenatedGzipMembersAreOneBody() throws {
        let twoMembers = try Self.bytes("H4sIAAAAAAACA8tIzcnJVwAA9vmB7QYAAAAfiwgAAAAAAAIDK88vykkBAEMRdzoFAAAA")
        #expect(try ContentEncoding.decode(twoMembers, codings: ["gzip"]) == Array("hello world".utf8))
    }

    @Test func whatCannotBeDecodedSaysWhichCodingAndWhy() throws {
        let gzip = try Self.bytes(Self.fixtures[0].base64)
        let brotli = try Self.bytes(Self.fixtures[4].base64)
        let cases: [([UInt8], [String], ContentEncoding.Failure)] = [
            (gzip, ["zstd"], .unsupported("zstd")),
            (gzip, ["gzip", "compress"], .unsupported("compress")),
            (Array(gzip.dropLast(9)), ["gzip"], .corrupt("gzip")),
            (gzip + Array("trailing".utf8), ["gzip"], .corrupt("gzip")),
            (Array(brotli.dropLast(3)), ["br"], .corrupt("br")),
            (brotli + [0], ["br"], .corrupt("br")),
            (Array(Self.text.utf8), ["gzip"], .corrupt("gzip")),
            (gzip, ["br", "gzip"], .corrupt("br")),
        ]
        for (body, codings, failure) in cases {
            #expect(throws: failure) { try ContentEncoding.decode(body, codings: codings) }
        }
    }

    @Test func decodingStopsAtTheLimit() throws {
        for (coding, base64) in [("gzip", Self.bigGzip), ("br", Self.bigBrotli)] {
            let body = try Self.bytes(base64)
            #expect(throws: ContentEncoding.Failure.tooLarge(coding)) {
                try ContentEncoding.decode(body, codings: [coding], limit: 100_000)
            }
            #expect(try ContentEncoding.decode(body, codings: [coding], limit: 200_000).count == 200_000)
        }
    }

    @Test func theRedactorReadsTheDecodedBodyAndDropsTheCoding() throws {
        let headers = [
            HTTPHeader(name: "Content-Type", value: "application/json"),
            HTTPHeader(name: "Content-Encoding", value: "gzip, br"), HTTPHeader(name: "Content-Length", value: "70"),
        ]
        let (body, shownHeaders) = Redactor().redactBody(try Self.bytes(Self.fixtures[5].base64), headers: headers)
        #expect(String(decoding: body, as: UTF8.self) == #"{"access_token":"[redacted]","user":"usr_1"}"#)
        #expect(
            shownHeaders == [
                HTTPHeader(name: "Content-Type", value: "application/json"),
                HTTPHeader(name: "Content-Length", value: String(Self.text.utf8.count)),
            ])
    }

    @Test func aBodyRedactionCannotReadIsAMarkerThatSaysWhatItIs() throws {
        let gzip = try Self.bytes(Self.fixtures[0].base64)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 1226)
        let secret = "tok-0123456789"
        let cases: [([UInt8], [HTTPHeader], String)] = [
            (gzip, [HTTPHeader(name: "Content-Encoding", value: "zstd")], "66 bytes, zstd-encoded"),
            (
                Array(gzip.prefix(40)), [HTTPHeader(name: "Content-Encoding", value: "gzip")],
                "40 bytes, gzip-encoded (corrupt)"
            ),
            (
                png, [HTTPHeader(name: "Content-Type", value: "image/png; q=\u{1B}]52")],
                "1,234 bytes, binary (image/png)"
            ),
            ([0, 1], [], "2 bytes, binary"),
            // A name from a hostile header is shown only when it is a plain token, and a known
            // secret in it is hidden.
            (gzip, [HTTPHeader(name: "Content-Encoding", value: "\u{1B}[2J\(secret)")], "66 bytes, unknown-encoded"),
            (gzip, [HTTPHeader(name: "Content-Encoding", value: secret)], "66 bytes, [redacted]-encoded"),
            ([0], [HTTPHeader(name: "Content-Type", value: "a/b/\(secret)")], "1 byte, binary"),
        ]
        for (body, headers, summary) in cases {
            let (shown, shownHeaders) = Redactor(knownSecrets: [secret]).redactBody(body, headers: headers)
            #expect(String(decoding: shown, as: UTF8.self) == "[body: \(summary), shown with --reveal]")
            #expect(ContentEncoding.codings(of: shownHeaders).isEmpty)
        }
        #expect(BodyContent.grouped(1_234_567) == "1,234,567" && BodyContent.grouped(999) == "999")
    }

    @Test func aHARContentThatIsAlreadyDecodedLosesTheHeaderThatNoLongerDescribesIt() throws {
        let gzip = try Self.bytes(Self.fixtures[0].base64)
        let headers = [HTTPHeader(name: "Content-Encoding", value: "gzip")]
        #expect(ContentEncoding.headers(forBodyThatMayBeDecoded: gzip, headers: headers) == headers)
        #expect(ContentEncoding.headers(forBodyThatMayBeDecoded: Array(Self.text.utf8), headers: headers).isEmpty)
        let zstd = [HTTPHeader(name: "Content-Encoding", value: "zstd")]
        #expect(ContentEncoding.headers(forBodyThatMayBeDecoded: Array(Self.text.utf8), headers: zstd) == zstd)
    }

    @Test func textUnderAGzipHeaderWasDecodedByWhoeverRecordedItAndIsRedactedAsText() throws {
        let headers = [HTTPHeader(name: "Content-Encoding", value: "gzip")]
        let (body, shownHeaders) = Redactor().redactBody(Array(Self.text.utf8), headers: headers)
        #expect(String(decoding: body, as: UTF8.self) == #"{"access_token":"[redacted]","user":"usr_1"}"#)
        #expect(shownHeaders.isEmpty)
        // Under a coding nobody here knows, the same text could be anything: not shown.
        let unknown = [HTTPHeader(name: "Content-Encoding", value: "x-rot13")]
        #expect(Redactor().redactBody(Array(Self.text.utf8), headers: unknown).body.starts(with: Array("[body: ".utf8)))
    }

    @Test func revealedOutputIsDecodedTooUnlessItCannotBe() throws {
        let gzip = try Self.bytes(Self.fixtures[0].base64)
        let response = BackendResponse(
            request: BackendRequest(method: "GET", url: "https://x/"), status: 200,
            headers: [HTTPHeader(name: "Content-Encoding", value: "gzip")], body: gzip)
        #expect(response.decodingBodies().body == Array(Self.text.utf8))
        #expect(response.decodingBodies().headers.isEmpty)
        var unknown = response
        unknown.headers = [HTTPHeader(name: "Content-Encoding", value: "zstd")]
        #expect(unknown.decodingBodies() == unknown)
    }
}
