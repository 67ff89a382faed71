// libFuzzer target: the curl trace parser (`userdebug capture`, curl --trace-ascii … files).
// Whatever the bytes, parsing never traps, and reading the trace in pieces (as the capture reads
// the file) gives what reading it whole gives, wherever the pieces are cut.
import UserDebugKit

/// Called by libFuzzer with one input: a byte choosing where the pieces are cut, then the trace.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard size > 0, let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let pieceSize = Int(input[0]) + 1
    let trace = Array(input.dropFirst())
    let whole = CurlTrace(trace)
    var reader = CurlTrace.Reader()
    var start = 0
    while start < trace.count {
        let end = min(start + pieceSize, trace.count)
        reader.consume(trace[start..<end])
        start = end
    }
    let pieces = reader.finish()
    precondition(
        pieces.exchanges == whole.exchanges && pieces.unanswered == whole.unanswered,
        "a trace read in pieces of \(pieceSize) bytes differs from the trace read whole")
    return 0
}
