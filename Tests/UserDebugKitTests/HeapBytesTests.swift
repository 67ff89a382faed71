import Foundation
import Testing

@testable import UserDebugKit

/// The block `userdebug copy` reads its input into, and the UTF-8 checks that never copy it.
@Suite struct HeapBytesTests {
    /// A pipe whose writing end gets `bytes` from another thread, then closes.
    func pipe(_ bytes: [UInt8]) throws -> FileDescriptor {
        let (read, write) = try FileDescriptor.pipe()
        Thread.detachNewThread {
            try? write.writeAll(bytes)
            close(write.rawValue)
        }
        return read
    }

    @Test func aPipeIsReadWholeAcrossManyGrowths() throws {
        let bytes = (0..<3_000_001).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let fd = try pipe(bytes)
        defer { close(fd.rawValue) }
        let block = try HeapBytes.read(fd, limit: 1 << 30)
        #expect(block.count == bytes.count)
        #expect(block.bytes.elementsEqual(bytes))
        #expect(Payload(block: block, kind: .binary) == Payload(bytes: bytes, kind: .binary))
    }

    @Test func aRegularFileIsReadWholeAndCheckedForUTF8AcrossItsReads() throws {
        // 5 MiB and more (several 2 MiB units of the mapping); the 1-byte prefix makes 4-byte
        // characters straddle every 1 MiB read.
        let text = Array(("a" + String(repeating: "😀", count: 1_400_000)).utf8)
        for (bytes, valid) in [(text, true), (text + [0xFF], false), (Array(text.dropLast()), false)] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("heapbytes-\(UUID())").path
            defer { unlink(path) }
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let fd = open(path, O_RDONLY)
            try #require(fd >= 0)
            defer { close(fd) }
            let block = try HeapBytes.read(FileDescriptor(fd), limit: 1 << 30)
            #expect(block.count == bytes.count)
            #expect(block.bytes.elementsEqual(bytes))
            #expect(block.isValidUTF8 == valid)
        }
        let binary = try pipe([0x41, 0xC0, 0x80])
        defer { close(binary.rawValue) }
        #expect(try HeapBytes.read(binary, limit: 10).isValidUTF8 == false)
    }

    @Test func moreThanTheLimitIsTooLargeAndExactlyTheLimitIsNot() throws {
        let bytes = [UInt8](repeating: 0, count: 100_000)
        let over = try pipe(bytes)
        defer { close(over.rawValue) }
        #expect(throws: HeapBytes.ReadError.tooLarge) { try HeapBytes.read(over, limit: 99_999) }
        let exact = try pipe(bytes)
        defer { close(exact.rawValue) }
        #expect(try HeapBytes.read(exact, limit: 100_000).count == 100_000)
        let empty = try pipe([])
        defer { close(empty.rawValue) }
        #expect(try HeapBytes.read(empty, limit: 10).count == 0)
    }

    @Test func validationAgreesWithTheStandardLibrary() {
        let samples: [[UInt8]] = [
            Array("plain ascii text, longer than eight bytes".utf8), Array("Zoë 😀 €".utf8),
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xFF],
            Array("abcdefgh".utf8) + [0xE2, 0x82, 0xAC] + Array("ijklmnop".utf8), [0xF0, 0x9F, 0x98],
        ]
        for sample in samples {
            let expected = String(validating: sample, as: UTF8.self) != nil
            #expect(sample.withUnsafeBytes { isValidUTF8($0) } == expected, "\(sample)")
        }
    }

    @Test func aChunkedCheckFindsTheSameAnswerWhereverTheChunksAreCut() {
        let text = Array("a😀é€b".utf8)
        let broken = Array("a😀".utf8).dropLast() + Array("b".utf8)
        for (bytes, valid) in [(text, true), (Array(broken), false), (Array(text.dropLast(2)), false)] {
            for cut1 in 0...bytes.count {
                for cut2 in cut1...bytes.count {
                    var check = UTF8ChunkCheck()
                    for range in [0..<cut1, cut1..<cut2, cut2..<bytes.count] {
                        Array(bytes[range]).withUnsafeBytes { check.feed($0) }
                    }
                    #expect(check.isComplete == valid, "\(bytes) cut at \(cut1), \(cut2)")
                }
            }
        }
    }
}
