import Foundation
import Testing
import UserDebugKit
import X11Clipboard

@Suite("Interop with xclip, xsel and Tk")
struct InteropTests {
    @Test(arguments: Sample.all)
    func xclipReadsWhatWeOwn(_ sample: Sample) throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(bytes: sample.bytes), options: CopyOptions())
            let out = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment)
            #expect(out.status == 0)
            #expect(out.bytes == sample.bytes)
        }
    }

    @Test(arguments: Sample.all)
    func xselReadsWhatWeOwn(_ sample: Sample) throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(bytes: sample.bytes), options: CopyOptions())
            let out = try Peer.read(["xsel", "-ob"], environment: x.environment)
            #expect(out.status == 0)
            #expect(out.bytes == sample.bytes)
        }
    }

    @Test(arguments: Sample.all)
    func weReadWhatXclipOwns(_ sample: Sample) throws {
        try withXvfb { x in
            try Peer.own(["xclip", "-i", "-selection", "clipboard"], input: sample.bytes, environment: x.environment)
            let bytes = try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 5)
            #expect(bytes == sample.bytes)
        }
    }

    /// xsel stores its input as a C string, so a NUL-containing sample is not xsel's to own.
    @Test(arguments: Sample.all.filter { !$0.bytes.contains(0) })
    func weReadWhatXselOwns(_ sample: Sample) throws {
        try withXvfb { x in
            try Peer.own(["xsel", "-ib"], input: sample.bytes, environment: x.environment)
            let bytes = try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 5)
            #expect(bytes == sample.bytes)
        }
    }

    @Test func tkReadsSixteenMebibytesFromUs() throws {
        try withXvfb { x in
            let sample = Sample.sixteenMiB
            try x.clipboard.copy(Payload(bytes: sample.bytes), options: CopyOptions())
            let out = try Peer.read([Peer.python, "-c", Peer.tkRead], environment: x.environment, limit: 120)
            #expect(out.status == 0)
            #expect(out.bytes.count == sample.bytes.count)
            #expect(out.bytes == sample.bytes)
        }
    }

    @Test func xclipReadsSixtyFourMebibytesFromUs() throws {
        try withXvfb { x in
            let bytes = Sample.pattern(64 << 20)
            try x.clipboard.copy(Payload(bytes: bytes), options: CopyOptions())
            let out = try Peer.read(["xclip", "-o", "-selection", "clipboard"], environment: x.environment, limit: 120)
            #expect(out.status == 0)
            #expect(out.bytes == bytes)
        }
    }

    @Test func primaryIsItsOwnSelection() throws {
        try withXvfb { x in
            try x.clipboard.copy(Payload(text: "primary text"), options: CopyOptions(selection: .primary))
            let out = try Peer.read(["xclip", "-o", "-selection", "primary"], environment: x.environment)
            #expect(out.bytes == Array("primary text".utf8))
            #expect(throws: ClipboardError.self) {
                try x.clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2)
            }
        }
    }
}
