import Foundation
import TestSupport
import Testing
import UserDebugKit

@testable import X11Clipboard

@Suite("Interop with xclip, xsel and Tk", .processDeadline(600))
struct InteropTests {
    @Test(arguments: Sample.all)
    func xclipReadsWhatWeOwn(_ sample: Sample) throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(bytes: sample.bytes))
            let out = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment)
            #expect(out.status == 0)
            expectSameBytes(out.bytes, sample.bytes)
        }
    }

    /// xsel's reader stops at the first NUL (its bug, not ours: xclip gets every byte), so the
    /// NUL sample is xclip's to check.
    @Test(arguments: Sample.all.filter { !$0.bytes.contains(0) })
    func xselReadsWhatWeOwn(_ sample: Sample) throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(bytes: sample.bytes))
            let out = try Peer.read(["xsel", "-ob"], environment: x.environment)
            #expect(out.status == 0)
            expectSameBytes(out.bytes, sample.bytes)
        }
    }

    /// xclip and xsel return before they own the selection, so the first reads may still find
    /// no owner: `readOnceOwned` retries until someone answers.
    @Test(arguments: Sample.all)
    func weReadWhatXclipOwns(_ sample: Sample) throws {
        try withXvfb { x in
            try Peer.own(["xclip", "-i", "-selection", "clipboard"], input: sample.bytes, environment: x.environment)
            expectSameBytes(x.readOnceOwned(), sample.bytes)
        }
    }

    /// xsel keeps its input as a C string, so a NUL-containing sample is not xsel's to own; and
    /// with empty input it refuses every target (even `xclip -o` gets nothing).
    @Test(arguments: Sample.all.filter { !$0.bytes.contains(0) && !$0.bytes.isEmpty })
    func weReadWhatXselOwns(_ sample: Sample) throws {
        try withXvfb { x in
            // xsel looks the UTF8_STRING atom up only-if-exists: on a fresh server where no client
            // has interned it yet, xsel offers just STRING (filled with UTF-8, against ICCCM). On a
            // desktop some client always has; asking for it once here makes the server realistic.
            _ = try? x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 1)
            try Peer.own(["xsel", "-ib"], input: sample.bytes, environment: x.environment)
            let read = x.readOnceOwned(until: { $0 == sample.bytes })
            expectSameBytes(read, sample.bytes)
        }
    }

    @Test func tkReadsSixteenMebibytesFromUs() throws {
        try withXvfb { x in
            let sample = Sample.sixteenMiB
            try x.clipboard.copy(Payload(bytes: sample.bytes))
            let out = try Peer.read([Peer.python, "-c", Peer.tkRead], environment: x.environment, limit: 120)
            #expect(out.status == 0)
            #expect(out.bytes.count == sample.bytes.count)
            expectSameBytes(out.bytes, sample.bytes)
        }
    }

    /// 64 MiB goes by INCR in 168 chunks of at most 400,000 bytes; each reader gets every byte.
    @Test(arguments: [["xclip", "-o", "-selection", "clipboard"], ["xsel", "-ob"]])
    func peersReadSixtyFourMebibytesFromUs(_ reader: [String]) throws {
        try withXvfb { x in
            let bytes = Sample.pattern(64 << 20)
            try x.clipboard.copy(Payload(bytes: bytes))
            let out = try Peer.read(reader, environment: x.environment, limit: 120)
            #expect(out.status == 0)
            #expect(out.bytes.count == bytes.count)
            expectSameBytes(out.bytes, bytes)
        }
    }

    /// The other way round: xclip and xsel own 64 MiB (they send it by INCR in their own chunk
    /// sizes) and we read all of it.
    @Test(arguments: [["xclip", "-i", "-selection", "clipboard"], ["xsel", "-ib"]])
    func weReadSixtyFourMebibytesFromPeers(_ owner: [String]) throws {
        try withXvfb { x in
            let bytes = Sample.pattern(64 << 20)
            // see weReadWhatXselOwns
            _ = try? x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 1)
            try Peer.own(owner, input: bytes, environment: x.environment)
            let read = x.readOnceOwned(until: { $0.count == bytes.count })
            #expect(read?.count == bytes.count)
            expectSameBytes(read, bytes)
        }
    }

    /// xsel offers only STRING for ASCII text: a UTF8_STRING paste falls back to it.
    @Test func aUTF8PasteFallsBackToLatin1StringWhenThatIsAllTheOwnerOffers() throws {
        try withXvfb { x in
            try Peer.own(["xsel", "-ib"], input: Array("plain ascii".utf8), environment: x.environment)
            expectSameBytes(x.readOnceOwned(), Array("plain ascii".utf8))
        }
    }

    @Test func latin1IsConvertedToUTF8() {
        #expect(X11Clipboard.utf8(fromLatin1: [0x5A, 0x6F, 0xEB]) == Array("Zoë".utf8))
    }

    @Test func primaryIsItsOwnSelection() throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(text: "primary text"), to: .primary)
            let out = try Peer.read(["xclip", "-o", "-selection", "primary"], environment: x.environment)
            #expect(out.bytes == Array("primary text".utf8))
            #expect(throws: ClipboardError.self) {
                try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2)
            }
        }
    }
}
