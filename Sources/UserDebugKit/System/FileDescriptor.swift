#if canImport(Glibc)
    import Glibc
#endif

/// A file descriptor number, the receiver of this layer's read and write loops. It owns
/// nothing: whoever opened the descriptor closes it.
package struct FileDescriptor: Sendable, Hashable {
    /// The descriptor number.
    package var rawValue: Int32

    /// The descriptor `rawValue`.
    package init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// A new pipe whose two ends are close-on-exec. pipe2(O_CLOEXEC) is not exported to Swift;
    /// pipe + FD_CLOEXEC leaves a short window in which a concurrent spawn on another thread
    /// could inherit an end, which only delays that other child's end of file.
    package static func pipe() throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw .current() }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (FileDescriptor(ends[0]), FileDescriptor(ends[1]))
    }
}
