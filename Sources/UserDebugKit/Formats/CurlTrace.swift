/// Reads what `curl --trace FILE --trace-time` wrote: every byte curl sent and received, as hex,
/// with the time of day of each event. `userdebug capture` adds those two options to a copy of
/// the user's arguments, so curl's own output is untouched, and turns the trace into exchanges.
///
/// One exchange per request curl sent: a redirect followed with `-L` and each of several URLs are
/// exchanges of their own. Interim `1xx` responses are dropped (the final response counts), a
/// chunked body is de-chunked, a compressed body is kept as received (with its
/// `Content-Encoding`), and a request that got no response (connection refused, timeout) has no
/// exchange. TLS traffic is read after decryption (`Send header`/`Recv data`), never the
/// `SSL data` records.
public struct CurlTrace: Sendable {
    /// One request and what came back for it.
    public struct Exchange: Sendable, Hashable {
        /// The request, its URL rebuilt from the scheme, the `Host` header and the target.
        public var request: BackendRequest
        /// The final status.
        public var status: Int
        /// The final response's headers.
        public var headers: [HTTPHeader]
        /// The response body as received (de-chunked).
        public var body: [UInt8]
        /// Seconds after the first traced event that the request was sent.
        public var startOffset: Double
        /// Seconds from the request being sent to the last byte received.
        public var duration: Double
    }

    /// The exchanges in the order curl made them.
    public var exchanges: [Exchange]
    /// Requests that got no response, for the report.
    public var unanswered: Int

    struct Pending {
        var requestHead: [UInt8] = []
        var requestBody: [UInt8] = []
        var responseHead: [UInt8] = []
        var responseBody: [UInt8] = []
        var tls = false
        var start: Double = 0
        var end: Double = 0
    }

    /// Parses a trace file's bytes. Lines it does not know are ignored (a newer curl may add some).
    public init(_ trace: [UInt8]) {
        var reader = Reader()
        reader.consume(trace[...])
        self = reader.finish()
    }

    init(exchanges: [Exchange], unanswered: Int) {
        self.exchanges = exchanges
        self.unanswered = unanswered
    }

    /// Reads a trace in pieces of any size, as they come from the file, so that only the
    /// decoded bytes are held: the trace itself is about five times larger than what went over
    /// the wire (16 bytes per 75-byte hex line), and reading it whole made a capture of a 100 MB
    /// body peak at 840 MB.
    public struct Reader: Sendable {
        private var pending: [Pending] = []
        private var current: Pending?
        private var tls = false
        private var firstTime: Double?
        private var target: Part?
        private var now: Double = 0
        /// The start of a line whose end has not come yet.
        private var partial: [UInt8] = []

        /// Which bytes of the current exchange a dump line belongs to.
        private enum Part { case requestHead, requestBody, responseHead, responseBody }

        /// A reader at the start of a trace.
        public init() {}

        /// Reads the next piece of the trace; a line may span pieces.
        public mutating func consume(_ piece: ArraySlice<UInt8>) {
            var start = piece.startIndex
            while let newline = piece[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if partial.isEmpty {
                    line(piece[start..<newline])
                } else {
                    partial += piece[start..<newline]
                    let whole = partial
                    partial.removeAll(keepingCapacity: true)
                    line(whole[...])
                }
                start = newline + 1
            }
            partial += piece[start...]
        }

        /// The exchanges of everything read.
        public mutating func finish() -> CurlTrace {
            if !partial.isEmpty {
                let rest = partial
                partial = []
                line(rest[...])
            }
            if let done = current { pending.append(done) }
            current = nil
            let origin = firstTime ?? 0
            let exchanges = pending.compactMap { CurlTrace.exchange($0, origin: origin) }
            let count = pending.count
            pending = []
            return CurlTrace(exchanges: exchanges, unanswered: count - exchanges.count)
        }

        private mutating func line(_ line: ArraySlice<UInt8>) {
            guard !line.isEmpty else { return }
            if let (time, event) = CurlTrace.event(line) {
                self.event(event, at: time)
                return
            }
            guard let target, current != nil else { return }
            let appended: Bool
            switch target {
            case .requestHead: appended = CurlTrace.appendHex(line, to: &current!.requestHead)
            case .requestBody: appended = CurlTrace.appendHex(line, to: &current!.requestBody)
            case .responseHead: appended = CurlTrace.appendHex(line, to: &current!.responseHead)
            case .responseBody: appended = CurlTrace.appendHex(line, to: &current!.responseBody)
            }
            if appended { current!.end = now }
        }

        private mutating func event(_ event: ArraySlice<UInt8>, at time: Double) {
            now = time
            if firstTime == nil { firstTime = time }
            target = nil
            if event.starts(with: "== Info: Connected to".utf8) {
                tls = false
            } else if event.starts(with: "== Info: SSL connection".utf8) {
                tls = true
            } else if event.starts(with: "=> Send header".utf8) {
                if current == nil || !current!.responseHead.isEmpty {
                    if let done = current { pending.append(done) }
                    current = Pending(tls: tls, start: time, end: time)
                }
                target = .requestHead
            } else if event.starts(with: "=> Send data".utf8) {
                target = .requestBody
            } else if event.starts(with: "<= Recv header".utf8) {
                target = .responseHead
            } else if event.starts(with: "<= Recv data".utf8) {
                target = .responseBody
            }
            if target != nil, current != nil { current!.end = time }
        }
    }

