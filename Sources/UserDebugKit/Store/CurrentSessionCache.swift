#if canImport(Glibc)
    import Glibc
#endif

/// A copy of the current session beside the store (`<database>-current`), so that the hotkey
/// path (`copy-id`, `dump-json`, `copy-token`) does not have to open SQLite: opening it and
/// reading one row costs about 0.45 ms of a 1.6 ms command, most of it the first read of a
/// database no other process has open.
///
/// The store stays the only source of truth. The copy carries a fingerprint of the database files
/// taken before the read it was filled from, and is used only while the files still match it:
///
/// - every commit in WAL mode either appends to the `-wal` file (its size grows) or starts a new
///   WAL generation (its 32-byte header gets new salts), then publishes its frames in the
///   wal-index header of the `-shm`; a checkpoint that empties the WAL rewrites the database
///   file. The fingerprint holds the device, inode, size and mtime of the database and the WAL,
///   the WAL header, and the wal-index header while the WAL holds frames; and while a frame of
///   the current generation is not yet published (a commit under way, or one whose writer died
///   before publishing it, which the next opener recovers), there is no fingerprint at all;
/// - a database path that is a symbolic link has no fingerprint (SQLite keeps `-wal` beside the
///   link's target); in rollback-journal mode the header's change counter tells commits apart;
/// - a copy is written only when neither file changed in the last `settleSeconds` (and they are
///   still the same after the read). File times are coarse (a few ms; whole seconds on some file
///   systems, which get `coarseSettleSeconds`), so two changes in one tick could otherwise look
///   like one; and a commit whose frames are written but not yet visible to readers has a fresh
///   WAL time.
///
/// Anything unexpected (no such file, another owner, looser permissions than 0600, a malformed
/// or foreign fingerprint) is a miss, and the caller reads the store as usual. The file holds
/// the session's token, so it is created 0600 beside the 0600 database in its 0700 directory.
public enum CurrentSessionCache {
    /// How long the database files must have been left alone before a copy is written: longer
    /// than the file times' tick (the kernel's coarse clock, at most 10 ms).
    public static let settleSeconds = 0.1
    /// The same on a file system whose times have whole seconds only (FAT keeps two).
    public static let coarseSettleSeconds = 2.5

    private static let magic = "userdebug-current-session 1"

    /// Where the copy for `databasePath` lives.
    public static func path(for databasePath: String) -> String { databasePath + "-current" }

    /// The database files' fingerprint now, and whether they have been left alone for
    /// `settleSeconds` (by their modification times, against `now`: seconds since 1970). nil when the
    /// database file cannot be examined.
    public static func fingerprint(of databasePath: String, now: Double = wallClock()) -> (text: String, settled: Bool)?
    {
        // SQLite resolves a symbolic link and keeps -wal and -shm beside its target: not ours to follow.
        var link = stat()
        guard lstat(databasePath, &link) == 0, (link.st_mode & S_IFMT) == S_IFREG,
            let database = FileStamp(path: databasePath)
        else { return nil }
        // The header's change counter: what a commit in rollback-journal mode increments.
        guard let counter = readBytes(databasePath, count: 4, at: 24) else { return nil }
        var text = "db " + database.text + " " + hex(counter)
        var latest = database.latestChange
        var wholeSeconds = database.wholeSeconds
        if let wal = FileStamp(path: databasePath + "-wal") {
            guard let frames = walState(databasePath, walSize: wal.size) else { return nil }
            text += " wal " + wal.text + " " + frames
            latest = max(latest, wal.latestChange)
            wholeSeconds = wholeSeconds && wal.wholeSeconds
        } else {
            text += " wal none"
        }
        return (text, now - latest >= (wholeSeconds ? coarseSettleSeconds : settleSeconds))
    }

    /// The session copied for `databasePath`, if the copy is ours, intact and its fingerprint is
    /// the database files' fingerprint now; nil otherwise.
    public static func read(databasePath: String) -> Session? {
        lookup(databasePath: databasePath).session
    }

    /// `read`, and on a miss the fingerprint it took, for `write` after reading the store (so a
    /// miss takes it once).
    public static func lookup(databasePath: String) -> (session: Session?, fingerprint: (text: String, settled: Bool)?)
    {
        guard let current = fingerprint(of: databasePath) else { return (nil, nil) }
        guard let bytes = FileSystem.readPrivateFile(path(for: databasePath)) else { return (nil, current) }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count == 3, String(decoding: lines[0], as: UTF8.self) == magic,
            String(decoding: lines[1], as: UTF8.self) == current.text,
            let object = (try? JSONParser().parse(Array(lines[2])))?.objectValue,
            let session = session(from: object)
        else { return (nil, current) }
        return (session, current)
    }

    /// Writes the copy of `session`, read from the store after `fingerprint` was taken; does
    /// nothing unless the files had settled then and are still the same now (a writer may have
    /// committed meanwhile), or when the database file belongs to another user. Best effort: a
    /// failure leaves no copy.
    public static func write(_ session: Session, databasePath: String, fingerprint: (text: String, settled: Bool)) {
        guard fingerprint.settled, self.fingerprint(of: databasePath)?.text == fingerprint.text else { return }
        // A read never creates a file in a store that is not ours (another user's, or root's read
        // by a user): the copy is made only by the owner of the database file.
        var status = stat()
        guard stat(databasePath, &status) == 0, status.st_uid == geteuid() else { return }
        let text = magic + "\n" + fingerprint.text + "\n" + JSONWriter().string(.object(object(for: session)))
        FileSystem.replacePrivateFile(path(for: databasePath), with: Array(text.utf8))
    }

