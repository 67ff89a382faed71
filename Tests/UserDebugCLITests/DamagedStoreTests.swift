import Foundation
import Testing

/// A store that is damaged, not ours, or locked: a typed error naming the file and its own exit
/// status — never a crash, a hang or a silent success.
@Suite struct DamagedStoreTests {
    func recordedHome() throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        for _ in 0..<50 { try home.ok(["response", "record", "-"], stdin: Samples.loginResponse) }
        return home
    }

    @Test func aTextFileInPlaceOfTheStoreIsNotADatabase() throws {
        let home = try UserDebugHome()
        try home.file("data/userdebug.sqlite3", String(repeating: "this is not a database\n", count: 100))
        let result = try home.run(["copy-id"])
        #expect(result.status == 74, "\(result)")
        #expect(result.err.contains(home.databasePath))
    }

    @Test func aDirectoryInPlaceOfTheStoreIsReported() throws {
        let home = try UserDebugHome()
        try FileManager.default.createDirectory(atPath: home.databasePath, withIntermediateDirectories: true)
        for arguments in [["copy-id"], ["session", "set", "--id", "x"]] {
            let result = try home.run(arguments)
            #expect(result.status == 74, "\(result)")
            #expect(result.err.contains(home.databasePath))
        }
    }

    @Test func aTruncatedStoreIsReportedAsDamaged() throws {
        let home = try recordedHome()
        // Fold the WAL into the main file first so the truncation hits real pages.
        _ = try home.run(["session", "list"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: home.databasePath)[.size] as? Int)
        let handle = try #require(FileHandle(forWritingAtPath: home.databasePath))
        try handle.truncate(atOffset: UInt64(max(size / 3, 4096)))
        try handle.close()
        try? FileManager.default.removeItem(atPath: home.databasePath + "-wal")
        try? FileManager.default.removeItem(atPath: home.databasePath + "-shm")
        let result = try home.run(["response", "list", "--limit", "0"])
        #expect([74, 0].contains(result.status), "\(result)")
        if result.status == 74 { #expect(result.err.contains(home.databasePath)) }
        let write = try home.run(["response", "record", "-"], stdin: Data(Samples.loginResponse.utf8))
        #expect(write.status == 74, "\(write)")
        #expect(write.err.contains(home.databasePath))
    }

    @Test func aStoreWithGarbageOverItsPagesIsReportedAsCorrupt() throws {
        let home = try recordedHome()
        let handle = try #require(FileHandle(forUpdatingAtPath: home.databasePath))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8192))
        try handle.close()
        let result = try home.run(["response", "list", "--limit", "0"])
        #expect(result.status == 74, "\(result)")
        #expect(result.err.contains(home.databasePath))
        #expect(result.err.contains("run userdebug doctor"), "says what to do: \(result)")
    }

    @Test func aWriterHoldingTheLockMakesWritesFailWithLockedButReadsStillAnswer() throws {
        let home = try recordedHome()
        let holder = try WriteLockHolder(databasePath: home.databasePath)
        defer { holder.release() }
        let read = try home.run(["copy-id"])
        #expect(read.status == 0, "\(read)")
        #expect(read.out == "usr_1\n")
        let write = try home.run(
            ["session", "set", "--id", "changed"], extraEnvironment: ["USERDEBUG_BUSY_TIMEOUT_MS": "300"])
        #expect(write.status == 75, "\(write)")
        #expect(write.err.contains(home.databasePath))
        #expect(try home.ok(["copy-id"]).out == "usr_1\n")
    }
}

/// A store the user may not write (an immutable file: chmod does not stop root, chattr +i does).
@Suite struct ReadOnlyStoreTests {
    @Test func writesToAnImmutableStoreAreExit77NamingTheFileAndReadsStillWork() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let chattr = { (flag: String) throws -> Int32 in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
            process.arguments = [flag, home.databasePath]
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        try #require(try chattr("+i") == 0, "chattr +i failed: the test needs root and an ext4-like file system")
        defer { _ = try? chattr("-i") }
        let write = try home.run(["session", "set", "--id", "changed"])
        #expect(write.status == 77, "\(write)")
        #expect(write.err.contains(home.databasePath))
        #expect(try home.ok(["copy-id"]).out == "usr_1\n")
    }
}
