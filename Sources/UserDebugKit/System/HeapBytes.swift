#if canImport(Glibc)
    import Glibc
#endif

/// Bytes read from a descriptor into one block of memory of their own, held once.
///
/// The block is a private anonymous mapping reserved for the whole limit at once (address space
/// only: a page costs memory when a byte is read into it), so it never grows by moving or
/// copying. It stays in ordinary pages: with transparent huge pages (`MADV_HUGEPAGE`, tried in
/// 69599d2) the fork and the unmapping are cheaper, but where freed huge pages go back to a
/// hypervisor (virtio-balloon free page reporting, as on our 2-core VM) every new one is zeroed
/// at the host's pace: 128 MiB read in 2.4–3.1 s instead of 0.5–0.7 s in consecutive runs, the
/// usual second copy 0.3–13 s instead of xclip's 0.1–0.5 s (issue 26). The bytes are checked
/// for UTF-8 as they are read, a chunk at a time while it is still in the cache, not in a
/// second pass.
/// When the process may not reserve that much (`ulimit -v`), smaller reservations are tried, and
/// an input that outgrows the one it got stops the reading with `.outOfMemory`, a value a
/// caller reports, where an `Array` would trap. Immutable once read; the last reference unmaps it.
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

    private let base: UnsafeMutableRawPointer
    private let mapped: Int
    /// How many bytes it holds.
    package let count: Int
    /// Whether the bytes are valid UTF-8 (checked while they were read).
    package let isValidUTF8: Bool

    private init(_ block: Block, isValidUTF8: Bool) {
        base = block.base
        mapped = block.mapped
        count = block.count
        self.isValidUTF8 = isValidUTF8
    }

    deinit { munmap(base, mapped) }

    /// The bytes, valid while this object lives.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Each read(2) asks for at most this much, so the UTF-8 check finds it in the cache.
    static let chunk = 1 << 20

    /// Every byte from the descriptor's offset to end of file; more than `limit` is `.tooLarge`,
    /// found after reading at most one byte past the limit.
    package static func read(_ fd: FileDescriptor, limit: Int) throws(ReadError) -> HeapBytes {
        let expected = expectedSize(fd)
        var block = try Block(reserving: limit + 1, atLeast: min(expected.map { $0 + 1 } ?? 1 << 16, limit + 1))
        var check = UTF8ChunkCheck()
        do throws(ReadError) {
            while true {
                if block.count == block.capacity {
                    guard block.count <= limit else { throw .tooLarge }
                    throw .outOfMemory(held: block.count, wanted: min(limit + 1, block.capacity * 2))
                }
                let free = min(block.capacity - block.count, chunk)
                let got = Glibc.read(fd.rawValue, block.base + block.count, free)
                if got < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    throw .system(SystemError(code))
                }
                if got == 0 { break }
                check.feed(UnsafeRawBufferPointer(start: block.base + block.count, count: got))
                block.count += got
            }
            guard block.count <= limit else { throw .tooLarge }
        } catch {
            munmap(block.base, block.mapped)
            throw error
        }
        block.trim()
        return HeapBytes(block, isValidUTF8: check.isComplete)
    }

    /// A regular file's remaining size; nil for anything else (a pipe, a FIFO, a device).
    /// A pipe is widened to 1 MiB (F_SETPIPE_SZ, the unprivileged maximum by default), so its
    /// writer fills it in fewer, larger steps; where that is refused it stays as it was.
    private static func expectedSize(_ fd: FileDescriptor) -> Int? {
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT == S_IFIFO {
            let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7), not exported to Swift
            _ = fcntl(fd.rawValue, setPipeSize, Int32(chunk))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return nil }
        let offset = lseek(fd.rawValue, 0, SEEK_CUR)
        return max(Int(info.st_size) - max(Int(offset), 0), 0)
    }

    /// The mapping being filled.
    private struct Block {
        static let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        static let hugePage = 2 << 20

        let base: UnsafeMutableRawPointer
        var mapped: Int
        /// How many bytes may be read into it.
        let capacity: Int
        var count = 0

        /// Reserves `wanted` bytes, else the largest of `wanted / 2`, `wanted / 4`… the process
        /// may map, down to `least`.
        init(reserving wanted: Int, atLeast least: Int) throws(ReadError) {
            var size = wanted
            while true {
                let length = Self.rounded(size)
                let got = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                if let got, got != UnsafeMutableRawPointer(bitPattern: -1) {
                    (base, mapped, capacity) = (got, length, size)
                    return
                }
                guard size > least else { throw .outOfMemory(held: 0, wanted: least) }
                size = max(size / 2, least)
            }
        }

        /// Sizes in whole huge pages (the kernel then places the mapping on a huge-page boundary).
        static func rounded(_ size: Int) -> Int {
            let unit = size >= hugePage ? hugePage : page
            return (size + unit - 1) / unit * unit
        }

        /// Hands back the address space past the last huge page read into.
        mutating func trim() {
            let kept = max(Self.rounded(count), Self.page)
            guard kept < mapped, munmap(base + kept, mapped - kept) == 0 else { return }
            mapped = kept
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
