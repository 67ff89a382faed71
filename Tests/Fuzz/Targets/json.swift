// libFuzzer target: the JSON parser (Scripts/fuzz.sh builds it; not part of any shipped binary).
// Whatever the bytes, parsing returns or throws; what it returns is written and read back unchanged,
// and the source map and the comment-allowing parser agree with the plain parse.
import UserDebugKit

/// Called by libFuzzer with one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let plain = try? JSONParser().parse(bytes)
    let mapped = try? JSONParser().parseWithSourceMap(bytes)
    precondition(plain == mapped?.value, "parseWithSourceMap disagrees with parse")
    let commented = try? JSONParser(allowsComments: true).parse(bytes)
    if let plain {
        precondition(commented == plain, "a document without comments parses differently with them allowed")
    }
    _ = try? JSONParser(maxDepth: 4).parse(bytes)
    guard let plain else { return 0 }
    for writer in [JSONWriter(), JSONWriter(keyOrder: .sorted, indent: 2)] {
        let again = try? JSONParser().parse(writer.bytes(plain))
        precondition(again != nil, "the writer's output does not parse")
        if case .given = writer.keyOrder { precondition(again == plain, "a written document reads back different") }
    }
    return 0
}
