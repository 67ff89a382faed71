import Foundation
import Testing

@testable import UserDebugKit

/// The copy of the current session beside the store: used only while the store's files are the
/// ones it was read from, never stale after a commit of any kind.
@Suite struct CurrentSessionCacheTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("data/userdebug.sqlite3")
        let store = try SessionStore.open(path: path, mode: .readWrite)
        try store.saveSession(StoreSamples.session("staging"), makeCurrent: true)
    }

    /// What the hotkey path does on a miss: fingerprint, read the store, write the copy. Waits
    /// for the files to settle first (file times are coarse), as a real caller only writes a
    /// copy once they have. A read that had to create the `-wal` (the sqlite3 shell deletes it
    /// when it closes) changed the files, so no copy is written then: the next read writes it.
    @discardableResult
    func fillCopy() throws -> Session {
        for _ in 0..<3 {
            unlink(CurrentSessionCache.path(for: path))
            usleep(UInt32(CurrentSessionCache.settleSeconds * 1_000_000) + 50_000)
            let fingerprint = try #require(CurrentSessionCache.fingerprint(of: path))
            #expect(fingerprint.settled)
            let session = try #require(try SessionStore.open(path: path, mode: .readOnly).currentSession())
            CurrentSessionCache.write(session, databasePath: path, fingerprint: fingerprint)
            if FileManager.default.fileExists(atPath: CurrentSessionCache.path(for: path)) { return session }
        }
        Issue.record("no copy was written")
        return try #require(try SessionStore.open(path: path, mode: .readOnly).currentSession())
    }

    @Test func aSettledCopyReadsBackAsTheSessionInEveryField() throws {
        let stored = try fillCopy()
        let copied = try #require(CurrentSessionCache.read(databasePath: path))
        #expect(copied == stored)
        #expect(copied.user.fields.keys == ["zeta", "big", "nested", "emoji"])
        let status = try FileManager.default.attributesOfItem(atPath: CurrentSessionCache.path(for: path))
        #expect((status[.posixPermissions] as? Int) == 0o600, "it holds the token")

        let bare = Session(name: "bare", user: User(identifier: "7"), createdAt: StoreSamples.date)
        try SessionStore.open(path: path, mode: .readWrite).saveSession(bare, makeCurrent: true)
        let storedBare = try fillCopy()
        #expect(CurrentSessionCache.read(databasePath: path) == storedBare)
        #expect(storedBare.token == nil && storedBare.user.name == nil)
    }

    @Test func noCopyIsWrittenWhileTheFilesAreFresh() throws {
        let now = CurrentSessionCache.wallClock()
        let fresh = try #require(CurrentSessionCache.fingerprint(of: path, now: now))
        #expect(!fresh.settled, "just written by init")
        CurrentSessionCache.write(StoreSamples.session(), databasePath: path, fingerprint: fresh)
        #expect(!FileManager.default.fileExists(atPath: CurrentSessionCache.path(for: path)))
        let later = try #require(
            CurrentSessionCache.fingerprint(of: path, now: now + CurrentSessionCache.settleSeconds + 0.01))
        #expect(later.settled)
        #expect(later.text == fresh.text)
    }

    /// Every kind of commit, each right after a copy was written: a save (WAL append), switching
    /// the current session, a checkpoint that empties the WAL after a commit (the database file
    /// changes, the WAL is empty before and after), a new WAL generation, recording responses,
    /// and replacing the database file.
    @Test func everyChangeOfTheStoreMakesTheCopyAMiss() throws {
        let changes: [(String, () throws -> Void)] = [
            (
                "save",
                {
                    try SessionStore.open(path: path, mode: .readWrite).saveSession(
                        StoreSamples.session("staging", identifier: "43"), makeCurrent: true)
                }
            ),
            (
                "use",
                {
                    let store = try SessionStore.open(path: path, mode: .readWrite)
                    try store.saveSession(StoreSamples.session("prod", identifier: "p1"), makeCurrent: false)
                    usleep(200_000)
                    try fillCopy()
                    try store.useSession("prod")
                }
            ),
            (
                "commit then checkpoint(TRUNCATE)",
                {
                    try sqlite(["PRAGMA wal_checkpoint(TRUNCATE);"])
                    try fillCopy()
                    try sqlite([
                        "UPDATE sessions SET user_identifier = 'changed-under-an-empty-wal';",
                        "PRAGMA wal_checkpoint(TRUNCATE);",
                    ])
                }
            ),
            (
                "new WAL generation",
                {
                    try sqlite(["PRAGMA wal_checkpoint(RESTART);"])
                    try fillCopy()
                    try sqlite(["UPDATE sessions SET user_name = 'after restart';"])
                }
            ),
            (
                "responses",
                { try SessionStore.open(path: path, mode: .readWrite).record(StoreSamples.response(), session: nil) }
            ),
            (
                "replaced file",
                {
                    let copy = directory.file("copy.sqlite3")
                    try FileManager.default.copyItem(atPath: path, toPath: copy)
                    try fillCopy()
                    #expect(rename(copy, path) == 0)
                }
            ),
        ]
        for (name, change) in changes {
            try fillCopy()
            #expect(CurrentSessionCache.read(databasePath: path) != nil, "\(name): a hit before the change")
            try change()
            #expect(CurrentSessionCache.read(databasePath: path) == nil, "\(name): a miss after the change")
        }
    }

    @Test func aCopyThatIsLooseForeignDamagedOrALinkIsIgnored() throws {
        try fillCopy()
        let copy = CurrentSessionCache.path(for: path)
        #expect(CurrentSessionCache.read(databasePath: path) != nil)
        let original = try Data(contentsOf: URL(fileURLWithPath: copy))

        chmod(copy, 0o644)
        #expect(CurrentSessionCache.read(databasePath: path) == nil, "readable by others")
        chmod(copy, 0o600)
        #expect(CurrentSessionCache.read(databasePath: path) != nil)

        if geteuid() == 0 {
            chown(copy, 65534, 65534)
            #expect(CurrentSessionCache.read(databasePath: path) == nil, "owned by another user")
            chown(copy, 0, 0)
        }

        var text = String(decoding: original, as: UTF8.self)
        for damaged in [
            text.replacingOccurrences(of: "userdebug-current-session 1", with: "userdebug-current-session 2"),
            String(text.dropLast(5)),
            text.replacingOccurrences(of: "\"identifier\"", with: "\"id\""),
            text.replacingOccurrences(of: " wal ", with: " wal 1"),
        ] {
            try Data(damaged.utf8).write(to: URL(fileURLWithPath: copy))
            chmod(copy, 0o600)
            #expect(CurrentSessionCache.read(databasePath: path) == nil, "\(damaged.prefix(80))")
        }

        text = directory.file("elsewhere")
        try original.write(to: URL(fileURLWithPath: text))
        chmod(text, 0o600)
        unlink(copy)
        #expect(symlink(text, copy) == 0)
        #expect(CurrentSessionCache.read(databasePath: path) == nil, "a symbolic link")
    }

    /// Out of WAL mode (another program ran `PRAGMA journal_mode=DELETE`), a commit rewrites
    /// pages of the same file at the same size: the header's change counter tells them apart.
    @Test func aCommitInRollbackJournalModeMakesTheCopyAMiss() throws {
        try sqlite(["PRAGMA journal_mode=DELETE;"])
        try fillCopy()
        #expect(CurrentSessionCache.read(databasePath: path) != nil)
        // Even if the file's time is put back afterwards (`touch -r`, `rsync -t --inplace`).
        let reference = directory.file("reference")
        #expect(FileManager.default.createFile(atPath: reference, contents: nil))
        try touch(["-r", path, reference])
        try sqlite(["UPDATE sessions SET user_identifier = '43';"])
        try touch(["-r", reference, path])
        #expect(CurrentSessionCache.read(databasePath: path) == nil)
    }

    /// Frames a rolled-back transaction spilled into the WAL never become visible: they do not
    /// stop the copy from being used (a commit frame there would).
    @Test func framesOfARolledBackTransactionDoNotCountAsACommitUnderWay() throws {
        let holder = try Process.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            arguments: [
                "-c",
                "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1]); c.execute('select 1 from sessions').fetchall(); time.sleep(20)",
                path,
            ])
        defer {
            // Process leaves the test thread's blocked signals (SIGTERM) in the child
            kill(holder.processIdentifier, SIGKILL)
            holder.waitUntilExit()
        }
        usleep(300_000)
        // A commit while the store is held open publishes a WAL generation ...
        try SessionStore.open(path: path, mode: .readWrite).saveSession(
            StoreSamples.session("staging", identifier: "44"), makeCurrent: true)
        // ... then a transaction of that generation spills frames past it and rolls back.
        let spill = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('PRAGMA cache_size=5'); c.execute('BEGIN'); c.execute('CREATE TABLE junk(x)')
            for i in range(20): c.execute('INSERT INTO junk VALUES (?)', (b'x' * 3000,))
            c.execute('ROLLBACK')
            """
        let process = try Process.run(URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", spill, path])
        process.waitUntilExit()
        let wal = try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        #expect(wal > 32 + 10 * (24 + 4096), "the rollback left frames in the WAL: \(wal) bytes")
        try fillCopy()
        #expect(CurrentSessionCache.read(databasePath: path)?.user.identifier == "44")
    }

    /// Damaged or hostile -wal and -shm contents (a page size that is not one, an index that
    /// claims four billion frames) and FIFOs in place of the files: no fingerprint or a miss,
    /// promptly, never a crash or a hang.
    @Test func oddStoreFilesAreAMissNotACrashOrAHang() throws {
        try fillCopy()
        let wal = path + "-wal"
        let shm = path + "-shm"
        unlink(wal)
        unlink(shm)
        var header = [UInt8](repeating: 0, count: 32 + 24)
        header[8] = 0x80  // page size 2^31
        header[16..<24] = [1, 2, 3, 4, 5, 6, 7, 8]
        try Data(header).write(to: URL(fileURLWithPath: wal))
        var index = [UInt8](repeating: 0, count: 48)
        index[12] = 1
        index[16..<20] = [0xFF, 0xFF, 0xFF, 0xFF]
        index[32..<40] = [1, 2, 3, 4, 5, 6, 7, 8]
        try Data(index).write(to: URL(fileURLWithPath: shm))
        #expect(CurrentSessionCache.fingerprint(of: path) == nil)
        #expect(CurrentSessionCache.read(databasePath: path) == nil)

        header[8] = 0
        header[10] = 0x10  // 4096, a real page size, with the huge frame count
        try Data(header).write(to: URL(fileURLWithPath: wal))
        _ = CurrentSessionCache.fingerprint(of: path)  // any answer, but an answer

        unlink(shm)
        #expect(mkfifo(shm, 0o600) == 0)
        #expect(CurrentSessionCache.fingerprint(of: path) == nil)
        unlink(shm)
        unlink(wal)
        let copy = CurrentSessionCache.path(for: path)
        unlink(copy)
        #expect(mkfifo(copy, 0o600) == 0)
        #expect(CurrentSessionCache.read(databasePath: path) == nil)
    }

    private func touch(_ arguments: [String]) throws {
        let process = try Process.run(URL(fileURLWithPath: "/usr/bin/touch"), arguments: arguments)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// The sqlite3 shell on the store, as another program writing it would.
    private func sqlite(_ statements: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path] + statements
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(statements)")
    }
}
