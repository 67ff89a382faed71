import Foundation
import TestSupport
import Testing

/// Files that someone else could have put in place or can change are never trusted: a home,
/// store directory, store file, state directory or config owned by another user or writable by
/// group or others is refused (77, 78 for the config) before anything is read from it or written
/// to it, as ssh refuses such a `~/.ssh`; so is a program named in the config that another user
/// owns or may change. `--body-file` never follows a link nor writes into another user's file.
@Suite struct ForeignFilesTests {
    /// Everything under `root` (links not followed) whose bytes hold `needle`.
    static func files(containing needle: String, under root: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
                let bytes = FileManager.default.contents(atPath: path)
            else { continue }
            if bytes.range(of: Data(needle.utf8)) != nil { found.append(path) }
        }
        return found
    }

    /// Hands `root` and everything under it to `uid` (links themselves, not their targets).
    static func chownTree(_ root: String, to uid: uid_t, _ gid: gid_t) {
        lchown(root, uid, gid)
        guard let walker = FileManager.default.enumerator(atPath: root) else { return }
        while let relative = walker.nextObject() as? String { lchown(root + "/" + relative, uid, gid) }
    }

    /// Sets `mode` on every directory and regular file under `root`: `directory` and `file`.
    static func chmodTree(_ root: String, directory: mode_t, file: mode_t) {
        chmod(root, directory)
        guard let walker = FileManager.default.enumerator(atPath: root) else { return }
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: chmod(path, directory)
            case S_IFREG: chmod(path, (status.st_mode & 0o111) != 0 ? file | 0o111 : file)
            default: break
            }
        }
    }

    /// A whole userdebug home prepared by the other user: a store with a current session, a
    /// config whose backend.curl is their script (it leaves `marker` and keeps its stdin in
    /// `stolen` when run). Returns the home's path.
    static func hostileHome(in home: UserDebugHome, owner: TestUser.Account, looseModes: Bool) throws -> String {
        let theirs = home.root.appendingPathComponent("theirs").path
        var environment = home.environment
        environment["USERDEBUG_HOME"] = theirs
        let session = #"{"name": "theirs", "user": {"identifier": "usr_theirs"}, "baseURL": "http://127.0.0.1:9"}"#
        #expect(
            try runTool(
                UserDebugHome.binary, ["session", "import", "-"], stdin: Data(session.utf8), environment: environment
            ).status == 0)
        let script = "#!/bin/sh\ntouch '\(theirs)/marker'\ncat > '\(theirs)/stolen'\n"
        try home.file("theirs/bin/curl", script)
        try home.file("theirs/config/config.json", #"{"backend": {"path": "/me", "curl": "\#(theirs)/bin/curl"}}"#)
        chmod(theirs + "/bin/curl", 0o755)
        chmodTree(theirs, directory: looseModes ? 0o777 : 0o700, file: looseModes ? 0o666 : 0o600)
        chownTree(theirs, to: owner.uid, owner.gid)
        return theirs
    }

    @Test(
        .enabled(if: geteuid() == 0, "another user's files need root to set up; CI runs as root"),
        arguments: [true, false])
    func anotherUsersHomeBehindASymlinkIsRefusedAndGetsNothing(looseModes: Bool) throws {
        let owner = try TestUser.ensure()
        let home = try UserDebugHome()
        let theirs = try Self.hostileHome(in: home, owner: owner, looseModes: looseModes)
        let link = home.root.appendingPathComponent("link").path
        #expect(symlink(theirs, link) == 0)
        home.environment["USERDEBUG_HOME"] = link
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        let attempts: [([String], String?)] = [
            (["session", "import", "-"], Samples.session),
            (["response", "record", "-"], Samples.loginResponse),
            (["menu", "--json"], nil),
            (["run", "backend.body"], nil),
            (["copy-id", "--to", "stdout"], nil),
            (["copy-token", "--to", "stdout"], nil),
            (["export", "curl", "--to", "stdout"], nil),
            (
                [
                    "capture", "--", "curl", "-s", "-H", "Authorization: Bearer \(Samples.canary)",
                    server.baseURL + "/me",
                ], nil
            ),
        ]
        for (arguments, stdin) in attempts {
            let result = try home.run(arguments, stdin: stdin.map { Data($0.utf8) })
            #expect([77, 78].contains(result.status), "\(arguments): \(result)")
            #expect(result.err.contains(theirs), "the refusal names the path: \(arguments): \(result)")
            #expect(
                result.err.contains("chown") || result.err.contains("chmod"), "and the fix: \(arguments): \(result)")
            #expect(!result.out.contains(Samples.canary) && !result.err.contains(Samples.canary))
        }
        #expect(!FileManager.default.fileExists(atPath: theirs + "/marker"), "their backend.curl ran")
        #expect(Self.files(containing: Samples.canary, under: theirs).isEmpty)
        #expect(try server.requests().isEmpty, "capture ran curl into their home")
    }

    /// The other side: an unprivileged user is refused a home that yet another user owns and
    /// anyone may write, and is not refused one of its own.
    @Test(.enabled(if: geteuid() == 0, "switching to another uid needs root; CI runs as root"))
    func anUnprivilegedUserIsRefusedAStrangersHomeAndServedItsOwn() throws {
        let account = try TestUser.ensure()
        let home = try UserDebugHome()
        let own = home.root.appendingPathComponent("own").path
        let strangers = home.root.appendingPathComponent("strangers").path
        for directory in [own, strangers] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        chown(own, account.uid, account.gid)
        chmod(own, 0o700)
        chown(strangers, 4242, 4242)
        chmod(strangers, 0o777)
        var environment = home.environment
        for (directory, expected) in [(own, Int32(0)), (strangers, 77)] {
            environment["USERDEBUG_HOME"] = directory
            environment["HOME"] = directory
            let result = try runTool(
                TestUser.runningAs(account)[0],
                Array(TestUser.runningAs(account).dropFirst()) + [UserDebugHome.binary, "session", "import", "-"],
                stdin: Data(Samples.session.utf8), environment: environment)
            #expect(result.status == expected, "\(directory): \(result)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: strangers).isEmpty, "nothing is created there")
    }

    @Test func aConfigOthersMayWriteIsExit78NamingIt() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let path = try home.file("config/config.json", #"{"output": {"defaultTarget": "stdout"}}"#)
        chmod(path, 0o666)
        for arguments in [["copy-id"], ["menu", "--json"], ["dump-json"]] {
            let result = try home.run(arguments)
            #expect(result.status == 78, "\(arguments): \(result)")
            #expect(result.err.contains(path) && result.err.contains("chmod"), "\(result)")
        }
        chmod(path, 0o644)
        #expect(try home.ok(["copy-id"]).out == "usr_1\n")
    }

    @Test(arguments: [
        ("data", mode_t(0o770)), ("data", 0o707), ("data/userdebug.sqlite3", 0o666), ("data/userdebug.sqlite3", 0o620),
    ])
    func aStoreDirectoryOrFileOthersMayWriteIsExit77(_ relative: String, mode: mode_t) throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        usleep(150_000)
        try home.ok(["copy-id", "--to", "stdout"])  // the hotkey path's copy of the session is in place
        let path = home.root.appendingPathComponent(relative).path
        chmod(path, mode)
        for (arguments, stdin) in [
            (["copy-id", "--to", "stdout"], nil), (["copy-token", "--to", "stdout"], nil),
            (["session", "import", "-"], Samples.session), (["response", "list"], nil),
        ] as [([String], String?)] {
            let result = try home.run(arguments, stdin: stdin.map { Data($0.utf8) })
            #expect(result.status == 77, "\(relative) \(String(mode, radix: 8)): \(arguments): \(result)")
            #expect(result.err.contains(path) && result.err.contains("chmod"), "\(result)")
            #expect(!result.out.contains(Samples.canary))
        }
    }

    @Test func aStateDirectoryOthersMayWriteIsRefusedBeforeCurlRuns() throws {
        let home = try UserDebugHome()
        let server = try EchoServer(directory: home.root)
        defer { server.stop() }
        try home.recordSession(baseURL: server.baseURL)
        let state = home.root.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        chmod(state, 0o777)
        let result = try home.run(["capture", "--", "curl", "-s", server.baseURL + "/me"])
        #expect(result.status == 77, "\(result)")
        #expect(result.err.contains(state), "\(result)")
        #expect(try server.requests().isEmpty)
    }

    // MARK: programs named in the config

    @Test func aBackendCurlOthersMayChangeIsExit78NamingTheKey() throws {
        let home = try UserDebugHome()
        try home.recordSession(baseURL: "http://127.0.0.1:9")
        let marker = home.root.appendingPathComponent("marker").path
        let curl = try home.file("bin/curl", "#!/bin/sh\ntouch '\(marker)'\ncat >/dev/null\n")
        chmod(curl, 0o775)
        try home.file("config/config.json", #"{"backend": {"path": "/me", "curl": "\#(curl)"}}"#)
        for arguments in [["menu", "--json"], ["run", "backend.body"]] {
            let result = try home.run(arguments)
            #expect(result.status == 78, "\(arguments): \(result)")
            #expect(result.err.contains("backend.curl") && result.err.contains(curl), "\(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func anActionProgramOthersMayChangeIsExit78NamingTheKey() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let marker = home.root.appendingPathComponent("marker").path
        let tool = try home.file("tools/udtool", "#!/bin/sh\ntouch '\(marker)'\n")
        chmod(tool, 0o757)
        // By path, and found through PATH as it would be executed.
        for program in [tool, "udtool"] {
            try home.file(
                "config/config.json", #"{"actions": [{"id": "t", "title": "T", "command": ["\#(program)"]}]}"#)
            let result = try home.run(
                ["run", "t", "--to", "stdout"],
                extraEnvironment: ["PATH": home.root.appendingPathComponent("tools").path + ":/usr/bin:/bin"])
            #expect(result.status == 78, "\(program): \(result)")
            #expect(result.err.contains("actions[0].command[0]") && result.err.contains(tool), "\(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test(.enabled(if: geteuid() == 0, "another user's files need root to set up; CI runs as root"))
    func anActionProgramAnotherUserOwnsIsExit78() throws {
        let owner = try TestUser.ensure()
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let marker = home.root.appendingPathComponent("marker").path
        let tool = try home.file("tools/udtool", "#!/bin/sh\ntouch '\(marker)'\n")
        chmod(tool, 0o755)
        chown(tool, owner.uid, owner.gid)
        try home.file("config/config.json", #"{"actions": [{"id": "t", "title": "T", "command": ["\#(tool)"]}]}"#)
        let result = try home.run(["run", "t", "--to", "stdout"])
        #expect(result.status == 78, "\(result)")
        #expect(result.err.contains("actions[0].command[0]") && result.err.contains(tool), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    // MARK: --body-file

    /// A binary request body, so `export curl --reveal` writes a file (without `--reveal` a binary
    /// body is only described).
    static func recordBinaryRequest(_ home: UserDebugHome) throws {
        try home.recordSession(baseURL: "http://127.0.0.1:9")
        try home.ok(
            ["response", "record", "-"],
            stdin:
                #"{"request": {"method": "POST", "url": "http://127.0.0.1:9/up", "body": {"base64": "AAEC/w=="}}, "response": {"status": 200}}"#
        )
    }

    @Test func theBodyFileIsNeverALinksTarget() throws {
        let home = try UserDebugHome()
        try Self.recordBinaryRequest(home)
        let target = try home.file("target.txt", "keep me\n")
        let link = home.root.appendingPathComponent("body.bin").path
        #expect(symlink(target, link) == 0)
        let result = try home.run(["export", "curl", "--reveal", "--to", "stdout", "--body-file", link])
        #expect(result.status == 77, "\(result)")
        #expect(result.err.contains(link), "\(result)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
    }

    @Test(.enabled(if: geteuid() == 0, "another user's files need root to set up; CI runs as root"))
    func anotherUsersBodyFileIsRefusedAndLeftAlone() throws {
        let owner = try TestUser.ensure()
        let home = try UserDebugHome()
        try Self.recordBinaryRequest(home)
        let path = try home.file("body.bin", "theirs\n")
        chmod(path, 0o666)
        chown(path, owner.uid, owner.gid)
        let result = try home.run(["export", "curl", "--reveal", "--to", "stdout", "--body-file", path])
        #expect(result.status == 77, "\(result)")
        #expect(result.err.contains(path), "\(result)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs\n")
    }

    /// What held before stays: with umask 000, every directory userdebug makes is 0700 and every
    /// file 0600; an existing body file of ours is rewritten 0600.
    @Test func everythingCreatedIsPrivateEvenWithUmask000() throws {
        let home = try UserDebugHome()
        let bodyFile = try home.file("body.bin", "old\n")
        chmod(bodyFile, 0o644)
        let script = """
            umask 000
            "$UD" session import - <<'EOF'
            \(Samples.session)
            EOF
            "$UD" response record - <<'EOF'
            {"request": {"method": "POST", "url": "http://127.0.0.1:9/up", "body": {"base64": "AAEC/w=="}}, "response": {"status": 200}}
            EOF
            "$UD" export curl --reveal --to stdout >/dev/null
            "$UD" export curl --reveal --to stdout --body-file "$BODY" >/dev/null
            """
        let result = try runTool(
            "/bin/sh", ["-c", script],
            environment: home.environment.merging(["UD": UserDebugHome.binary, "BODY": bodyFile]) { $1 })
        #expect(result.status == 0, "\(result)")
        var checked = 0
        for top in ["data", "state"] {
            let root = home.root.appendingPathComponent(top).path
            let walker = FileManager.default.enumerator(atPath: root)
            var paths = [root]
            while let relative = walker?.nextObject() as? String { paths.append(root + "/" + relative) }
            for path in paths {
                var status = stat()
                guard lstat(path, &status) == 0 else { continue }
                let isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
                #expect(status.st_mode & 0o777 == (isDirectory ? 0o700 : 0o600), "\(path)")
                checked += 1
            }
        }
        #expect(checked >= 5, "the store, its directory, the state and bodies directories, a body file")
        var status = stat()
        #expect(stat(bodyFile, &status) == 0 && status.st_mode & 0o777 == 0o600)
    }
}
