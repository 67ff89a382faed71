import UserDebugKit

// Benchmark driver (not shipped): fills a store fast, measures the library's recording rate, and
// parses a JSON file the way every command reads documents. Used by Scripts/bench.sh.
//   userdebug-bench record DB COUNT [BODY_BYTES]   one response per transaction; prints responses/s
//   userdebug-bench fill DB COUNT                  COUNT small responses in batches of 10,000
//   userdebug-bench parse FILE                     JSONParser over FILE (read whole, as commands do)
//   userdebug-bench body DB FILE                   one JSON response whose body is FILE (any size)
#if canImport(Glibc)
    import Glibc
#endif

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func fail(_ message: String) -> Never {
    let line = Array("userdebug-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// The whole file, read with plain read(2) so that what is timed beside it is the parser.
/// The store at `path`, without retention limits, with the session "bench" (made current the
/// first time).
func openBenchStore(_ path: String) throws -> SessionStore {
    let store = try SessionStore.open(path: path, mode: .readWrite)
    store.retention = RetentionPolicy(maxCount: nil, maxBytes: nil)
    if try store.session(named: "bench") == nil {
        try store.saveSession(
            Session(name: "bench", user: User(identifier: "usr_bench", name: "Bench")), makeCurrent: true)
    }
    return store
}

func readFile(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { fail("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { fail("cannot read \(path): \(String(cString: strerror(errno)))") }
        if count == 0 { return bytes }
        bytes += chunk[0..<count]
    }
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "parse" {
    let bytes = readFile(arguments[2])
    do {
        let value = try JSONParser().parse(bytes)
        let kind =
            switch value {
            case .string(let text): "a string of \(text.utf8.count) bytes"
            case .array(let elements): "an array of \(elements.count) elements"
            case .object(let object): "an object of \(object.members.count) members"
            default: "a scalar"
            }
        print("parsed \(bytes.count) bytes: \(kind)")
    } catch {
        fail("\(arguments[2]): \(error)")
    }
    exit(0)
}
if arguments.count == 4, arguments[1] == "body" {
    // A body larger than a response document may be (64 MiB): recorded through the library.
    do {
        let store = try openBenchStore(arguments[2])
        let body = readFile(arguments[3])
        let id = try store.record(
            BackendResponse(
                request: BackendRequest(method: "GET", url: "https://api.example.com/v1/export"), status: 200,
                headers: [HTTPHeader(name: "Content-Type", value: "application/json")], body: body),
            session: "bench")
        print("recorded response \(id) with a body of \(body.count) bytes")
    } catch {
        fail("\(error)")
    }
    exit(0)
}
guard arguments.count >= 4, let count = Int(arguments[3]) else {
    fail("usage: userdebug-bench record|fill DB COUNT [BODY_BYTES] | parse FILE")
}
let bodyBytes = arguments.count > 4 ? Int(arguments[4]) ?? 1024 : 1024
do {
    let store = try openBenchStore(arguments[2])
    func response(_ index: Int, body: [UInt8]) -> BackendResponse {
        BackendResponse(
            request: BackendRequest(
                method: "GET", url: "https://api.example.com/v1/items/\(index)",
                headers: [HTTPHeader(name: "Accept", value: "application/json")]),
            status: index % 50 == 0 ? 404 : 200,
            headers: [HTTPHeader(name: "Content-Type", value: "application/json")],
            body: body, durationMs: Double(index % 300), tags: index % 1000 == 0 ? ["login"] : [])
    }
    switch arguments[1] {
    case "record":
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: bodyBytes)
        let start = now()
        for index in 0..<count { try store.record(response(index, body: body), session: "bench") }
        let elapsed = now() - start
        print(
            "recorded \(count) responses of \(bodyBytes) bytes, one per transaction, in \(elapsed) s: \(Int(Double(count) / elapsed)) responses/s"
        )
    case "fill":
        let body = Array(#"{"ok":true}"#.utf8)
        var done = 0
        while done < count {
            let batch = (done..<min(done + 10_000, count)).map { response($0, body: body) }
            try store.record(batch, session: "bench")
            done += batch.count
        }
        print("filled \(done) responses")
    default:
        fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("\(error)")
}
