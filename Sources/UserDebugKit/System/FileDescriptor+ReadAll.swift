#if canImport(Glibc)
    import Glibc
#endif

extension FileDescriptor {
    /// Why `readAll` returned no bytes.
    package enum ReadAllError: Error, Sendable, Equatable {
        /// read(2) failed (not with EINTR, which is retried).
        case system(SystemError)
        /// There are more bytes than the limit; reading stopped at the first chunk past it.
        case tooLarge
    }

    /// Reads from the current offset to end of file, handing each chunk read to `consume` until
    /// it returns false; EINTR is retried. The one read loop of the package: `readAll` and the
    /// file copy of a snapshot are built on it.
    /// - Returns: true at end of file, false when `consume` stopped the reading.
    package func readChunks(bufferSize: Int = 1 << 16, _ consume: (UnsafeRawBufferPointer) -> Bool)
        throws(SystemError) -> Bool
    {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bufferSize, 1), alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = read(rawValue, buffer.baseAddress, buffer.count)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw SystemError(code)
            }
            if count == 0 { return true }
            guard consume(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return false }
        }
    }

    /// Every byte from the current offset to end of file; more than `limit` bytes is
    /// `.tooLarge`, found without reading much past the limit (a 1 GiB input with a 64 MiB limit
    /// is refused after 64 MiB). A small limit also sizes the read buffer, so a file known to be
    /// small costs no large allocation.
    package func readAll(limit: Int = .max) throws(ReadAllError) -> [UInt8] {
        var bytes: [UInt8] = []
        let complete: Bool
        do {
            complete = try readChunks(bufferSize: limit < 1 << 16 ? limit + 1 : 1 << 16) { chunk in
                guard chunk.count <= limit - bytes.count else { return false }
                bytes.append(contentsOf: chunk)
                return true
            }
        } catch {
            throw .system(error)
        }
        guard complete else { throw .tooLarge }
        return bytes
    }
}