    /// Seconds since 1970 on the clock file times are stamped with.
    public static func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    // MARK: - Files

    /// What stat says about a file, for the fingerprint.
    private struct FileStamp {
        var text: String
        var size: Int
        var latestChange: Double
        var wholeSeconds: Bool

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
            // Content changes move mtime. Not ctime: SQLite running as root chowns -wal and -shm
            // to the database's owner on every open, which moves their ctime on every read.
            let mtime = status.st_mtim
            text = "\(status.st_dev):\(status.st_ino):\(status.st_size):\(mtime.tv_sec).\(mtime.tv_nsec)"
            size = Int(status.st_size)
            latestChange = Double(mtime.tv_sec) + Double(mtime.tv_nsec) / 1e9
            wholeSeconds = mtime.tv_nsec == 0
        }
    }

    // What makes a WAL commit visible to readers is not in the -wal alone: a writer appends its
    // frames, then publishes them in the wal-index header at the start of the -shm (mxFrame, the
    // salts, a change counter). Between the two (an fsync, a preempted or stopped writer, a writer
    // killed there, whose commit the next opener recovers) the files' times may settle while the
    // store still shows the old state. So, when the WAL has frames: the wal-index header is part
    // of the fingerprint, and the store counts as busy (no copy written or used) while the -shm
    // is missing or does not describe this WAL generation, or a commit frame of this generation
    // lies past the last published one. Formats: the WAL header and frame headers are big-endian
    // (salts at bytes 16..23 of the header, 8..15 of a frame header, the page size at 8, a frame's
    // database size after commit at 4..7, zero except in a commit frame); the
    // wal-index header is native-endian: mxFrame at 16, szPage at 14 (1 means 65536), the salts
    // copied from the WAL header at 32..39 (SQLite's file format, "WAL-index format").

    /// The WAL header in hex, and the wal-index header when the WAL holds frames; nil while a
    /// commit may be unpublished or the index describes another generation.
    private static func walState(_ databasePath: String, walSize: Int) -> String? {
        guard walSize >= 32 else { return "-" }
        guard let header = readBytes(databasePath + "-wal", count: 32, at: 0) else { return nil }
        guard walSize > 32 else { return hex(header) }
        guard let index = readBytes(databasePath + "-shm", count: 48, at: 0), index[12] != 0,
            Array(index[32..<40]) == Array(header[16..<24])
        else { return nil }
        let published = index.withUnsafeBytes { Int($0.load(fromByteOffset: 16, as: UInt32.self)) }
        let pageSize = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return nil }
        // Frames of this generation past the last published one: a commit not yet published (or
        // left by a writer that died, for the next opener to recover) ends with a commit frame
        // (its "database size after commit" field non-zero). Frames a rolled-back transaction
        // spilled have none and never become visible, so they do not count.
        let stride = 24 + pageSize
        var next = 32 + published * stride
        for _ in 0..<64 {
            guard walSize >= next + 24 else { return hex(header) + " " + hex(index) }
            guard let frame = readBytes(databasePath + "-wal", count: 24, at: next) else { return nil }
            guard Array(frame[8..<16]) == Array(header[16..<24]) else { return hex(header) + " " + hex(index) }
            if frame[4..<8].contains(where: { $0 != 0 }) { return nil }  // a commit not yet published
            next += stride
        }
        return nil  // too many unpublished frames to look through: busy
    }

    private static func readBytes(_ path: String, count: Int, at offset: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)  // a FIFO in its place must not block us
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return n == count ? bytes : nil
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - Coding

    private static func object(for session: Session) -> JSONObject {
        var members: [JSONObject.Member] = [
            .init(key: "name", value: .string(session.name)),
            .init(key: "identifier", value: .string(session.user.identifier)),
            .init(key: "fields", value: .object(session.user.fields)),
            .init(key: "createdAtMs", value: .number(String(StoreCoding.milliseconds(session.createdAt)))),
            .init(key: "updatedAtMs", value: .number(String(StoreCoding.milliseconds(session.updatedAt)))),
        ]
        if let name = session.user.name { members.append(.init(key: "userName", value: .string(name))) }
        if let token = session.token { members.append(.init(key: "token", value: .string(token))) }
        if let url = session.baseURL { members.append(.init(key: "baseURL", value: .string(url))) }
        if let environment = session.environment {
            members.append(.init(key: "environment", value: .string(environment)))
        }
        return JSONObject(members)
    }

    private static func session(from object: JSONObject) -> Session? {
        guard let name = object["name"]?.stringValue, let identifier = object["identifier"]?.stringValue,
            let fields = object["fields"]?.objectValue,
            case .number(let created)? = object["createdAtMs"], let createdMs = Int64(created),
            case .number(let updated)? = object["updatedAtMs"], let updatedMs = Int64(updated)
        else { return nil }
        func optional(_ key: String) -> String?? {
            guard let value = object[key] else { return .some(nil) }
            guard let text = value.stringValue else { return nil }
            return .some(text)
        }
        guard let userName = optional("userName"), let token = optional("token"), let baseURL = optional("baseURL"),
            let environment = optional("environment")
        else { return nil }
        return Session(
            name: name, user: User(identifier: identifier, name: userName, fields: fields), token: token,
            baseURL: baseURL,
            environment: environment, createdAt: StoreCoding.date(milliseconds: createdMs),
            updatedAt: StoreCoding.date(milliseconds: updatedMs))
    }
}
