// libFuzzer target: HAR import, whole (`HARImport`) and streamed (`HARStream`, what `response
// import` runs). Whatever the bytes, both return or throw; the streamed reader, fed the file in
// pieces cut anywhere, accepts what the whole-document import accepts, gives the same entries,
// and refuses what it refuses (see `agree`).
@testable import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// Called by libFuzzer with one input: a byte choosing where the pieces are cut, then the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard size > 0, let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let file = Array(input.dropFirst())
    let whole = readWhole(file)
    let streamed = readStreamed(file, pieceSize: Int(input[0]) + 1)
    precondition(agree(whole: whole, streamed: streamed), "streamed HAR import \(streamed), whole import \(whole)")
    return 0
}

/// What an import ended with, comparable across the two readers.
enum Outcome: Equatable {
    case imported(responses: [BackendResponse], skipped: [HARImport.Skipped])
    case syntax(JSONParseError)
    case refused(String)
}

/// The streamed import accepts exactly what the whole import accepts, with the same entries, and
/// refuses with the same syntax error; but it converts each entry as soon as it is read, so an entry
/// it refuses (a DocumentError, also exit 65, nothing recorded) may come before a syntax error
/// further on that the whole parse reports first.
func agree(whole: Outcome, streamed: Outcome) -> Bool {
    switch (whole, streamed) {
    case (.syntax, .refused), (.refused, .refused): return true
    default: return whole == streamed
    }
}

func readWhole(_ file: [UInt8]) -> Outcome {
    let value: JSONValue
    do {
        value = try JSONParser().parse(file)
    } catch {
        return .syntax(error)
    }
    do {
        let har = try HARImport(value)
        return .imported(responses: har.responses, skipped: har.skipped)
    } catch {
        return .refused("\(error)")
    }
}

/// The file through HARStream over a SOCK_SEQPACKET socket pair, so that each read returns
/// exactly one piece of `pieceSize` bytes.
func readStreamed(_ file: [UInt8], pieceSize: Int) -> Outcome {
    var pair: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
    defer { close(pair[0]) }
    var bufferSize: Int32 = 1 << 22
    setsockopt(pair[1], SOL_SOCKET, SO_SNDBUF, &bufferSize, 4)
    var start = 0
    while start < file.count {
        let end = min(start + pieceSize, file.count)
        let sent = file[start..<end].withUnsafeBytes { send(pair[1], $0.baseAddress, $0.count, 0) }
        precondition(sent == end - start, "the socket pair refused a piece")
        start = end
    }
    close(pair[1])
    var responses: [BackendResponse] = []
    var skipped: [HARImport.Skipped] = []
    do {
        _ = try HARStream.read(FileDescriptor(pair[0]), limit: 1 << 24) { _, entry in
            switch entry {
            case .response(let response, _): responses.append(response)
            case .skipped(let entry): skipped.append(entry)
            }
        }
    } catch let error as JSONParseError {
        return .syntax(error)
    } catch {
        return .refused("\(error)")
    }
    return .imported(responses: responses, skipped: skipped)
}
