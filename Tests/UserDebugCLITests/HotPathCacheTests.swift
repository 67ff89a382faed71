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

    /// The files `copy-id` opens, by `strace -f -e trace=openat`.
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
            return String(line[line.index(after: first)..<last])
        }
        return (result, files)
    }

    @Test func onceSettledCopyIdReadsTheCopyAndNotTheStore() throws {
        usleep(150_000)
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")  // a miss: reads the store, writes the copy
        let copy = home.databasePath + "-current"
        #expect(FileManager.default.fileExists(atPath: copy))
        let (result, files) = try openedFiles(["copy-id", "--to", "stdout"])
        #expect(result.status == 0, "\(result)")
        #expect(result.out == "usr_1\n")
        #expect(files.contains(copy), "\(files)")
        #expect(!files.contains(home.databasePath), "\(files)")
        // The same answer as the store's, field for field.
        #expect(try home.ok(["dump-json", "--to", "stdout", "--reveal"]).out == (try home.ok(["dump-json", "--to", "stdout", "--reveal", "--session", "staging"]).out))
        // --session always reads the store.
        #expect(try openedFiles(["copy-id", "--to", "stdout", "--session", "staging"]).files.contains(home.databasePath))
    }

    @Test func everyWriteIsSeenByTheVeryNextCommand() throws {
        usleep(150_000)
        #expect(try home.ok(["copy-id", "--to", "stdout"]).out == "usr_1\n")
        for round in 0..<12 {
            let id = "usr_r\(round)"
            switch round % 3 {
            case 0:  // the CLI
                try home.ok(["session", "import", "-"], stdin: #"{"name": "s\#(round)", "user": {"identifier": "\#(id)"}}"#)
            case 1:  // another program on the store
                let sql = "UPDATE sessions SET user_identifier = '\(id)' WHERE id = (SELECT session_id FROM current_session)"
                #expect(try runTool("/usr/bin/sqlite3", [home.databasePath, sql], environment: home.environment).status == 0)
            default:  // switching the current session
                try home.ok(["session", "import", "-"], stdin: #"{"name": "other\#(round)", "user": {"identifier": "\#(id)"}}"#)
                try home.ok(["session", "use", "staging"])
                try home.ok(["session", "use", "other\(round)"])
            }
            #expect(try home.ok(["copy-id", "--to", "stdout"]).out == id + "\n", "round \(round), at once")
            usleep(150_000)  // settled: this one writes the copy, the next round must not see it
            #expect(try home.ok(["copy-id", "--to", "stdout"]).out == id + "\n", "round \(round), settled")
            #expect(try home.ok(["copy-id", "--to", "stdout"]).out == id + "\n", "round \(round), from the copy")
        }
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
