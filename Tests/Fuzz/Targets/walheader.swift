// libFuzzer target: the reader of SQLite's WAL and wal-index headers behind the copy of the current
// session (`CurrentSessionCache`), on hostile files on disk. The input lays out a database header,
// a -wal file (header, size, frame headers), a -shm wal-index header and the copy's JSON. Whatever
// they hold, the fingerprint and the lookup return (a miss at worst), and a copy written for a
// fingerprint reads back as the session written.
import FoundationEssentials
import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// Where the files live: one directory per fuzzing process.
let directory: String = {
    var template = Array("/tmp/userdebug-fuzz-wal.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { preconditionFailure("mkdtemp failed") }
    return String(cString: made)
}()

/// The input read field by field; past its end every field reads as zeros.
struct Cursor {
    var bytes: [UInt8]
    var offset = 0

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(offset + count, bytes.count)
        var field = offset < end ? Array(bytes[offset..<end]) : []
        field += [UInt8](repeating: 0, count: count - field.count)
        offset = max(offset, end)
        return field
    }

    mutating func rest() -> [UInt8] { take(max(bytes.count - offset, 0)) }
}

func replace(_ path: String, with bytes: [UInt8], size: Int? = nil) {
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0, "cannot create \(path)")
    defer { close(fd) }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if let size { precondition(ftruncate(fd, off_t(size)) == 0) }
}

/// Writes the -wal: its 32-byte header, `frames` frame headers at their places, and the file's size.
func writeWAL(_ path: String, _ cursor: inout Cursor) {
    let header = cursor.take(32)
    let shape = cursor.take(3)
    let pageSize = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
    let stride = 24 + min(max(pageSize, 0), 1 << 16)
    let frames = Int(shape[0] % 80)
    replace(path, with: header, size: 32 + frames * stride + Int(shape[1]) * 8 + Int(shape[2] % 24))
    let fd = open(path, O_WRONLY)
    defer { close(fd) }
    for frame in 0..<min(frames, 8) {
        let bytes = cursor.take(24)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, 24, off_t(32 + frame * stride)) }
    }
}

/// Called by libFuzzer with one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var cursor = Cursor(bytes: size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    let flags = cursor.take(1)[0]
    let database = directory + "/store.sqlite3"
    replace(database, with: cursor.take(32), size: flags & 1 == 0 ? nil : Int(flags >> 4))
    for suffix in ["-wal", "-shm", "-current"] { unlink(database + suffix) }
    if flags & 2 != 0 { writeWAL(database + "-wal", &cursor) }
    if flags & 4 != 0 { replace(database + "-shm", with: cursor.take(48)) }
    let body = cursor.rest()
    guard let fingerprint = CurrentSessionCache.fingerprint(of: database) else {
        precondition(CurrentSessionCache.read(databasePath: database) == nil, "a copy used without a fingerprint")
        return 0
    }
    // The copy as a hostile file: our magic line and the right fingerprint, then any bytes.
    let copy = Array("userdebug-current-session 1\n\(fingerprint.text)\n".utf8) + body
    replace(CurrentSessionCache.path(for: database), with: copy)
    _ = CurrentSessionCache.lookup(databasePath: database)
    // A copy we write reads back as written.
    let stamp = Date(timeIntervalSince1970: 1_700_000_000.25)
    var session = Session(name: "fuzz", user: User(identifier: "usr_1"), token: "t", createdAt: stamp)
    if let value = try? JSONParser().parse(body), let decoded = try? SessionDocument.decode(value, defaultName: "d") {
        session = decoded
        session.createdAt = stamp
        session.updatedAt = stamp
    }
    unlink(CurrentSessionCache.path(for: database))
    CurrentSessionCache.write(session, databasePath: database, fingerprint: (fingerprint.text, true))
    let reread = CurrentSessionCache.read(databasePath: database)
    precondition(reread == session, "the copy written reads back as \(String(describing: reread))")
    return 0
}
