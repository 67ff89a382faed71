import CBrotli
import CZlib

/// `Content-Encoding` (RFC 9110 §8.4) undone, so that what is shown, redacted and exported is a
/// body's content and not its compressed bytes: `gzip` and `x-gzip`, `deflate` (zlib-wrapped, or
/// raw deflate as browsers also accept), `br`, and any stack of them (`gzip, br` was gzipped,
/// then brotli-compressed; it is undone in the reverse order). `identity` is no coding.
///
/// Everything else (`zstd`, `compress`, a name nobody knows) is unsupported: the bytes cannot be
/// read, and a caller that must read them (redaction) has to treat them as unreadable.
///
/// Decoding is bounded: a few hundred KiB of gzip can expand to gigabytes, so a body is decoded to
/// at most `limit` bytes and one that would decode to more is not decoded at all.
public enum ContentEncoding {
    /// The most bytes a body is decoded to: 256 MiB, the store's default `retention.maxBytes` and
    /// the largest HAR file `response import` reads, so a body never decodes to more than the store
    /// is meant to hold.
    public static let decodedLimit = 256 * 1024 * 1024

    /// Why a body could not be decoded; each case names the coding it stopped at.
    public enum Failure: Error, Sendable, Equatable {
        /// A coding this reader does not implement (`zstd`, `compress`, anything else).
        case unsupported(String)
        /// Not a complete, valid stream of the coding: truncated, corrupt, or followed by more bytes.
        case corrupt(String)
        /// It decodes to more than the limit.
        case tooLarge(String)
    }

    /// The codings of every `Content-Encoding` header, in the order they were applied: several
    /// header lines read as one comma-separated list (RFC 9110 §5.3), `identity` and empty names
    /// left out. Names keep their case (they compare case-insensitively), so that whatever a
    /// hostile header put there is still found by a search for the secrets it may hold.
    public static func codings(of headers: [HTTPHeader]) -> [String] {
        var codings: [String] = []
        for header in headers where header.name.lowercased() == "content-encoding" {
            for name in header.value.split(separator: ",") {
                let coding = String(name.filter { $0 != " " && $0 != "\t" })
                if !coding.isEmpty, coding.lowercased() != "identity" { codings.append(coding) }
            }
        }
        return codings
    }

    /// `body` with `codings` undone, the last applied first.
    /// - Throws: the first coding that is unsupported, corrupt, or decodes to more than `limit`.
    public static func decode(_ body: [UInt8], codings: [String], limit: Int = decodedLimit) throws(Failure)
        -> [UInt8]
    {
        var bytes = body
        for coding in codings.reversed() {
            let outcome: Decompression.Outcome
            switch coding.lowercased() {
            case "gzip", "x-gzip": outcome = Decompression.inflate(bytes, format: .gzip, limit: limit)
            case "deflate":
                outcome = Decompression.inflate(bytes, format: isZlibStream(bytes) ? .zlib : .raw, limit: limit)
            case "br": outcome = Decompression.brotli(bytes, limit: limit)
            default: throw .unsupported(coding)
            }
            switch outcome {
            case .decoded(let decoded): bytes = decoded
            case .corrupt: throw .corrupt(coding)
            case .tooLarge: throw .tooLarge(coding)
            }
        }
        return bytes
    }

    /// `headers` for a body without any coding, `count` bytes long: no `Content-Encoding`, and a
    /// recorded `Content-Length` set to `count` (a consumer that trusts it would otherwise read the
    /// compressed length of a decoded body).
    public static func headers(_ headers: [HTTPHeader], describingIdentityBodyOf count: Int) -> [HTTPHeader] {
        headers.compactMap { header in
            switch header.name.lowercased() {
            case "content-encoding": return nil
            case "content-length": return HTTPHeader(name: header.name, value: String(count))
            default: return header
            }
        }
    }

    /// The headers to record with a body that may have been decoded already although its headers
    /// still name a coding: HAR 1.2's `content.text` (browsers write it decoded and keep the
    /// header; other tools keep the bytes as received), and URLSession's data (decoded for the
    /// app, the header kept). Bytes that start as a valid stream of their codings are as received
    /// (headers kept); bytes that do not are the decoded content, and the header that no longer
    /// describes them goes. A coding this reader does not know cannot tell, so the headers stay.
    public static func headers(forBodyThatMayBeDecoded body: [UInt8], headers: [HTTPHeader]) -> [HTTPHeader] {
        let codings = codings(of: headers)
        guard !codings.isEmpty, !body.isEmpty else { return headers }
        do {
            // A prefix settles it: a stream that decodes this far is one, and the probe stays cheap.
            _ = try decode(body, codings: codings, limit: 1 << 16)
        } catch {
            guard case .corrupt = error else { return headers }
            return Self.headers(headers, describingIdentityBodyOf: body.count)
        }
        return headers
    }

    /// A zlib header (RFC 1950): deflate with a window of at most 32 KiB, and a check that makes
    /// the first two bytes a multiple of 31. Raw deflate rarely starts like that, and browsers
    /// tell the two apart the same way.
    static func isZlibStream(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        return bytes[0] & 0x0F == 8 && bytes[0] >> 4 <= 7 && (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0
    }
}

/// The decoders over zlib and libbrotli: whole input in, whole output out, at most `limit` bytes.
enum Decompression {
    enum Outcome {
        case decoded([UInt8])
        case corrupt
        case tooLarge
    }

    enum Format {
        case gzip, zlib, raw

        /// zlib's `windowBits`: 15 (32 KiB) for a zlib stream, +16 for gzip, negative for raw.
        var windowBits: Int32 {
            switch self {
            case .gzip: return 15 + 16
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    /// How much is decoded per call; the output grows by this much at a time, so a bomb stops
    /// within one chunk of the limit.
    static let chunkSize = 1 << 16

    static func inflate(_ input: [UInt8], format: Format, limit: Int) -> Outcome {
        guard input.count <= Int(UInt32.max) else { return .tooLarge }
        var stream = z_stream()
        guard userdebug_inflate_init(&stream, format.windowBits) == Z_OK else { return .corrupt }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        return input.withUnsafeBufferPointer { source -> Outcome in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { target -> Int32 in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else { return .tooLarge }
                output += chunk[0..<produced]
                switch status {
                case Z_OK:
                    continue
                case Z_STREAM_END where stream.avail_in == 0:
                    return .decoded(output)
                case Z_STREAM_END where format == .gzip && stream.next_in[0] == 0x1F:
                    // Another gzip member (RFC 1952 §2.2): the body is their concatenation.
                    guard inflateReset(&stream) == Z_OK else { return .corrupt }
                default:
                    // Bytes after the end, a truncated stream (Z_BUF_ERROR: no progress), bad data.
                    return .corrupt
                }
            }
        }
    }

    static func brotli(_ input: [UInt8], limit: Int) -> Outcome {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { return .corrupt }
        defer { BrotliDecoderDestroyInstance(state) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        return input.withUnsafeBufferPointer { source -> Outcome in
            var availableIn = source.count
            var nextIn = source.baseAddress
            while true {
                var availableOut = chunk.count
                let result = chunk.withUnsafeMutableBufferPointer { target -> BrotliDecoderResult in
                    var nextOut = target.baseAddress
                    return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                }
                let produced = chunk.count - availableOut
                guard output.count + produced <= limit else { return .tooLarge }
                output += chunk[0..<produced]
                switch result {
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                case BROTLI_DECODER_RESULT_SUCCESS: return availableIn == 0 ? .decoded(output) : .corrupt
                default: return .corrupt  // an error, or the input ended first (truncated)
                }
            }
        }
    }
}
