import Testing
import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The defaults of the `Clipboard` seam, for a backend that implements only `copy` and `paste`:
/// `serve` copies and names no process, nothing is handed to a resident owner, it is not
/// XWayland, and the streaming paste writes exactly what `paste` reads.
@Suite struct ClipboardSeamDefaultsTests {
    /// A backend with only the two required calls: a fixed selection, and copies counted.
    final class Minimal: Clipboard, @unchecked Sendable {
        var copies = 0
        let content: [UInt8]
        init(content: [UInt8]) { self.content = content }
        func copy(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError) {
            copies += 1
        }
        func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8] {
            guard !content.isEmpty else { throw .noContent("empty") }
            return content
        }
    }

    @Test func serveCopiesAndNamesNoProcessAndNothingIsHanded() throws {
        let minimal = Minimal(content: [1])
        let seam: any Clipboard = minimal
        let payload = Payload(bytes: Array("x".utf8), kind: .text)
        #expect(try seam.serve(payload, to: .clipboard, options: CopyOptions()) == nil)
        #expect(minimal.copies == 1)
        #expect(!seam.handToResidentOwner(payload, to: .clipboard, options: CopyOptions()))
        #expect(minimal.copies == 1, "the hand-off must not copy")
        #expect(seam.isXWayland(timeout: 1) == nil)
        #expect(seam.xwayland(timeout: 1) == nil)
    }

    @Test func theStreamingPasteWritesWhatPasteReadsAndPassesItsFailureOn() throws {
        // Less than a pipe's buffer (64 KiB): written whole before it is read.
        let bytes: [UInt8] = [0, 1, 2, 0xFF, 0] + Array(repeating: 7, count: 40_000)
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let seam: any Clipboard = Minimal(content: bytes)
        let writer = ends[1]
        try seam.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 1, to: writer)
        close(writer)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            received += chunk[0..<n]
        }
        #expect(received == bytes)
        let empty: any Clipboard = Minimal(content: [])
        #expect(throws: ClipboardError.noContent("empty")) {
            try empty.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 1, to: ends[0])
        }
    }
}
