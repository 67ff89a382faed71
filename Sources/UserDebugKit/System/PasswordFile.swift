#if canImport(Glibc)
    import Glibc
#endif

/// An account's name and home directory as `/etc/passwd` gives them, read directly instead of
/// through `getpwuid_r`. The `userdebug` binary is static, and a static glibc program reaches the
/// name service only by loading the NSS modules of the glibc it was linked with (the linker
/// warns of every such call), which another system may not have. What is asked of the account is
/// small — its home when `HOME` is unset, its name in a message — and `/etc/passwd` answers it
/// for every local account; an account only a directory service knows gets the fallbacks
/// (`HOME`, the numeric uid).
package enum PasswordFile {
    /// One account's entry.
    package struct Entry: Sendable, Equatable {
        /// The login name.
        package var name: String
        /// The home directory (may be empty).
        package var home: String
    }

    /// The entry of `uid` in `path`, or nil when the file cannot be read, is larger than 16 MiB,
    /// or has no such line.
    package static func entry(uid: UInt32, path: String = "/etc/passwd") -> Entry? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let bytes = try? FileDescriptor(descriptor).readAll(limit: 16 << 20) else { return nil }
        return entry(uid: uid, in: bytes)
    }

    /// The entry of `uid` in the text of a passwd file: `name:password:uid:gid:gecos:home:shell`
    /// lines; the first line with that uid wins, as getpwuid's does for the files service.
    package static func entry(uid: UInt32, in bytes: [UInt8]) -> Entry? {
        let wanted = Array(String(uid).utf8)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard fields.count >= 7, !fields[0].isEmpty, Array(fields[2]) == wanted else { continue }
            return Entry(
                name: String(decoding: fields[0], as: UTF8.self), home: String(decoding: fields[5], as: UTF8.self))
        }
        return nil
    }
}
