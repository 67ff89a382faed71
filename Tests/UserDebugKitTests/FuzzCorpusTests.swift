import Foundation
import Testing

@testable import UserDebugKit

/// The seeds of the fuzz targets (Tests/Fuzz/<target>/, see Scripts/fuzz.sh) and every input a
/// fuzzer once failed on, replayed in the normal suite without libFuzzer: each gives the answer
/// its target's property asks for.
@Suite struct FuzzCorpusTests {
    /// The files of `Tests/Fuzz/<target>/`.
    static func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)  // UserDebugKitTests/ThisFile.swift
        let directory = (parts + ["Fuzz", Substring(target)]).joined(separator: "/")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        return try names.map { name in
            (name, Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))))
        }
    }

    /// Whatever parses is written and reads back the same value.
    @Test func everyJSONInputParsesOrIsRefusedAndWhatParsesReadsBack() throws {
        let inputs = try Self.inputs("json")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            guard let value = try? JSONParser().parse(bytes) else { continue }
            #expect(try JSONParser().parse(JSONWriter().bytes(value)) == value, "\(name)")
        }
    }

    /// Every session and response seed decodes (they are real documents), and what we write of
    /// it re-imports as is: decoding our output and writing it again gives the same bytes (user
    /// fields come out sorted, times in milliseconds, so the first decode may differ from the input).
    @Test func everySessionAndResponseSeedReimportsAsWritten() throws {
        func session(_ bytes: [UInt8]) throws -> [UInt8] {
            let session = try SessionDocument.decode(JSONParser().parse(bytes), defaultName: "d")
            return JSONWriter().bytes(SessionDocument.encode(session, isCurrent: nil))
        }
        for (name, bytes) in try Self.inputs("session") where name.hasPrefix("seed-") {
            let written = try session(bytes)
            #expect(try session(written) == written, "\(name)")
        }
        for (name, bytes) in try Self.inputs("response") where name.hasPrefix("seed-") {
            let responses = try ResponseDocument.decodeAll(JSONParser().parse(bytes))
            #expect(!responses.isEmpty, "\(name)")
            for response in responses {
                let written = JSONWriter().bytes(ResponseDocument.encode(response))
                let again = try ResponseDocument.decode(JSONParser().parse(written))
                #expect(JSONWriter().bytes(ResponseDocument.encode(again)) == written, "\(name)")
            }
        }
    }

    /// The streamed HAR reader gives what the whole-document import gives (the first byte of a
    /// fuzz input chooses the pieces, so it is left out here).
    /// The inputs the long campaign (`Scripts/fuzz.sh --long`) failed on, with the target's own
    /// property: the HAR read in pieces of `input[0] + 1` bytes reports the syntax error the whole
    /// parse reports, and a curl trace with any time in it reads alike in pieces and whole.
    @Test func theLongCampaignsFindingsHoldTheirTargetsProperties() throws {
        for (name, input) in try Self.inputs("har") where name.hasPrefix("regression-long") {
            let file = Array(input.dropFirst())
            var wholeError: JSONParseError?
            do { _ = try JSONParser().parse(file) } catch { wholeError = error }
            var streamedError: JSONParseError?
            do {
                _ = try HARStreamTests.stream(file, pieceSize: Int(input[0]) + 1)
            } catch let error as JSONParseError {
                streamedError = error
            } catch {}
            #expect(
                wholeError != nil && wholeError == streamedError,
                "\(name): \(String(describing: wholeError)) vs \(String(describing: streamedError))")
        }
        for (name, input) in try Self.inputs("curltrace") where name.hasPrefix("regression-long") {
            let trace = Array(input.dropFirst())
            let whole = CurlTrace(trace)
            var reader = CurlTrace.Reader()
            var start = 0
            while start < trace.count {
                let end = min(start + Int(input[0]) + 1, trace.count)
                reader.consume(trace[start..<end])
                start = end
            }
            let pieces = reader.finish()
            #expect(
                pieces.exchanges == whole.exchanges && pieces.unanswered == whole.unanswered,
                "\(name): \(whole) vs \(pieces)")
            #expect(whole.exchanges.allSatisfy { $0.duration.isFinite && $0.startOffset.isFinite }, "\(name): \(whole)")
        }
    }

    @Test func everyHARInputStreamsAsItImportsWhole() throws {
        for (name, input) in try Self.inputs("har") {
            let file = Array(input.dropFirst())
            let whole = try? HARImport(JSONParser().parse(file))
            let streamed = try? HARStreamTests.stream(file)
            #expect((whole == nil) == (streamed == nil), "\(name)")
            #expect(whole?.entryCount == streamed?.count, "\(name)")
        }
    }
}
