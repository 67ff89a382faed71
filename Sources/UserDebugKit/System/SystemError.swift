#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call's errno. The layer's functions throw it and each caller turns it into
/// its own error type (`StoreError`, `CommandError`, `ConfigError`, …) with its own wording.
package struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The errno value.
    package var code: Int32

    /// The error for the errno value `code`.
    package init(_ code: Int32) {
        self.code = code
    }

    /// The error for the calling thread's `errno` now.
    package static func current() -> SystemError {
        SystemError(errno)
    }

    /// strerror's text, e.g. "No such file or directory".
    package var description: String {
        String(cString: strerror(code))
    }
}
