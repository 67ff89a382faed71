// libFuzzer target: the response document (`response record`, `response import` of our shape and
// of HAR entries). Whatever the bytes, decoding returns or throws; a decoded exchange, written in
// our shape (`response list --json`), re-imports as is: it decodes, and writes the same again.
import UserDebugKit

/// Called by libFuzzer with one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSONParser().parse(bytes) else { return 0 }
    _ = try? ResponseDocument.decode(value)
    guard let responses = try? ResponseDocument.decodeAll(value) else { return 0 }
    for response in responses {
        let written = JSONWriter().bytes(ResponseDocument.encode(response))
        guard let reread = try? JSONParser().parse(written) else {
            preconditionFailure("an encoded response does not parse")
        }
        do {
            let rewritten = JSONWriter().bytes(ResponseDocument.encode(try ResponseDocument.decode(reread)))
            precondition(
                rewritten == written,
                "a response re-imported differs: \(String(decoding: written, as: UTF8.self)) "
                    + "then \(String(decoding: rewritten, as: UTF8.self))")
        } catch {
            preconditionFailure("an encoded response is refused: \(error)")
        }
    }
    return 0
}
