#if canImport(Glibc)
    import Glibc
#endif

extension FileDescriptor {
    /// Writes all of `bytes`, retrying short writes and EINTR, and waiting (poll, 1 s at a time)
    /// while a non-blocking descriptor is full. Any other failure is thrown, so a closed
    /// stdout, a full disk or a broken pipe is an error, never a silent short write.
    package func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = write(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN {
                    var writable = pollfd(fd: rawValue, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&writable, 1, 1000)
                    continue
                }
                throw SystemError(code)
            }
            offset += written
        }
    }

    /// `writeAll` for an array.
    package func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        // withUnsafeBytes rethrows untyped: the failure is carried out as a value.
        let failure = bytes.withUnsafeBytes { raw -> SystemError? in
            do throws(SystemError) {
                try writeAll(raw)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }
}