    /// `HH:MM:SS.ffffff ` then the event text; nil for a hex dump line.
    private static func event(_ line: ArraySlice<UInt8>) -> (Double, ArraySlice<UInt8>)? {
        let base = line.startIndex
        guard line.count > 16, line[base + 2] == UInt8(ascii: ":"), line[base + 5] == UInt8(ascii: ":"),
            line[base + 8] == UInt8(ascii: "."), line[base + 15] == UInt8(ascii: " ")
        else { return nil }
        func number(_ range: Range<Int>) -> Double? {
            Double(String(decoding: line[(base + range.lowerBound)..<(base + range.upperBound)], as: UTF8.self))
        }
        // Only a time of day: `21.e41554` is a Double too (infinite), which made an exchange's
        // offset and duration NaN (found by `Scripts/fuzz.sh --long`).
        guard let hours = number(0..<2), let minutes = number(3..<5), let seconds = number(6..<15),
            (0..<24).contains(hours), (0..<60).contains(minutes), (0..<61).contains(seconds)
        else { return nil }
        return (hours * 3600 + minutes * 60 + seconds, line[(base + 16)...])
    }

    /// Appends the bytes of a dump line `0000: 50 4f 53 54 …  POST` to `bytes`: 16 columns of
    /// `hh ` (blank-padded on the last line), then the printable rendering, which is ignored.
    /// A line that is not a dump line adds nothing and returns false.
    private static func appendHex(_ line: ArraySlice<UInt8>, to bytes: inout [UInt8]) -> Bool {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon - line.startIndex >= 4,
            colon + 1 < line.endIndex, line[..<colon].allSatisfy({ hexDigitValue($0) != nil })
        else { return false }
        var index = colon + 2
        for _ in 0..<16 {
            guard index + 1 < line.endIndex, let high = hexDigitValue(line[index]),
                let low = hexDigitValue(line[index + 1])
            else { break }
            bytes.append(high << 4 | low)
            index += 3
        }
        return true
    }

    private static func exchange(_ pending: Pending, origin: Double) -> Exchange? {
        let requestLines = headLines(pending.requestHead)
        guard let requestLine = requestLines.first else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2 else { return nil }
        let requestHeaders = headers(requestLines.dropFirst())
        // The last status line starts the final response; 1xx ones before it were interim.
        let responseLines = headLines(pending.responseHead)
        guard let finalIndex = responseLines.lastIndex(where: { $0.hasPrefix("HTTP/") }) else { return nil }
        let statusParts = responseLines[finalIndex].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        let responseHeaders = headers(responseLines[(finalIndex + 1)...])
        let targetText = String(parts[1])
        // Only an origin-form target ("/path?query") is completed with the scheme and Host; any
        // other (`*`, `host:443`, what --request-target made of it) is kept as sent, which is no
        // URL, and the caller refuses to record it.
        var url = targetText
        if targetText.hasPrefix("/") {
            let host = requestHeaders.first { $0.name.lowercased() == "host" }?.value ?? "localhost"
            url = (pending.tls ? "https://" : "http://") + host + targetText
        }
        var body = pending.responseBody
        let encoding = responseHeaders.first { $0.name.lowercased() == "transfer-encoding" }?.value.lowercased() ?? ""
        if encoding.contains("chunked"), let plain = dechunked(body) { body = plain }
        var duration = pending.end - pending.start
        if duration < 0 { duration += 86_400 }
        var offset = pending.start - origin
        if offset < 0 { offset += 86_400 }
        return Exchange(
            request: BackendRequest(
                method: String(parts[0]), url: url, headers: requestHeaders, body: pending.requestBody),
            status: status, headers: responseHeaders, body: body, startOffset: offset, duration: duration)
    }

    /// Header block lines without their CRLF, empty lines dropped.
    private static func headLines(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: UInt8(ascii: "\n")).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }.filter { !$0.isEmpty }
    }

    private static func headers(_ lines: ArraySlice<String>) -> [HTTPHeader] {
        lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            return HTTPHeader(name: String(line[..<colon]), value: String(value))
        }
    }

    /// The payload of a chunked body; nil when it is not well-formed (kept as received then).
    static func dechunked(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let sizeText =
                String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                .split(separator: ";").first?.trimmingCharacters(in: " \r\t") ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { return nil }
            if size == 0 { return out }
            let start = lineEnd + 1
            guard start + size <= bytes.count else { return nil }
            out += bytes[start..<start + size]
            index = start + size
            if index < bytes.count, bytes[index] == UInt8(ascii: "\r") { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "\n") { index += 1 }
        }
        return nil
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        return String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}
