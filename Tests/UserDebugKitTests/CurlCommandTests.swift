import Testing

@testable import UserDebugKit

/// The curl command writer and the curl trace reader, as pure functions.
@Suite struct CurlCommandTests {
    @Test(arguments: [
        ("plain", "'plain'"),
        ("", "''"),
        ("it's", #"'it'\''s'"#),
        ("''", #"''\'''\'''"#),
        (#"$HOME `id` \ " !"#, #"'$HOME `id` \ " !'"#),
        ("a\nb\tc", "'a\nb\tc'"),
    ])
    func wordsAreSingleQuotedWithQuotesEscapedAsPOSIXWants(_ text: String, _ expected: String) {
        #expect(CurlCommand.quoted(text) == expected)
    }

    @Test func headersBodyAndMethodAreWrittenAsCurlNeedsThem() throws {
        let request = BackendRequest(
            method: "PUT", url: "https://x/a?b[]=1",
            headers: [
                HTTPHeader(name: "Host", value: "x"), HTTPHeader(name: ":authority", value: "x"),
                HTTPHeader(name: "X-Empty", value: ""), HTTPHeader(name: "X-Q", value: "it's"),
            ], body: Array("@file".utf8))
        let command = try CurlCommand(multiline: false).command(for: request)
        #expect(
            command
                == #"curl -X 'PUT' -g 'https://x/a?b[]=1' -H 'X-Empty;' -H 'X-Q: it'\''s' -H 'Content-Type:' --data-raw '@file'"#
        )
    }

    @Test func aBinaryBodyNeedsAFile() throws {
        let request = BackendRequest(
            method: "POST", url: "https://x/", headers: [HTTPHeader(name: "Content-Type", value: "a/b")], body: [0, 1])
        #expect(throws: CurlCommandError.binaryBodyNeedsFile) { try CurlCommand().command(for: request) }
        let command = try CurlCommand(binaryBodyPath: "/tmp/it's.bin", multiline: false).command(for: request)
        #expect(command.hasSuffix(#"--data-binary '@/tmp/it'\''s.bin'"#))
        #expect(
            CurlCommand.needsFile(Array("text\0".utf8)) && CurlCommand.needsFile([0xFF])
                && !CurlCommand.needsFile(Array("ë".utf8)))
    }

    @Test func noControlCharacterButNewlineAndTabIsWrittenIntoTheCommand() throws {
        #expect(!CurlCommand.needsFile(Array("a\nb\tc".utf8)))
        for body in ["a\u{3}b", "a\rb", "a\u{1B}[2J", "a\u{7F}", "a\u{9B}1m"] {
            #expect(CurlCommand.needsFile(Array(body.utf8)), "\(body.unicodeScalars.map(\.value))")
        }
        let url = BackendRequest(method: "GET", url: "https://x/a\u{3}b\nc")
        #expect(try CurlCommand(multiline: false).command(for: url) == "curl 'https://x/a%03b%0Ac'")
        let header = BackendRequest(
            method: "GET", url: "https://x/", headers: [HTTPHeader(name: "X-A", value: "v\r\nX-Injected: yes")])
        #expect(throws: CurlCommandError.controlCharacter(in: "header X-A")) {
            try CurlCommand().command(for: header)
        }
    }

    @Test func multilineCommandsBreakBeforeEachOption() throws {
        let request = BackendRequest(method: "GET", url: "https://x/", headers: [HTTPHeader(name: "A", value: "1")])
        #expect(try CurlCommand().command(for: request) == "curl 'https://x/' \\\n  -H 'A: 1'")
    }

    static let trace = """
        01:31:21.940665 == Info:   Trying 127.0.0.1:40669...
        01:31:21.941490 == Info: Connected to 127.0.0.1 (127.0.0.1) port 40669 (#0)
        01:31:21.941554 => Send header, 40 bytes (0x28)
        0000: 50 4f 53 54 20 2f 63 20 48 54 54 50 2f 31 2e 31 POST /c HTTP/1.1
        0010: 0d 0a 48 6f 73 74 3a 20 78 3a 31 0d 0a 41 3a 20 ..Host: x:1..A: 
        0020: 62 0d 0a 0d 0a                                  b....
        01:31:21.941583 => Send data, 2 bytes (0x2)
        0000: 00 ff                                           ..
        01:31:21.943461 <= Recv header, 17 bytes (0x11)
        0000: 48 54 54 50 2f 31 2e 31 20 32 30 30 20 4f 4b 0d HTTP/1.1 200 OK.
        0010: 0a                                              .
        01:31:21.943524 <= Recv header, 28 bytes (0x1c)
        0000: 54 72 61 6e 73 66 65 72 2d 45 6e 63 6f 64 69 6e Transfer-Encodin
        0010: 67 3a 20 63 68 75 6e 6b 65 64 0d 0a             g: chunked..
        01:31:21.943534 <= Recv data, 15 bytes (0xf)
        0000: 35 0d 0a 68 65 6c 6c 6f 0d 0a 30 0d 0a 0d 0a    5..hello..0....
        01:31:21.950000 == Info: Trying 127.0.0.1:9...
        01:31:21.950100 => Send header, 18 bytes (0x12)
        0000: 47 45 54 20 2f 20 48 54 54 50 2f 31 2e 31 0d 0a GET / HTTP/1.1..
        0010: 0d 0a                                           ..
        """

    @Test(arguments: [1, 7, 75, 4096])
    func aTraceReadInPiecesGivesTheSameExchanges(_ pieceSize: Int) {
        let bytes = Array(Self.trace.utf8)
        var reader = CurlTrace.Reader()
        for start in stride(from: 0, to: bytes.count, by: pieceSize) {
            reader.consume(bytes[start..<min(start + pieceSize, bytes.count)])
        }
        let pieces = reader.finish()
        let whole = CurlTrace(bytes)
        #expect(pieces.exchanges == whole.exchanges && pieces.unanswered == whole.unanswered)
        #expect(whole.exchanges.count == 1)
    }

    @Test func aTraceBecomesExchangesWithBytesAndTiming() throws {
        let trace = CurlTrace(Array(Self.trace.utf8))
        #expect(trace.exchanges.count == 1)
        #expect(trace.unanswered == 1)
        let exchange = try #require(trace.exchanges.first)
        #expect(exchange.request.method == "POST")
        #expect(exchange.request.url == "http://x:1/c")
        #expect(
            exchange.request.headers == [HTTPHeader(name: "Host", value: "x:1"), HTTPHeader(name: "A", value: "b")])
        #expect(exchange.request.body == [0, 0xFF])
        #expect(exchange.status == 200)
        #expect(exchange.body == Array("hello".utf8))
        #expect(exchange.duration > 0 && exchange.startOffset > 0)
    }
}
