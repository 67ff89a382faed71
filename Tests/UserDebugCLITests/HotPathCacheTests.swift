import Foundation
import Testing

/// The hotkey path reads the copy of the current session beside the store (no SQLite) once the
/// store has settled, and never prints anything stale: every write through the CLI, another
/// process or the sqlite3 shell is seen by the very next command.
@Suite struct HotPathCacheTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    /// The files the command opens the way SQLite does, by `strace -f -e trace=openat`. The
    /// fingerprint's own small reads of the database, -wal and -shm headers open with O_NONBLOCK
    /// and are left out.
    func openedFiles(_ arguments: [String]) throws -> (result: RunResult, files: [String]) {
        let trace = home.root.appendingPathComponent("openat.trace").path
        let result = try runTool(
            "/usr/bin/strace", ["-f", "-qq", "-o", trace, "-e", "trace=openat", UserDebugHome.binary] + arguments,
            environment: home.environment)
        let lines = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
        let files = lines.split(separator: "\n").compactMap { line -> String? in
            guard let open = line.range(of: "openat("), let first = line[open.upperBound...].firstIndex(of: "\""),
                let last = line[line.index(after: first)...].firstIndex(of: "\"")
            else { return nil }
            let path = String(line[line.index(after: first)..<last])
            let ownHeaderRead =
                line.contains("O_NONBLOCK") && path.hasPrefix(home.databasePath) && !path.hasSuffix("-current")
            return ownHeaderRead ? nil : path
        }
        return (result, files)
    }

    @Test func onceSettledCopyIdReadsTheCopyAndNotTheStore() throws {
        usleep(150_000)
        // a miss: reads the store, writes the copy
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")
        let copy = home.databasePath + "-current"
        #expect(FileManager.default.fileExists(atPath: copy))
        let (result, files) = try openedFiles(["copy-id", "--to", "stdout"])
        #expect(result.status == 0, "\(result)")
        #expect(result.out == "usr_1\n")
        #expect(files.contains(copy), "\(files)")
        #expect(!files.contains(home.databasePath), "\(files)")
        // The same answer as the store's, field for field.
        #expect(
            try home.ok(["dump-json", "--to", "stdout", "--reveal"]).out
                == (try home.ok(["dump-json", "--to", "stdout", "--reveal", "--session", "staging"]).out))
        // --session always reads the store.
        #expect(
            try openedFiles(["copy-id", "--to", "stdout", "--session", "staging"]).files.contains(home.databasePath))
    }

    @Test func everyWriteIsSeenByTheVeryNextCommand() throws {
        usleep(150_000)
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")
        for round in 0..<12 {
            let id = "usr_r\(round)"
            switch round % 3 {
            case 0:  // the CLI
                try home.ok(
                    ["session", "import", "-"], stdin: #"{"name": "s\#(round)", "user": {"identifier": "\#(id)"}}"#)
            case 1:  // another program on the store
                let sql =
                    "UPDATE sessions SET user_identifier = '\(id)' WHERE id = (SELECT session_id FROM current_session)"
                #expect(
                    try runTool("/usr/bin/sqlite3", [home.databasePath, sql], environment: home.environment).status == 0
                )
            default:  // switching the current session
                try home.ok(
                    ["session", "import", "-"], stdin: #"{"name": "other\#(round)", "user": {"identifier": "\#(id)"}}"#)
                try home.ok(["session", "use", "staging"])
                try home.ok(["session", "use", "other\(round)"])
            }
            #expect(try home.ok(["copy-id", "--to", "stdout"]).out == id + "\n", "round \(round), at once")
            usleep(150_000)  // settled: this one writes the copy, the next round must not see it
            #expect(try home.ok(["copy-id", "--to", "stdout"]).out == id + "\n", "round \(round), settled")
            #expect(try home.ok(["copy-id", "--to", "stdout"]).out == id + "\n", "round \(round), from the copy")
        }
    }

    /// Runs a bash script with this home's environment, `UD` the binary, `DB` the store; the
    /// script's stdout, trimmed.
    func script(_ body: String) throws -> String {
        let full = """
            set -u
            UD=\(UserDebugHome.binary)
            DB=\(home.databasePath)
            hold() { python3 -c 'import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1]); c.execute("select 1 from sessions").fetchall(); time.sleep(30)' "$DB" & HOLDER=$!; sleep 0.3; }
            \(body)
            kill -9 $HOLDER 2>/dev/null; wait 2>/dev/null
            """
        let result = try runTool(
            "/usr/bin/timeout", ["-s", "KILL", "60", "/bin/bash", "-c", full], environment: home.environment)
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The app holds the store open (so nothing checkpoints), and a writer pauses between
    /// appending its commit to the WAL and publishing it in the -shm (strace delays its WAL
    /// writes): a copy-id meanwhile sees the old session (so does SQLite), and the commands after
    /// it see the new one, never a copy of the old.
    @Test func aCommitPausedBeforeItIsPublishedIsNeverHiddenByTheCopy() throws {
        let out = try script(
            """
            echo '{"name": "t", "user": {"identifier": "usr_2"}}' | $UD session import - -q
            $UD session use staging -q
            hold
            $UD copy-id --to stdout >/dev/null; sleep 0.15; $UD copy-id --to stdout >/dev/null
            strace -f -qq -o /dev/null -P "$DB-wal" -e trace=pwrite64 -e inject=pwrite64:delay_exit=3000000 $UD session use t -q &
            WRITER=$!
            # One changed page: the WAL header and one frame (24 + 4096 bytes); the writer then
            # pauses 3 s after its last WAL write, before it publishes the commit: the copy-id
            # below runs in that pause even on a loaded machine (0.4 s was too short at load 14).
            until [ "$(stat -c %s "$DB-wal")" -ge 4152 ]; do sleep 0.005; done
            echo "during $($UD copy-id --to stdout)"
            wait $WRITER
            sleep 0.2
            echo "after $($UD copy-id --to stdout) $($UD copy-id --to stdout)"
            """)
        #expect(out == "during usr_1\nafter usr_2 usr_2", "\(out)")
    }

    /// A writer killed after its commit reached the WAL but before it was published, then the app
    /// killed too: the next SQLite open recovers the commit, and so must the next copy-id.
    @Test func aCommitRecoveredAfterAWriterDiedIsNeverHiddenByTheCopy() throws {
        let out = try script(
            """
            hold
            $UD copy-id --to stdout >/dev/null; sleep 0.15; $UD copy-id --to stdout >/dev/null
            strace -f -qq -o /dev/null -e trace=fdatasync -e inject=fdatasync:delay_exit=3000000 \\
              sqlite3 "$DB" "UPDATE sessions SET user_identifier = 'usr_2'" &
            WRITER=$!
            until [ "$(stat -c %s "$DB-wal")" -gt 32 ]; do sleep 0.005; done
            sleep 0.1
            kill -9 $(cat /proc/$WRITER/task/*/children) $WRITER; wait $WRITER 2>/dev/null
            sleep 0.15
            echo "app alive $($UD copy-id --to stdout)"
            kill -9 $HOLDER; wait $HOLDER 2>/dev/null
            sleep 0.2
            echo "app gone $($UD copy-id --to stdout) $($UD copy-id --to stdout) $(sqlite3 "$DB" 'select user_identifier from sessions')"
            """)
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(out)")
        // While the app lives the commit is not visible to SQLite either; once it is recovered,
        // every copy-id sees what SQLite sees.
        #expect(lines.last == "app gone usr_2 usr_2 usr_2", "\(out)")
    }

    /// A store whose database file is a symbolic link: SQLite keeps -wal and -shm beside the
    /// target, so the hot path does not keep a copy at all.
    @Test func aSymlinkedStoreIsAlwaysReadFromSQLite() throws {
        let elsewhere = home.root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let out = try script(
            """
            echo '{"name": "t", "user": {"identifier": "usr_2"}}' | $UD session import - -q
            $UD session use staging -q
            mv "$DB" "\(elsewhere.path)/store.sqlite3"; rm -f "$DB-wal" "$DB-shm" "$DB-current"
            ln -s "\(elsewhere.path)/store.sqlite3" "$DB"
            hold
            $UD copy-id --to stdout >/dev/null; sleep 0.15; $UD copy-id --to stdout >/dev/null
            $UD session use t -q
            echo "$($UD copy-id --to stdout) $([ -e "$DB-current" ] && echo copy || echo no-copy)"
            sleep 0.2
            echo "$($UD copy-id --to stdout)"
            """)
        #expect(out == "usr_2 no-copy\nusr_2", "\(out)")
    }

    @Test func aLooseStoreIsStillReportedOnTheCopysPath() throws {
        usleep(150_000)
        try home.ok(["copy-id", "--to", "stdout"])
        chmod(home.root.appendingPathComponent("data").path, 0o755)
        let result = try home.run(["copy-id", "--to", "stdout"])
        #expect(result.status == 0)
        #expect(result.err.contains("0755"), "\(result)")
    }
}
