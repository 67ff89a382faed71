import Foundation
import Testing

@testable import UserDebugKit

/// A broken store and the error every use of it must give.
struct BrokenStore: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: String
    let make: @Sendable (String) throws -> Void
    var testDescription: String { name }

    /// A real store with enough responses to span many pages, closed so the WAL is checkpointed.
    static func realStore(_ path: String) throws {
        let store = try SessionStore.open(path: path, mode: .readWrite)
        try store.saveSession(StoreSamples.session(), makeCurrent: true)
        try store.record(
            (0..<60).map { _ in StoreSamples.response(body: Array(repeating: 1, count: 3000)) }, session: nil)
    }

    static func write(_ bytes: [UInt8], to path: String, at offset: Int) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }

    static let all: [BrokenStore] = [
        BrokenStore(name: "a text file", expected: "notADatabase") { path in
            #expect(
                FileManager.default.createFile(
                    atPath: path, contents: Data(String(repeating: "not a database\n", count: 500).utf8)))
        },
        BrokenStore(name: "a directory", expected: "isDirectory") { path in
            #expect(mkdir(path, 0o700) == 0)
        },
        BrokenStore(name: "random bytes after a valid header", expected: "corrupt") { path in
            try realStore(path)
            let size = Int(try #require(FileStatus(path: path)).size)
            // A fixed-seed generator, so a failure can be reproduced byte for byte.
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let noise = (100..<size).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            try write(noise, to: path, at: 100)
        },
        BrokenStore(name: "a truncated file", expected: "corrupt") { path in
            try realStore(path)
            #expect(truncate(path, 3 * 4096) == 0)
        },
        BrokenStore(name: "another program's SQLite database", expected: "incompatible") { path in
            try realStore(path)
            let store = try SessionStore.open(path: path, mode: .readWrite)
            try store.database.execute(
                "PRAGMA user_version = 0; DROP TABLE current_session; CREATE TABLE invoices (id INTEGER)")
        },
        BrokenStore(name: "a store of a newer userdebug", expected: "incompatible") { path in
            try realStore(path)
            let store = try SessionStore.open(path: path, mode: .readWrite)
            try store.database.execute("PRAGMA user_version = 99")
        },
    ]
}

/// An open mode, named in test output.
struct OpenMode: Sendable, CustomTestStringConvertible {
    let mode: SessionStore.Mode
    var testDescription: String { mode == .readOnly ? "read-only" : "read-write" }
    static let both = [OpenMode(mode: .readOnly), OpenMode(mode: .readWrite)]
}

