import Foundation
import TestSupport
import Testing

/// Issue 13's store faults, driven through the built binary: one busy timeout per write, a store
/// in an immutable directory, reads that create no file, a damaged store and `doctor`, argv that
/// is not UTF-8, and many writers at once.
@Suite struct StoreReliabilityTests {
    /// Folds the WAL into the database file and removes `-wal` and `-shm`, as the sqlite3 shell
    /// (or a copy of the bare file) leaves a store: python's sqlite3 does not keep them on close.
    static func foldWAL(_ path: String) throws {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("SELECT count(*) FROM sessions").fetchall()
            db.close()
            """
        let result = try runTool("/usr/bin/python3", ["-c", script, path])
        #expect(result.status == 0, "\(result)")
        for suffix in ["-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix) is still there")
        }
    }

    static func listing(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    static func chattr(_ flag: String, _ path: String) throws -> Int32 {
        try runTool("/usr/bin/chattr", [flag, path]).status
    }

    func recordedHome(responses: Int = 1) throws -> UserDebugHome {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        for _ in 0..<responses { try home.ok(["response", "record", "-"], stdin: Samples.loginResponse) }
        return home
    }

    // MARK: - One busy timeout per write

    /// README promises exit 75 after the busy timeout; each of three attempts used to wait it
    /// whole (15 s for the documented 5 s). The count of attempts is asserted without a clock in
    /// StoreFailureTests.aWriteWaitsOneBusyTimeoutNotOnePerAttempt; this is the CLI against the
    /// documented bound. The one time assertion of the suite, by decision: the budget B is 4 s
    /// and a write must give up before 2.5 B (10 s), where the old behaviour takes 3 B (12 s);
    /// the 6 s margin is far beyond what load adds to starting a static binary, and load can only
    /// make the old behaviour slower, never pass it.
    @Test func aWriteUnderAHeldLockGivesUpWithinOneBusyTimeout() throws {
        let home = try recordedHome()
        let holder = try WriteLockHolder(databasePath: home.databasePath)
        defer { holder.release() }
        let budget = 4.0
        let writes: [([String], String?)] = [
            (["session", "set", "--id", "changed"], nil), (["session", "use", "staging"], nil),
            (["session", "import", "-"], Samples.session), (["response", "record", "-"], Samples.loginResponse),
        ]
        let results = ResultBox(count: writes.count)
        DispatchQueue.concurrentPerform(iterations: writes.count) { index in
            let started = Date()
            let result = try? home.run(
                writes[index].0, stdin: writes[index].1.map { Data($0.utf8) },
                extraEnvironment: ["USERDEBUG_BUSY_TIMEOUT_MS": "\(Int(budget * 1000))"])
            results.set(index, result, Date().timeIntervalSince(started))
        }
        for (index, write) in writes.enumerated() {
            let (result, elapsed) = results.get(index)
            let run = try #require(result)
            #expect(run.status == 75, "\(write.0): \(run)")
            #expect(run.err.contains(home.databasePath), "\(write.0): \(run)")
            #expect(elapsed < 2.5 * budget, "\(write.0) gave up after \(elapsed) s, budget \(budget) s")
        }
    }

    // MARK: - Read-only and immutable stores

    @Test(.enabled(if: geteuid() == 0, "chattr +i needs root; CI runs as root"))
    func aStoreInAnImmutableDirectoryWithoutWALFilesRefusesWritesWith77AndReadsCreateNothing() throws {
        let home = try recordedHome()
        try Self.foldWAL(home.databasePath)
        let directory = (home.databasePath as NSString).deletingLastPathComponent
        try #require(try Self.chattr("+i", directory) == 0, "chattr +i failed: needs an ext4-like file system")
        defer { _ = try? Self.chattr("-i", directory) }
        let before = try Self.listing(directory)
        for arguments in [["session", "set", "--id", "changed"], ["session", "use", "staging"]] {
            let write = try home.run(arguments)
            #expect(write.status == 77, "\(arguments): \(write)")
            #expect(write.err.contains(home.databasePath) && write.err.contains("read-only"), "\(write)")
            #expect(!write.err.contains("No such file"), "\(write)")
        }
        let record = try home.run(["response", "record", "-"], stdin: Data(Samples.loginResponse.utf8))
        #expect(record.status == 77, "\(record)")
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")
        #expect(try home.ok(["response", "list"]).out.contains("/v1/login"))
        #expect(try Self.listing(directory) == before)
    }

    /// The read commands against a store without `-wal` and `-shm`: the data, and no new file.
    static let reads: [[String]] = [
        ["copy-id", "--to", "stdout"], ["dump-json", "--to", "stdout"],
        ["print-response", "--tag", "login", "--to", "stdout"], ["session", "show", "staging"],
        ["session", "list"], ["response", "list"], ["export", "har", "--to", "stdout"],
    ]

    @Test func aReadOfAStoreWithoutItsWALFilesCreatesNeither() throws {
        let home = try recordedHome()
        try Self.foldWAL(home.databasePath)
        for arguments in Self.reads {
            let result = try home.ok(arguments)
            #expect(!result.out.isEmpty, "\(arguments)")
            for suffix in ["-wal", "-shm"] {
                let made = FileManager.default.fileExists(atPath: home.databasePath + suffix)
                #expect(!made, "\(arguments) made \(suffix)")
            }
        }
        // And a write afterwards still finds everything.
        try home.ok(["response", "record", "-"], stdin: Samples.notFound)
        #expect(try home.ok(["response", "list"]).out.split(separator: "\n").count == 2)
    }

    /// The case the review found: another user's read of a root-owned 0644 store made `-wal` and
    /// `-shm` owned by that user. Their own directory, root's store file: nothing new appears
    /// (no `-current` copy either: the store is not theirs), and each read returns the data.
    @Test(.enabled(if: geteuid() == 0, "another user's read needs root to set up; CI runs as root"))
    func anotherUsersReadOfARootOwnedStoreCreatesNoFile() throws {
        let account = try TestUser.ensure()
        let home = try recordedHome()
        try Self.foldWAL(home.databasePath)
        let directory = (home.databasePath as NSString).deletingLastPathComponent
        chmod(home.databasePath, 0o644)
        for path in [home.root.path, directory] { chown(path, account.uid, account.gid) }
        let before = try Self.listing(directory)
        for arguments in Self.reads {
            let result = try runTool(
                TestUser.runningAs(account)[0],
                Array(TestUser.runningAs(account).dropFirst()) + [UserDebugHome.binary] + arguments,
                environment: home.environment)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.out.contains("usr_1") || result.out.contains("/v1/login"), "\(arguments): \(result)")
            #expect(try Self.listing(directory) == before, "\(arguments) created a file")
        }
    }

    // MARK: - A damaged store and doctor

    /// 8 KiB of garbage in the middle of a real store: over the middle leaf pages of the
    /// responses table (found with the sqlite3 shell's dbstat), so rows are lost for sure.
    func damagedHome() throws -> UserDebugHome {
        let home = try recordedHome(responses: 60)
        try Self.foldWAL(home.databasePath)
        let pages = try runTool(
            "/usr/bin/sqlite3",
            [
                "-readonly", home.databasePath,
                "SELECT pageno FROM dbstat WHERE name = 'responses' AND pagetype = 'leaf' ORDER BY pageno",
            ])
        let leaves = pages.out.split(separator: "\n").compactMap { Int($0) }
        try #require(leaves.count >= 4, "\(pages)")
        let handle = try #require(FileHandle(forUpdatingAtPath: home.databasePath))
        try handle.seek(toOffset: UInt64((leaves[leaves.count / 2] - 1) * 4096))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8192))
        try handle.close()
        return home
    }

    @Test func doctorReportsADamagedStoreWithItsOwnStatusAndSalvagesWhatIsReadable() throws {
        let home = try damagedHome()
        let fingerprint = try Data(contentsOf: URL(fileURLWithPath: home.databasePath))
        let text = try home.run(["doctor"])
        #expect(text.status == 74, "\(text)")
        #expect(text.out.contains("DAMAGED") && text.out.contains("--salvage"), "\(text)")
        #expect(text.out.contains("responses"), "names the damaged table: \(text)")
        let json = try home.run(["doctor", "--json"])
        #expect(json.status == 74, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let store = try #require(object["store"] as? [String: Any])
        #expect(store["state"] as? String == "damaged")
        #expect((store["problems"] as? [String])?.isEmpty == false)

        let salvaged = home.root.appendingPathComponent("salvaged/userdebug.sqlite3").path
        try FileManager.default.createDirectory(
            atPath: (salvaged as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let salvage = try home.run(["doctor", "--salvage", salvaged])
        #expect(salvage.status == 0, "\(salvage)")
        #expect(salvage.err.contains("kept 1 sessions"), "\(salvage)")
        #expect(!salvage.err.contains(" 0 rows or places could not be read"), "\(salvage)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.databasePath)) == fingerprint, "the store was changed")
        #expect(try home.run(["doctor", "--salvage", salvaged]).status == 77, "an existing file is never replaced")

        // The salvaged store is whole, and holds the readable responses (some of the 60).
        let rescued = try UserDebugHome()
        try FileManager.default.createDirectory(
            atPath: rescued.root.appendingPathComponent("data").path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: salvaged, toPath: rescued.databasePath)
        // No display here: the desktop line is the first problem (69); the store is whole.
        #expect(try rescued.doctor(status: 69).out.contains("ok (integrity check passed)"))
        let listed = try rescued.ok(["response", "list", "--limit", "0"]).out.split(separator: "\n").count
        #expect(listed > 0 && listed < 60, "\(listed) responses")
        #expect(try rescued.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")
        #expect(try rescued.ok(["print-response", "--tag", "login", "--to", "stdout"]).out.contains("usr_1"))
    }

    /// Issue 25, item 12: a write that touches none of the damaged pages used to commit into the
    /// damaged file (exit 0) while reads failed with 74. Every write command now refuses with 74
    /// naming doctor, and leaves the file as it was; an intact store keeps its health stamp, so
    /// later writes do not check every page again.
    @Test func writesRefuseADamagedStoreNamingDoctorAndChangeNothing() throws {
        let home = try damagedHome()
        let stamp = home.databasePath + "-checked"
        let before = try Data(contentsOf: URL(fileURLWithPath: home.databasePath))
        let writes: [([String], String?)] = [
            (["session", "set", "--session", "other", "--id", "usr_2"], nil),
            (["session", "use", "staging"], nil),
            (["response", "record", "-"], Samples.loginResponse),
            (["session", "remove", "other"], nil),
        ]
        for (arguments, stdin) in writes {
            let result = try home.run(arguments, stdin: stdin.map { Data($0.utf8) })
            #expect(result.status == 74, "\(arguments): \(result)")
            #expect(result.err.contains(home.databasePath) && result.err.contains("userdebug doctor"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: stamp), "a damaged store keeps no stamp")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.databasePath)) == before, "the store was changed")
        let wal = try? FileManager.default.attributesOfItem(atPath: home.databasePath + "-wal")[.size] as? Int
        #expect((wal ?? 0) == 0, "nothing waits in the WAL either")

        // An intact store: the first write stamps it, the stamp follows the file after each write.
        let intact = try recordedHome()
        try intact.ok(["session", "set", "--session", "other", "--id", "usr_2"])
        let stamped = try String(contentsOfFile: intact.databasePath + "-checked", encoding: .utf8)
        #expect(stamped.hasPrefix("1 "), "\(stamped)")
        let mode = try FileManager.default.attributesOfItem(atPath: intact.databasePath + "-checked")[.posixPermissions]
        #expect(mode as? Int == 0o600)
        try intact.ok(["session", "use", "other"])
        #expect(try intact.ok(["copy-id", "--to", "stdout"]).out == "usr_2\n")
    }

    @Test func doctorSaysAnIntactStoreIsOkAndNoStoreIsNone() throws {
        let empty = try UserDebugHome()
        let none = try empty.doctor(status: 66)
        #expect(none.out.contains("store: \(empty.databasePath) — none yet"), "\(none)")
        let home = try recordedHome()
        #expect(try home.doctor(status: 69).out.contains("ok (integrity check passed)"))
    }

    // MARK: - argv that is not UTF-8

    /// Runs the binary with arguments given as bash words, so that `$'\xff'` reaches argv as the
    /// byte (Foundation's Process takes Swift strings, which cannot hold it).
    func runBash(_ home: UserDebugHome, _ words: String) throws -> RunResult {
        try runTool("/bin/bash", ["-c", "exec \"$0\" " + words, UserDebugHome.binary], environment: home.environment)
    }

    @Test func argumentsThatAreNotUTF8AreExit65NamingThem() throws {
        let home = try recordedHome()
        let cases: [(String, String)] = [
            (#"session set --id $'\xff'"#, "--id"), (#"session set --id=$'us\xc3r'"#, "--id"),
            (#"session show $'st\xffaging'"#, "argument 3"), (#"print-response --tag $'\xe2\x82'"#, "--tag"),
        ]
        for (words, named) in cases {
            let result = try runBash(home, words)
            #expect(result.status == 65, "\(words): \(result)")
            #expect(result.err.contains(named) && result.err.contains("not valid UTF-8"), "\(words): \(result)")
        }
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n", "nothing was recorded")
        // Valid UTF-8 beyond ASCII still passes.
        #expect(try runBash(home, #"session set --id $'us\xc3\xa9r'"#).status == 0)
    }

    // MARK: - Many writers at once

    /// 8 writers × 2,000 `response record`ed responses at once (160 processes contending for the
    /// write lock); every row is there afterwards, none twice. See `StoreScenario` for why the
    /// 2,000 go in batches of 100.
    @Test func eightProcessesRecordingTwoThousandResponsesEachLoseNothing() throws {
        let home = try recordedHome(responses: 0)
        // Above the default retention of 10,000 responses, which would drop the oldest.
        try home.file("config/config.json", #"{"retention": {"maxResponses": null}}"#)
        let writers = 8
        let perWriter = 2000
        try StoreScenario.recordInParallel(home: home, writers: writers, perWriter: perWriter, calls: 20)
        let urls = try home.ok(["response", "list", "--limit", "0"]).out.split(separator: "\n")
        #expect(urls.count == writers * perWriter)
        var seen = Set<String>()
        for line in urls {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if let url = object?["url"] as? String { seen.insert(url) }
        }
        #expect(seen.count == writers * perWriter, "\(seen.count) distinct of \(urls.count)")
    }
}

/// A real second writer: python's sqlite3 holding `BEGIN IMMEDIATE` on the store until released.
final class WriteLockHolder {
    let process = Process()

    init(databasePath: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            time.sleep(60)
            """, databasePath,
        ]
        let ready = Pipe()
        process.standardOutput = ready
        try process.run()
        let line = ready.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).hasPrefix("locked") else {
            release()
            throw FixtureError(message: "python3 did not take the write lock")
        }
    }

    /// Kills the holder (by its pid) and waits for it.
    func release() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// Results written from `concurrentPerform`'s threads.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [(RunResult?, Double)]

    init(count: Int) { results = Array(repeating: (nil, 0), count: count) }

    func set(_ index: Int, _ result: RunResult?, _ elapsed: Double) {
        lock.withLock { results[index] = (result, elapsed) }
    }

    func get(_ index: Int) -> (RunResult?, Double) { lock.withLock { results[index] } }
}

