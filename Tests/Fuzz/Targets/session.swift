// libFuzzer target: the session document (`session set`, `session import`). Whatever the bytes,
// decoding returns or throws; a decoded session, written in our shape (`session show --json`),
// re-imports as is: it decodes, and writes the same document again.
import FoundationEssentials
import UserDebugKit

/// Called by libFuzzer with one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSONParser().parse(bytes) else { return 0 }
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    guard let session = try? SessionDocument.decode(value, defaultName: "default", now: now) else { return 0 }
    let written = JSONWriter().bytes(SessionDocument.encode(session, isCurrent: nil))
    guard let reread = try? JSONParser().parse(written) else {
        preconditionFailure("an encoded session does not parse")
    }
    do {
        let again = try SessionDocument.decode(reread, defaultName: "other", now: now)
        let rewritten = JSONWriter().bytes(SessionDocument.encode(again, isCurrent: nil))
        precondition(
            rewritten == written,
            "a session re-imported differs: \(String(decoding: written, as: UTF8.self)) "
                + "then \(String(decoding: rewritten, as: UTF8.self))")
    } catch {
        preconditionFailure("an encoded session is refused: \(error)")
    }
    return 0
}
