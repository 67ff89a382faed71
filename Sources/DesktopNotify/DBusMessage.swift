/// D-Bus wire format, little-endian, for the few messages a notification needs: method calls
/// whose bodies hold strings, bytes, 32-bit integers, arrays, dict entries and variants, and the
/// header of any message (to find the reply to a call). The rules are those of the D-Bus
/// specification's "Message Format": every value is aligned to its own size (a struct and a
/// dict entry to 8), an array's length counts the bytes of its elements only, and the header
/// is padded to 8 before the body.
struct DBusWriter {
    /// The bytes written so far; offsets (and so alignment) count from the message's start.
    private(set) var bytes: [UInt8] = []

    mutating func align(_ boundary: Int) {
        while bytes.count % boundary != 0 { bytes.append(0) }
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func uint32(_ value: UInt32) {
        align(4)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func int32(_ value: Int32) {
        uint32(UInt32(bitPattern: value))
    }

    /// A STRING or OBJECT_PATH: length, UTF-8 bytes, a nul. A nul inside `value` is dropped
    /// (the format forbids it).
    mutating func string(_ value: String) {
        let utf8 = value.utf8.filter { $0 != 0 }
        uint32(UInt32(utf8.count))
        bytes += utf8
        bytes.append(0)
    }

    /// A SIGNATURE: one length byte, the type codes, a nul.
    mutating func signature(_ value: String) {
        bytes.append(UInt8(value.utf8.count))
        bytes += value.utf8
        bytes.append(0)
    }

    /// An ARRAY whose elements align to `elementAlignment`: the length is patched in once
    /// `elements` has written them, and counts neither itself nor the padding after it.
    mutating func array(elementAlignment: Int, _ elements: (inout DBusWriter) -> Void) {
        uint32(0)
        let lengthAt = bytes.count - 4
        align(elementAlignment)
        let start = bytes.count
        elements(&self)
        let length = UInt32(bytes.count - start)
        for index in 0..<4 { bytes[lengthAt + index] = UInt8(truncatingIfNeeded: length >> UInt32(8 * index)) }
    }

    /// A VARIANT: the value's signature, then the value.
    mutating func variant(signature: String, _ value: (inout DBusWriter) -> Void) {
        self.signature(signature)
        value(&self)
    }
}

/// A method call ready for the socket: header and body.
struct DBusMethodCall {
    var destination: String
    var path: String
    var interface: String
    var member: String
    /// The body's signature, empty for none.
    var signature: String = ""
    /// The body, marshalled from offset 0 of an 8-aligned position (the header ends on one).
    var body: [UInt8] = []

    /// The message with `serial` (never 0).
    func bytes(serial: UInt32) -> [UInt8] {
        var writer = DBusWriter()
        // Endianness 'l', METHOD_CALL (1), no flags, protocol version 1.
        for value: UInt8 in [UInt8(ascii: "l"), 1, 0, 1] { writer.byte(value) }
        writer.uint32(UInt32(body.count))
        writer.uint32(serial)
        writer.array(elementAlignment: 8) { fields in
            Self.field(&fields, code: 1, type: "o") { $0.string(path) }
            Self.field(&fields, code: 2, type: "s") { $0.string(interface) }
            Self.field(&fields, code: 3, type: "s") { $0.string(member) }
            Self.field(&fields, code: 6, type: "s") { $0.string(destination) }
            if !signature.isEmpty { Self.field(&fields, code: 8, type: "g") { $0.signature(signature) } }
        }
        writer.align(8)
        return writer.bytes + body
    }

    private static func field(
        _ writer: inout DBusWriter, code: UInt8, type: String, _ value: (inout DBusWriter) -> Void
    ) {
        writer.align(8)
        writer.byte(code)
        writer.variant(signature: type, value)
    }
}

/// What a received message's header says, as far as waiting for a reply needs.
struct DBusHeader: Equatable {
    /// 1 method call, 2 method return, 3 error, 4 signal.
    var type: UInt8
    /// REPLY_SERIAL: the call this message answers, if any.
    var replySerial: UInt32?
    /// ERROR_NAME, for an error reply.
    var errorName: String?
    /// Bytes of the whole message (header, padding, body).
    var totalLength: Int

    /// The header at the start of `bytes`: nil while fewer bytes than the whole message have
    /// arrived; throws on a message that breaks the format.
    static func parse(_ bytes: [UInt8]) throws(DBusFailure) -> DBusHeader? {
        guard bytes.count >= 16 else { return nil }
        let little: Bool
        switch bytes[0] {
        case UInt8(ascii: "l"): little = true
        case UInt8(ascii: "B"): little = false
        default: throw .protocolError("not a D-Bus message (endianness byte \(bytes[0]))")
        }
        let reader = DBusReader(bytes: bytes, little: little)
        let bodyLength = Int(reader.uint32(at: 4))
        let fieldsLength = Int(reader.uint32(at: 12))
        guard bodyLength < 1 << 27, fieldsLength < 1 << 26 else { throw .protocolError("message too large") }
        let headerEnd = 16 + fieldsLength
        let total = (headerEnd + 7) / 8 * 8 + bodyLength
        guard bytes.count >= total else { return nil }
        var header = DBusHeader(type: bytes[1], replySerial: nil, errorName: nil, totalLength: total)
        var offset = 16
        while offset < headerEnd {
            offset = (offset + 7) / 8 * 8
            guard offset + 4 <= headerEnd else { break }
            let code = bytes[offset]
            let signatureLength = Int(bytes[offset + 1])
            let type = signatureLength == 1 ? bytes[offset + 2] : 0
            offset += 3 + signatureLength
            switch type {
            case UInt8(ascii: "u"):
                offset = (offset + 3) / 4 * 4
                if code == 5 { header.replySerial = reader.uint32(at: offset) }
                offset += 4
            case UInt8(ascii: "s"), UInt8(ascii: "o"):
                offset = (offset + 3) / 4 * 4
                let length = Int(reader.uint32(at: offset))
                guard offset + 4 + length < headerEnd else { throw .protocolError("header field overruns") }
                if code == 4 {
                    header.errorName = String(decoding: bytes[offset + 4..<offset + 4 + length], as: UTF8.self)
                }
                offset += 4 + length + 1
            case UInt8(ascii: "g"):
                offset += Int(bytes[offset]) + 2
            default:
                throw .protocolError("unexpected header field type \(type)")
            }
        }
        return header
    }
}

private struct DBusReader {
    let bytes: [UInt8]
    let little: Bool

    func uint32(at offset: Int) -> UInt32 {
        guard offset + 4 <= bytes.count else { return 0 }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[offset + (little ? index : 3 - index)])
            value |= byte << UInt32(8 * index)
        }
        return value
    }
}