/// The parallel writers of the scenario test.
enum StoreScenario {
    /// Runs `writers` bash loops at once, each recording `perWriter` responses with URLs unique
    /// per writer and response, through `userdebug response record -` called `calls` times with
    /// a JSON array of `perWriter / calls` responses each (one process and one transaction per
    /// call). Not one process per response: on this machine every write process pays about
    /// 0.1 s of fdatasync (SQLite's checkpoint when its connection closes), so 16,000 of them take
    /// half an hour serialized on the write lock; 160 processes contend for the lock as hard and
    /// fit in a test. bash starts them (a fork of bash is cheaper than `Process`). Every loop
    /// must end with 0.
    static func recordInParallel(home: UserDebugHome, writers: Int, perWriter: Int, calls: Int) throws {
        let script = """
            per=$(( $2 / $3 ))
            for call in $(seq 0 $(( $3 - 1 ))); do
              { printf '['
                for i in $(seq 1 "$per"); do
                  [ "$i" -gt 1 ] && printf ','
                  printf '{"request":{"method":"GET","url":"https://api.example.com/items/%s-%s"},"response":{"status":200}}' "$1" $(( call * per + i ))
                done
                printf ']'
              } | "$0" response record - >/dev/null || { echo "writer $1 call $call failed" >&2; exit 1; }
            done
            """
        // Generous for 8 writers on two loaded cores; a write that still waits this long is a bug.
        let environment = home.environment.merging(["USERDEBUG_BUSY_TIMEOUT_MS": "120000"]) { $1 }
        let results = ResultBox(count: writers)
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            let result = try? runTool(
                "/bin/bash", ["-c", script, UserDebugHome.binary, "\(writer)", "\(perWriter)", "\(calls)"],
                environment: environment)
            results.set(writer, result, 0)
        }
        for writer in 0..<writers {
            let result = results.get(writer).0
            #expect(result?.status == 0, "writer \(writer): \(result.map { "\($0)" } ?? "did not run")")
        }
    }
}
