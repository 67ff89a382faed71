import TestSupport
import Testing

/// Payloads every interop test runs through, byte-compared.
struct Sample: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]

    var testDescription: String { name }

    static let ascii = Sample(name: "ASCII", bytes: Array("user-42 logged in".utf8))
    static let unicode = Sample(name: "Zoë 名前 🚀", bytes: Array("Zoë 名前 🚀".utf8))
    static let empty = Sample(name: "empty", bytes: [])
    static let nul = Sample(name: "NUL inside", bytes: Array("before".utf8) + [0, 0] + Array("after".utf8))
    static let quarterMiB = Sample(name: "262,144 bytes", bytes: pattern(262_144))
    static let sixteenMiB = Sample(name: "16 MiB", bytes: pattern(16 << 20))

    static let small: [Sample] = [ascii, unicode, empty, nul]
    static let all: [Sample] = small + [quarterMiB, sixteenMiB]

    /// Printable, non-repeating at chunk boundaries (so a lost or doubled chunk shows).
    static func pattern(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var x: UInt32 = 2_463_534_242
        for i in 0..<count {
            x ^= x << 13
            x ^= x >> 17
            x ^= x << 5
            out[i] = UInt8(ascii: "a") + UInt8(x % 26)
            if i % 64 == 63 { out[i] = UInt8(ascii: "\n") }
        }
        return out
    }
}

/// Byte equality that reports the sizes and the first difference instead of dumping megabytes.
func expectSameBytes(_ actual: [UInt8]?, _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    guard let actual else {
        Issue.record("no bytes read (expected \(expected.count))", sourceLocation: sourceLocation)
        return
    }
    if actual == expected { return }
    let firstDifference =
        zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actual.count, expected.count)
    Issue.record(
        "read \(actual.count) bytes, expected \(expected.count); first difference at offset \(firstDifference)",
        sourceLocation: sourceLocation)
}