@Suite struct StoreFailureTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Opens the store and reads everything in it; the first error is the one a user would see.
    func use(_ path: String, _ mode: SessionStore.Mode) throws(StoreError) {
        let store = try SessionStore.open(path: path, mode: mode, busyTimeoutMilliseconds: 20)
        _ = try store.sessions()
        _ = try store.responses(ResponseQuery())
    }

    @Test(arguments: BrokenStore.all, OpenMode.both)
    func aBrokenStoreGivesItsTypedErrorNamingTheFile(_ broken: BrokenStore, _ mode: OpenMode) throws {
        let path = directory.file("userdebug.sqlite3")
        try broken.make(path)

        do {
            try use(path, mode.mode)
            Issue.record("\(broken.name) was read without an error")
        } catch {
            #expect(caseName(error) == broken.expected, "\(error)")
            #expect(error.description.contains(path))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func aBrokenStoreIsNeverOverwrittenByAWriter() throws {
        let path = directory.file("userdebug.sqlite3")
        let text = Data("name,email\nzoë,z@example.com\n".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: text))

        #expect(throws: StoreError.notADatabase(path: path)) { try SessionStore.open(path: path, mode: .readWrite) }
        #expect(FileManager.default.contents(atPath: path) == text)
    }

    /// A store with one response and a second connection holding the write lock, as the app does
    /// in the middle of a transaction.
    func storeWithHeldWriteLock() throws -> (path: String, holder: SessionStore) {
        let path = directory.file("userdebug.sqlite3")
        let holder = try SessionStore.open(path: path, mode: .readWrite)
        try holder.saveSession(StoreSamples.session(), makeCurrent: true)
        try holder.record(StoreSamples.response(tags: ["login"]), session: nil)
        try holder.database.execute("BEGIN IMMEDIATE; DELETE FROM responses")
        return (path, holder)
    }

    @Test func aWriterWaitingPastTheBusyTimeoutFailsAsBusy() throws {
        let (path, holder) = try storeWithHeldWriteLock()
        defer { try? holder.database.execute("ROLLBACK") }
        let writer = try SessionStore.open(path: path, mode: .readWrite, busyTimeoutMilliseconds: 10)

        #expect(throws: StoreError.busy(path: path)) { try writer.record(StoreSamples.response(), session: nil) }
        #expect(throws: StoreError.busy(path: path)) { try writer.useSession("staging") }
    }

    /// Issue 13: each attempt used to wait the whole busy timeout, three attempts in all. The
    /// attempts are counted rather than timed (no time asserts on a loaded machine): SQLite's busy
    /// handler sleeps the whole timeout it is given, so once it gave up nothing of the one budget
    /// is left and the write must not start over.
    @Test func aWriteWaitsOneBusyTimeoutNotOnePerAttempt() throws {
        let (path, holder) = try storeWithHeldWriteLock()
        defer { try? holder.database.execute("ROLLBACK") }
        let writer = try SessionStore.open(path: path, mode: .readWrite, busyTimeoutMilliseconds: 300)

        #expect(throws: StoreError.busy(path: path)) { try writer.record(StoreSamples.response(), session: nil) }
        #expect(writer.database.lastWriteAttempts == 1)
        #expect(throws: StoreError.busy(path: path)) { try writer.useSession("staging") }
        #expect(writer.database.lastWriteAttempts == 1)
    }

    @Test func aReadUnderAHeldWriteLockAnswersWithTheCommittedState() throws {
        let (path, holder) = try storeWithHeldWriteLock()
        defer { try? holder.database.execute("ROLLBACK") }
        let reader = try SessionStore.open(path: path, mode: .readOnly, busyTimeoutMilliseconds: 10)

        #expect(try reader.responses(ResponseQuery(tag: "login", limit: 1)).count == 1)
        #expect(try reader.currentSession()?.name == "staging")
        #expect(try reader.responseCount(session: nil) == 1)
    }

    @Test func aWriterGetsTheLockOnceTheHolderCommits() throws {
        let (path, holder) = try storeWithHeldWriteLock()
        let writer = try SessionStore.open(path: path, mode: .readWrite, busyTimeoutMilliseconds: 10)
        #expect(throws: StoreError.busy(path: path)) { try writer.record(StoreSamples.response(), session: nil) }
        try holder.database.execute("COMMIT")

        try writer.record(StoreSamples.response(), session: nil)
        #expect(try writer.responseCount(session: nil) == 1)
    }

    /// Every error's message is one line that names the file (or the session) it is about.
    static let messages: [(StoreError, String)] = [
        (
            .missing(path: "/s/u.db"),
            "no store yet at /s/u.db; record a session first: userdebug session import FILE (a session JSON)"
        ),
        (.busy(path: "/s/u.db"), "/s/u.db is locked by another writer; try again when it has finished"),
        (.noSuchSession("prod"), "no session named \"prod\"; list them with: userdebug session list"),
        (
            .sqlite(path: "/s/u.db", code: 1, message: "boom", sql: "SELECT\n1"),
            "SQLite error 1 on /s/u.db: boom (while running: SELECT 1)"
        ),
    ]

    @Test(arguments: messages)
    func anErrorMessageIsOneLineNamingWhatItIsAbout(_ error: StoreError, _ message: String) {
        #expect(error.description == message)
    }
}
