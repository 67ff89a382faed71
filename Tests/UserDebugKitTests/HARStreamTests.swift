import Foundation
import Testing

@testable import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The streamed HAR import (`HARStream`) reads what the whole-document path reads, and refuses
/// what it refuses at the same line and column, wherever the file is cut or broken.
@Suite struct HARStreamTests {
    /// Entries on several lines and two on one line, a BOM, escapes, base64, a skipped entry,
    /// a scalar-free `pages` before and a member after the entries.
    static let sample =
        "\u{FEFF}" + #"""
            {"log": {"version": "1.2", "pages": [{"id": "p\"1"}], "creator": {"name": "t", "version": "1"},
              "entries": [
                {"startedDateTime": "2026-11-30T10:00:00Z", "time": 1,
                 "request": {"method": "GET", "url": "https://x/a?q=[{\"}]", "headers": [{"name": "a", "value": "\\"}]},
                 "response": {"status": 200, "content": {"mimeType": "text/plain", "text": "line\nnext ]}"}}},
                {"request": {"method": "POST", "url": "https://x/b"}, "response": {"status": 0}}, {"request": {"method": "PUT", "url": "https://x/c"},
                 "response": {"status": 201, "content": {"text": "AAEC/w==", "encoding": "base64"}}}
              ],
              "comment": "after"}}
            """#

    /// Runs the streamed reader over `bytes`: through a pipe (as `response import -` does) when
    /// the pipe holds them, else from a file.
    static func stream(_ bytes: [UInt8], limit: Int = .max, pieceSize: Int? = nil) throws -> (
        count: Int, entries: [HARImport.Entry]
    ) {
        let read: FileDescriptor
        if let pieceSize {
            // A SOCK_SEQPACKET pair: each read returns exactly one piece, as in the fuzz target.
            var pair: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
            var bufferSize: Int32 = 1 << 22
            setsockopt(pair[1], SOL_SOCKET, SO_SNDBUF, &bufferSize, 4)
            var start = 0
            while start < bytes.count {
                let end = min(start + pieceSize, bytes.count)
                let sent = bytes[start..<end].withUnsafeBytes { send(pair[1], $0.baseAddress, $0.count, 0) }
                #expect(sent == end - start)
                start = end
            }
            close(pair[1])
            read = FileDescriptor(pair[0])
        } else if bytes.count < 32 * 1024 {
            let (output, input) = try FileDescriptor.pipe()
            try input.writeAll(bytes)
            close(input.rawValue)
            read = output
        } else {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID()).har").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            read = FileDescriptor(open(path, O_RDONLY | O_CLOEXEC))
            unlink(path)
        }
        defer { close(read.rawValue) }
        var entries: [HARImport.Entry] = []
        let count = try HARStream.read(read, limit: limit) { index, entry in
            #expect(index == entries.count)
            entries.append(entry)
        }
        return (count, entries)
    }

    @Test func theStreamedEntriesAreTheWholeDocumentsEntries() throws {
        let bytes = Array(Self.sample.utf8)
        let whole = try HARImport(try JSONParser().parse(bytes))
        let (count, entries) = try Self.stream(bytes)
        #expect(count == 3 && whole.entryCount == 3)
        var responses: [BackendResponse] = []
        var skipped: [Int] = []
        for entry in entries {
            switch entry {
            case .response(let response, _): responses.append(response)
            case .skipped(let entry): skipped.append(entry.index)
            }
        }
        #expect(responses == whole.responses)
        #expect(responses.first?.body == Array("line\nnext ]}".utf8))
        #expect(responses.last?.body == [0, 1, 2, 0xFF])
        #expect(skipped == [1])
    }

    /// What the whole-document parser says about `bytes`, nil when it parses.
    static func wholeParseError(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONParser().parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// Cut anywhere, broken anywhere: the same message at the same line and column.
    @Test func everyCutAndBreakIsReportedWhereAWholeParseReportsIt() throws {
        let bytes = Array(Self.sample.utf8)
        var inputs: [[UInt8]] = (0..<bytes.count).map { Array(bytes[..<$0]) }
        for offset in bytes.indices {
            for replacement in "}],\"x".utf8 where bytes[offset] != replacement {
                var broken = bytes
                broken[offset] = replacement
                inputs.append(broken)
            }
        }
        var compared = 0
        for input in inputs {
            guard let expected = Self.wholeParseError(input) else { continue }
            compared += 1
            do {
                _ = try Self.stream(input)
                Issue.record("accepted: \(String(decoding: input, as: UTF8.self))")
            } catch let error as JSONParseError {
                #expect(error == expected, "\(String(decoding: input, as: UTF8.self))")
            } catch {
                Issue.record("\(error) instead of \(expected) for \(String(decoding: input, as: UTF8.self))")
            }
        }
        #expect(compared > bytes.count)
    }

    @Test func anEntryThatIsNotAnObjectIsNamedAndAFileThatIsNotHARIsReadWhole() throws {
        #expect(throws: DocumentError(path: "$.log.entries[1]", message: "expected an object, got a number")) {
            _ = try Self.stream(
                Array(
                    #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://x/"}, "response": {"status": 200}}, -1.5e3]}}"#
                        .utf8))
        }
        // A key spelled with an escape is still `log`: found by the whole-document fallback.
        let escaped = try Self.stream(
            Array(
                #"{"l\u006fg": {"entries": [{"request": {"method": "GET", "url": "https://x/"}, "response": {"status": 200}}]}}"#
                    .utf8))
        #expect(escaped.count == 1)
        #expect(throws: DocumentError.self) { _ = try Self.stream(Array(#"[{"log": {"entries": []}}]"#.utf8)) }
    }

    @Test func anInputPastTheLimitIsRefused() throws {
        #expect(throws: HARStreamError.tooLarge) { _ = try Self.stream(Array(Self.sample.utf8), limit: 100) }
    }

    /// Bodies of several MiB cross read chunks and element pieces, escapes included.
    @Test func largeBodiesAreReadWhole() throws {
        let body = String(repeating: #"ab\"c\\d\u00e9"#, count: 300_000)
        let entry =
            #"{"request": {"method": "GET", "url": "https://x/"}, "response": {"status": 200, "content": {"text": "\#(body)"}}}"#
        let (count, entries) = try Self.stream(Array(#"{"log": {"entries": [\#(entry),\#(entry)]}}"#.utf8))
        #expect(count == 2)
        let expected = Array(String(repeating: "ab\"c\\dé", count: 300_000).utf8)
        for entry in entries {
            guard case .response(let response, _) = entry else {
                Issue.record("skipped")
                continue
            }
            #expect(response.body == expected)
        }
    }

    @Test func base64IsDecodedStrictly() {
        #expect(Base64Decoding.decode("AAEC/w==") == [0, 1, 2, 0xFF])
        #expect(Base64Decoding.decode(" QU\r\nJD ") == Array("ABC".utf8))
        #expect(Base64Decoding.decode("") == [])
        for bad in ["QUJ", "QQ=A", "Q===", "=QUJ", "QU*D", "QQ==QQ=="] {
            #expect(Base64Decoding.decode(bad) == nil, "\(bad)")
        }
    }
}
