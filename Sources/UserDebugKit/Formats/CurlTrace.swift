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

    private struct Pending {
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
        var pending: [Pending] = []
        var current: Pending?
        var tls = false
        var firstTime: Double?
        var target: WritableKeyPath<Pending, [UInt8]>?
        var now: Double = 0
        for rawLine in trace.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let line = Array(rawLine)
            if let (time, event) = CurlTrace.event(line) {
                now = time
                if firstTime == nil { firstTime = time }
                target = nil
                if event.starts(with: Array("== Info: Connected to".utf8)) {
                    tls = false
                } else if event.starts(with: Array("== Info: SSL connection".utf8)) {
                    tls = true
                } else if event.starts(with: Array("=> Send header".utf8)) {
                    if current == nil || !current!.responseHead.isEmpty {
                        if let done = current { pending.append(done) }
                        current = Pending(tls: tls, start: time, end: time)
                    }
                    target = \.requestHead
                } else if event.starts(with: Array("=> Send data".utf8)) {
                    target = \.requestBody
                } else if event.starts(with: Array("<= Recv header".utf8)) {
                    target = \.responseHead
                } else if event.starts(with: Array("<= Recv data".utf8)) {
                    target = \.responseBody
                }
                if target != nil, current != nil { current!.end = time }
                continue
            }
            guard let target, current != nil, let bytes = CurlTrace.hexBytes(line) else { continue }
            current![keyPath: target] += bytes
            current!.end = now
        }
        if let done = current { pending.append(done) }
        let origin = firstTime ?? 0
        exchanges = pending.compactMap { CurlTrace.exchange($0, origin: origin) }
        unanswered = pending.count - exchanges.count
    }

    /// `HH:MM:SS.ffffff ` then the event text; nil for a hex dump line.
    private static func event(_ line: [UInt8]) -> (Double, ArraySlice<UInt8>)? {
        guard line.count > 16, line[2] == UInt8(ascii: ":"), line[5] == UInt8(ascii: ":"), line[8] == UInt8(ascii: "."),
            line[15] == UInt8(ascii: " ")
        else { return nil }
        func number(_ range: Range<Int>) -> Double? { Double(String(decoding: line[range], as: UTF8.self)) }
        guard let hours = number(0..<2), let minutes = number(3..<5), let seconds = number(6..<15) else { return nil }
        return (hours * 3600 + minutes * 60 + seconds, line[16...])
    }

    /// The bytes of a dump line `0000: 50 4f 53 54 …  POST`: 16 columns of `hh ` (blank-padded
    /// on the last line), then the printable rendering, which is ignored.
    private static func hexBytes(_ line: [UInt8]) -> [UInt8]? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon >= 4, colon + 1 < line.count,
            line[..<colon].allSatisfy({ hexDigitValue($0) != nil })
        else { return nil }
        var bytes: [UInt8] = []
        var index = colon + 2
        for _ in 0..<16 {
            guard index + 1 < line.count, let high = hexDigitValue(line[index]),
                let low = hexDigitValue(line[index + 1])
            else { break }
            bytes.append(high << 4 | low)
            index += 3
        }
        return bytes
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
