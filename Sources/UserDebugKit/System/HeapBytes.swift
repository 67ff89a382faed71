#if canImport(Glibc)
    import Glibc
#endif

/// Bytes read from a descriptor into one malloc'd block, held once.
///
/// The block grows with realloc, which glibc does for a large block by moving its pages
/// (mremap), never by copying them into a second block: a 1 GiB input peaks at 1 GiB, not at
/// the old block plus the new one. A regular file is read into a block of its size at once.
/// When the block cannot grow (`ulimit -v`, no memory left) the reading stops with
/// `.outOfMemory`, a value a caller reports, where an `Array` would trap. Immutable once read;
/// the last reference frees it.
package final class HeapBytes: @unchecked Sendable {
    /// Why `read` returned no bytes.
    package enum ReadError: Error, Sendable, Equatable {
        /// read(2) failed (not with EINTR, which is retried).
        case system(SystemError)
        /// There are more bytes than the limit; reading stopped at the first byte past it.
        case tooLarge
        /// The block could not grow from `held` to `wanted` bytes.
        case outOfMemory(held: Int, wanted: Int)
    }

    private let base: UnsafeMutableRawPointer?
    /// How many bytes it holds.
    package let count: Int

    private init(base: UnsafeMutableRawPointer?, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { free(base) }

    /// The bytes, valid while this object lives.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Every byte from the descriptor's offset to end of file; more than `limit` is `.tooLarge`,
    /// found after reading at most one byte past the limit.
    package static func read(_ fd: FileDescriptor, limit: Int) throws(ReadError) -> HeapBytes {
        var block = Block(capacity: initialCapacity(fd, limit: limit))
        do throws(ReadError) {
            while true {
                if block.count == block.capacity {
                    guard block.count <= limit else { throw .tooLarge }
                    // Doubling costs nothing but address space (the pages move, they are not
                    // copied); the unused tail is handed back when the reading ends.
                    try block.grow(to: min(limit + 1, max(block.capacity * 2, 1 << 16)))
                }
                let got = Glibc.read(fd.rawValue, block.base! + block.count, block.capacity - block.count)
                if got < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    throw .system(SystemError(code))
                }
                if got == 0 { break }
                block.count += got
            }
            guard block.count <= limit else { throw .tooLarge }
        } catch {
            free(block.base)
            throw error
        }
        // Shrinking moves no byte either; a failure to shrink keeps the larger block.
        if block.count < block.capacity, block.count > 0, let shrunk = realloc(block.base, block.count) {
            block.base = shrunk
        }
        return HeapBytes(base: block.base, count: block.count)
    }

    /// A regular file's remaining size plus one (the byte that tells its end), else 64 KiB.
    private static func initialCapacity(_ fd: FileDescriptor, limit: Int) -> Int {
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return 1 << 16 }
        let offset = lseek(fd.rawValue, 0, SEEK_CUR)
        let remaining = Int(info.st_size) - max(Int(offset), 0)
        return min(max(remaining, 0), limit) + 1
    }

    /// The block being filled.
    private struct Block {
        var base: UnsafeMutableRawPointer?
        var count = 0
        var capacity = 0

        init(capacity: Int) {
            base = malloc(capacity)
            self.capacity = base == nil ? 0 : capacity
        }

        mutating func grow(to wanted: Int) throws(ReadError) {
            guard let grown = realloc(base, wanted) else { throw .outOfMemory(held: count, wanted: wanted) }
            base = grown
            capacity = wanted
        }
    }
}

/// Whether `bytes` are valid UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF),
/// without copying them: ASCII runs are checked eight bytes at a time, so a large text input is
/// checked at memory speed.
package func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let count = bytes.count
    var i = 0
    while i < count {
        while i + 8 <= count, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
            i += 8
        }
        guard i < count else { return true }
        let lead = bytes[i]
        if lead < 0x80 {
            i += 1
            continue
        }
        guard let length = utf8SequenceLength(bytes, at: i) else { return false }
        i += length
    }
    return true
}

/// The length of the valid multi-byte sequence starting at `i`, or nil (Unicode table 3-7).
private func utf8SequenceLength(_ bytes: UnsafeRawBufferPointer, at i: Int) -> Int? {
    let lead = bytes[i]
    let length: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0: (length, low) = (3, 0xA0)
    case 0xED: (length, high) = (3, 0x9F)
    case 0xE1...0xEF: length = 3
    case 0xF0: (length, low) = (4, 0x90)
    case 0xF4: (length, high) = (4, 0x8F)
    case 0xF1...0xF3: length = 4
    default: return nil
    }
    guard i + length <= bytes.count else { return nil }
    guard (low...high).contains(bytes[i + 1]) else { return nil }
    for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return nil }
    return length
}

/// `isValidUTF8` over bytes that come in chunks (a body streamed from the store): a sequence
/// cut by a chunk's end is completed from the next one. Holds at most three bytes.
package struct UTF8ChunkCheck {
    /// False once an invalid byte was seen.
    package private(set) var isValid = true
    private var carry: [UInt8] = []

    /// A check with nothing seen yet.
    package init() {}

    /// Checks the next chunk.
    package mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        guard isValid else { return }
        var start = 0
        if let lead = carry.first {
            let needed = min(Self.length(of: lead) - carry.count, chunk.count)
            carry += chunk[0..<needed]
            start = needed
            guard carry.count == Self.length(of: lead) else { return }
            isValid = carry.withUnsafeBytes { isValidUTF8($0) }
            carry = []
        }
        let cut = chunk.count - Self.cutSequence(chunk, from: start)
        isValid = isValid && isValidUTF8(UnsafeRawBufferPointer(rebasing: chunk[start..<cut]))
        carry = Array(chunk[cut...])
    }

    /// Whether every byte fed was valid UTF-8, with no sequence left unfinished.
    package var isComplete: Bool { isValid && carry.isEmpty }

    /// How many bytes at the end of `chunk` (after `from`) start a sequence it does not finish.
    private static func cutSequence(_ chunk: UnsafeRawBufferPointer, from: Int) -> Int {
        var back = 1
        while back <= min(3, chunk.count - from) {
            let byte = chunk[chunk.count - back]
            if byte & 0xC0 != 0x80 { return byte >= 0xC0 && length(of: byte) > back ? back : 0 }
            back += 1
        }
        return 0
    }

    /// The length a lead byte announces (1 for a byte that cannot lead: the check then fails).
    private static func length(of lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
    }
}
