#if canImport(Glibc)
import Glibc
#endif
import UserDebugKit

/// Private files the export and capture commands write beside the store: binary request bodies
/// for `--data-binary @FILE` and curl's trace during a capture. Both can hold secrets, so the
/// directories are 0700 and the files 0600 whatever the umask.
enum ExportFiles {
    /// Creates `directory` and its missing parents with mode 0700.
    static func makeDirectory(_ directory: String) throws(CommandError) {
        var path = ""
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + component
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw CommandError(.ioError, "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Writes `bytes` to `path` (replacing it) with mode 0600.
    static func write(_ bytes: [UInt8], to path: String) throws(CommandError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CommandError(.ioError, "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        _ = fchmod(fd, 0o600)
        try writeAll(bytes, to: fd, name: path)
    }

    /// A new empty 0600 file in `directory` named `prefix` plus a unique suffix.
    static func temporaryFile(in directory: String, prefix: String) throws(CommandError) -> String {
        try makeDirectory(directory)
        var template = Array((directory + "/" + prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CommandError(.ioError, "cannot create a file in \(directory): \(String(cString: strerror(errno)))") }
        close(fd)
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The whole content of `path`, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return count == 0 ? bytes : nil }
            bytes += chunk[0..<count]
        }
    }

    /// Where `export curl` puts a binary request body by default: the state directory, which
    /// outlives the command (the command may be pasted much later) and is private to the user.
    static func defaultBodyPath(_ paths: UserDebugPaths, responseID: Int64?) -> String {
        paths.stateDirectory + "/bodies/request-\(responseID.map(String.init) ?? "unsaved").bin"
    }
}
