import Foundation
import TestSupport
import Testing

/// The debug actions on a real X clipboard: the built binary owns the selection under a private
/// Xvfb, and real peers (xclip, xsel) read it; we read what they own.
@Suite struct ClipboardCommandTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        try home.ok(["response", "record", "-"], stdin: Samples.loginResponse)
    }

    func xclipOut(_ x: Xvfb, target: String = "UTF8_STRING", selection: String = "clipboard") throws -> Peer.Output {
        try Peer.read(["xclip", "-o", "-selection", selection, "-t", target], environment: x.environment, limit: 30)
    }

    @Test func copyIdPutsTheIdentifierOnTheClipboardForXclipAndXsel() throws {
        try withXvfb { x in
            let result = try home.run(["copy-id", "--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.err.contains("copied 5 bytes to CLIPBOARD"))
            #expect(try xclipOut(x).bytes == Array("usr_1".utf8))
            let xsel = try Peer.read(["xsel", "-ob"], environment: x.environment, limit: 30)
            #expect(xsel.bytes == Array("usr_1".utf8))
        }
    }

    @Test func primaryIsItsOwnSelection() throws {
        try withXvfb { x in
            try home.ok(["copy-id", "--to", "primary"].map { $0 }, extraEnvironment: ["DISPLAY": x.display])
            #expect(try xclipOut(x, selection: "primary").bytes == Array("usr_1".utf8))
            #expect(try xclipOut(x).status != 0)
        }
    }

    @Test func commandSubstitutionAndAPipeReturnAtOnce() throws {
        try withXvfb { x in
            // With xclip both of these hang: its owner keeps the pipe open while it serves.
            let script = """
                x=$(\(UserDebugHome.binary) copy-id --to clipboard -q); echo "[$x]"
                \(UserDebugHome.binary) copy-id --to clipboard -q | cat; echo "piped:$?"
                """
            let out = try Peer.read(
                ["bash", "-c", script], environment: x.environment.merging(home.environment) { a, _ in a }, limit: 20)
            #expect(out.status == 0, "timed out or failed: \(out.status)")
            #expect(String(decoding: out.bytes, as: UTF8.self) == "[]\npiped:0\n")
        }
    }

    @Test func dumpJsonIsOfferedAsJsonToo() throws {
        try withXvfb { x in
            try home.ok(["dump-json", "--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
            let targets = String(decoding: try xclipOut(x, target: "TARGETS").bytes, as: UTF8.self)
            #expect(targets.contains("application/json"))
            #expect(!targets.contains("x-kde-passwordManagerHint"))
            let json = try xclipOut(x, target: "application/json").bytes
            let object = try #require(JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
            #expect(object["identifier"] as? String == "usr_1")
            #expect(!String(decoding: json, as: UTF8.self).contains("ak-secret-1"))
        }
    }

    @Test func copyTokenIsMarkedSecretForClipboardManagers() throws {
        try withXvfb { x in
            let result = try home.run(["copy-token", "--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
            #expect(result.status == 0, "\(result)")
            #expect(!result.err.contains(Samples.canary))
            #expect(try xclipOut(x).bytes == Array(Samples.canary.utf8))
            let targets = String(decoding: try xclipOut(x, target: "TARGETS").bytes, as: UTF8.self)
            #expect(targets.contains("x-kde-passwordManagerHint"))
            #expect(
                String(decoding: try xclipOut(x, target: "x-kde-passwordManagerHint").bytes, as: UTF8.self) == "secret")
            // CopyQ 6.4 (Debian 12) skips only content that carries its own marker set to 1.
            #expect(String(decoding: try xclipOut(x, target: "application/x-copyq-hidden").bytes, as: UTF8.self) == "1")
        }
    }

    @Test func aCopiedTokenIsClearedAfterTheConfiguredTimeout() throws {
        try home.file("config/config.json", #"{"clipboard": {"secretClearSeconds": 1}}"#)
        try withXvfb { x in
            let result = try home.run(["copy-token", "--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
            #expect(result.status == 0, "\(result)")
            #expect(result.err.contains("cleared in 1 s"))
            // Once the timeout passes nobody owns CLIPBOARD any more (bounded wait, no time asserted).
            #expect(eventually(timeout: 20) { (try? xclipOut(x))?.status != 0 })
        }
    }

    @Test func copyAndPasteRoundTripBinarySafeBytes() throws {
        let bytes: [UInt8] = Array("a\u{0}b\u{1B}]52;c;\u{7}\nZoë 名前 🚀".utf8) + [0, 0, 0x7F]
        try withXvfb { x in
            let copy = try home.run(["copy"], stdin: Data(bytes), extraEnvironment: ["DISPLAY": x.display])
            #expect(copy.status == 0, "\(copy)")
            #expect(try xclipOut(x).bytes == bytes)
            let paste = try home.run(["paste"], extraEnvironment: ["DISPLAY": x.display])
            #expect(paste.status == 0)
            #expect(Array(paste.stdout) == bytes)
        }
    }

    @Test func pasteReadsWhatXclipOwnsAndSessionImportTakesItFromTheClipboard() throws {
        try withXvfb { x in
            let document = #"{"name": "from-browser", "user": {"id": "usr_clip", "name": "Clip"}, "token": "t-clip"}"#
            try Peer.own(["xclip", "-selection", "clipboard"], input: Array(document.utf8), environment: x.environment)
            var pasted = Data()
            #expect(
                eventually {
                    pasted = (try? home.run(["paste"], extraEnvironment: ["DISPLAY": x.display]))?.stdout ?? Data()
                    return pasted == Data(document.utf8)
                })
            try home.run(["session", "import", "--from-clipboard"], extraEnvironment: ["DISPLAY": x.display])
            #expect(try home.ok(["copy-id"]).out == "usr_clip\n")
        }
    }

    @Test func pasteWithNoOwnerIsExit66() throws {
        try withXvfb { x in
            let result = try home.run(["paste", "--timeout", "2"], extraEnvironment: ["DISPLAY": x.display])
            #expect(result.status == 66, "\(result)")
        }
    }

    @Test func onATerminalTheDefaultIsTheClipboard() throws {
        try withXvfb { x in
            // script(1) gives userdebug a pseudo-terminal as stdout, as a terminal user has.
            let command = "\(UserDebugHome.binary) copy-id"
            let out = try Peer.read(
                ["script", "-qec", command, "/dev/null"],
                environment: x.environment.merging(home.environment) { a, _ in a }, limit: 20)
            #expect(out.status == 0)
            #expect(String(decoding: out.bytes, as: UTF8.self).contains("copied 5 bytes to CLIPBOARD"))
            #expect(try xclipOut(x).bytes == Array("usr_1".utf8))
        }
    }

    @Test func aSessionLogOnStdoutAndStderrStillGetsTheClipboard() throws {
        try withXvfb { x in
            // Hotkey daemons often send both streams to ~/.xsession-errors.
            let log = home.root.appendingPathComponent("xsession-errors").path
            let script = "\(UserDebugHome.binary) copy-id >>'\(log)' 2>&1"
            let out = try Peer.read(
                ["sh", "-c", script], environment: x.environment.merging(home.environment) { a, _ in a }, limit: 20)
            #expect(out.status == 0)
            #expect(try xclipOut(x).bytes == Array("usr_1".utf8))
            let logged = try String(contentsOfFile: log, encoding: .utf8)
            #expect(!logged.contains("usr_1\n"))
        }
    }

    /// `> f 2>&1` cannot be told from a session log, so `--to auto` copies there too; the file
    /// then says where the result went and how to get it written instead (README: Where output goes).
    @Test func aRedirectOfBothStreamsToOneFileSaysWhereTheResultWent() throws {
        try withXvfb { x in
            let file = home.root.appendingPathComponent("user.json").path
            let out = try Peer.read(
                ["sh", "-c", "\(UserDebugHome.binary) dump-json >'\(file)' 2>&1"],
                environment: x.environment.merging(home.environment) { a, _ in a }, limit: 20)
            #expect(out.status == 0)
            #expect(try xclipOut(x).bytes.first == UInt8(ascii: "{"))
            let written = try String(contentsOfFile: file, encoding: .utf8)
            #expect(written.contains("copied"), "\(written)")
            #expect(written.contains("standard output and standard error are the same file"), "\(written)")
            #expect(written.contains("--to stdout writes to it"), "\(written)")
        }
    }

    @Test func withoutADisplayATerminalUserGetsStdoutAndANotice() throws {
        let environment = home.environment.merging(["DISPLAY": ":4093"]) { $1 }
        let out = try Peer.read(
            ["script", "-qec", "\(UserDebugHome.binary) copy-id", "/dev/null"], environment: environment, limit: 20)
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(out.status == 0)
        #expect(text.contains("usr_1"))
        #expect(text.contains("no clipboard"))
    }

    @Test(arguments: ["", ":4093", "garbage::display", "/nonexistent/socket:0"])
    func anExplicitClipboardWithoutADisplayIsExit69(display: String) throws {
        let result = try home.run(["copy-id", "--to", "clipboard"], extraEnvironment: ["DISPLAY": display])
        #expect(result.status == 69, "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aServerThatAcceptsButNeverAnswersIsExit69NotAHang() throws {
        let dir = home.root.appendingPathComponent("silent").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let socket = dir + "/X0"
        let listener = try Spawned.start(
            [
                "/usr/bin/python3", "-c",
                """
                import socket, sys, time
                s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
                print("listening", flush=True)
                conns = []
                while True:
                    c, _ = s.accept(); conns.append(c)
                """, socket,
            ], environment: ProcessInfo.processInfo.environment, pipeOutput: true)
        defer {
            listener.kill()
            listener.wait()
        }
        #expect(listener.receiveLine() == "listening")
        // Bounded by timeout(1): a hang would show as status 137, not pass.
        let environment = home.environment.merging(["DISPLAY": socket + ":0"]) { $1 }
        let out = try Peer.read(
            [UserDebugHome.binary, "copy-id", "--to", "clipboard"], environment: environment, limit: 20)
        #expect(out.status == 69)
        let auto = try Peer.read(
            [UserDebugHome.binary, "copy-id", "--to", "both"], environment: environment, limit: 20)
        #expect(auto.status == 69)
    }

    /// A TCP display whose host name the DNS never answers for (glibc's resolver would wait 5 s
    /// per attempt): the lookup is under the same 1 s deadline as the rest of connecting. Runs
    /// in its own mount and network namespace (unshare, as root), where /etc/resolv.conf points at
    /// a local UDP port that swallows every query.
    @Test func aDisplayHostWhoseNameNeverResolvesIsExit69NotAHang() throws {
        let dir = home.root.appendingPathComponent("dns").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "nameserver 127.0.0.1\noptions timeout:5 attempts:2\n".write(
            toFile: dir + "/resolv.conf", atomically: true, encoding: .utf8)
        let script = """
            ip link set lo up || exit 90
            mount --bind "$2/resolv.conf" /etc/resolv.conf || exit 91
            python3 -c '
            import socket, sys
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 53))
            open(sys.argv[1], "w").close()
            while True: s.recvfrom(4096)
            ' "$2/ready" & sink=$!
            for _ in $(seq 100); do [ -e "$2/ready" ] && break; sleep 0.05; done
            timeout -s KILL 3 getent hosts never-answers.example; echo "getent=$?"
            DISPLAY=never-answers.example:0 timeout -s KILL 4 "$1" copy-id --to clipboard; echo "userdebug=$?"
            kill $sink
            """
        let out = try Peer.read(
            ["unshare", "-mn", "sh", "-c", script, "sh", UserDebugHome.binary, dir], environment: home.environment,
            limit: 30)
        let text = String(decoding: out.bytes, as: UTF8.self)
        // The lookup really hangs here (getent is killed at 3 s), and userdebug gives up on its own.
        #expect(text.contains("getent=137"), "\(text)")
        #expect(text.contains("userdebug=69"), "\(text)")
        #expect(!text.contains("usr_1"), "\(text)")
    }

    /// The background owners started for this test's home: processes whose environment has our
    /// USERDEBUG_HOME (the owner is forked from the command, so it inherits it).
    func owners() -> [Int32] {
        let marker = Array("USERDEBUG_HOME=\(home.root.path)".utf8) + [0]
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        return pids.filter { pid in
            guard !processExited(pid), let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else {
                return false
            }
            return Array(environ).split(separator: 0, omittingEmptySubsequences: true).contains {
                Array($0) + [0] == marker
            }
        }
    }

    /// `--hand-off` and `clipboard.handOffAtOnce`: with csd-clipboard running, the owner hands the
    /// content over and leaves; the content stays pasteable. Without either, the owner stays.
    @Test func handOffLeavesNoOwnerBehindWithAClipboardManager() throws {
        try withCSDClipboard { x in
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
            #expect(owners().count == 1, "without --hand-off our owner serves")
            try home.ok(["dump-json", "--to", "clipboard", "--hand-off"], extraEnvironment: ["DISPLAY": x.display])
            #expect(eventually { owners().isEmpty }, "\(owners())")
            #expect(String(decoding: try xclipOut(x).bytes, as: UTF8.self).contains("\"identifier\""))

            try home.file("config/config.json", #"{"clipboard": {"handOffAtOnce": true}}"#)
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: ["DISPLAY": x.display])
            #expect(eventually { owners().isEmpty }, "\(owners())")
            #expect(try xclipOut(x).bytes == Array("usr_1".utf8))
        }
    }

    /// Consecutive copies are served by one process (`clipboard.reuseOwner`, on by default);
    /// `--new-owner` starts another, which takes the next copies; with the key off each copy
    /// starts its own owner, as before.
    @Test func consecutiveCopiesAreServedByOneOwnerProcess() throws {
        try withXvfb { x in
            let display = ["DISPLAY": x.display]
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: display)
            #expect(eventually { owners().count == 1 && x.residentOwnerListens(executable: UserDebugHome.binary) })
            let first = owners()
            try home.ok(["dump-json", "--to", "clipboard"], extraEnvironment: display)
            #expect(owners() == first, "the serving process took the JSON")
            let json = String(decoding: try xclipOut(x, target: "application/json").bytes, as: UTF8.self)
            #expect(json.contains("\"identifier\""), "\(json)")
            let token = try home.run(["copy-token", "--to", "clipboard"], extraEnvironment: display)
            #expect(token.status == 0, "\(token)")
            #expect(owners() == first)
            #expect(
                String(decoding: try xclipOut(x, target: "TARGETS").bytes, as: UTF8.self).contains(
                    "x-kde-passwordManagerHint"))

            try home.ok(["copy-id", "--to", "clipboard", "--new-owner"], extraEnvironment: display)
            #expect(eventually { owners().count == 1 && owners() != first }, "\(owners()) after \(first)")
            #expect(try xclipOut(x).bytes == Array("usr_1".utf8))
            let second = owners()
            #expect(eventually { x.residentOwnerListens(executable: UserDebugHome.binary) })
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: display)
            #expect(owners() == second, "the new owner takes the next copy")

            try home.file("config/config.json", #"{"clipboard": {"reuseOwner": false}}"#)
            try home.ok(["dump-json", "--to", "clipboard"], extraEnvironment: display)
            #expect(eventually { owners().count == 1 && owners() != second }, "\(owners())")
            let third = owners()
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: display)
            #expect(eventually { owners().count == 1 && owners() != third }, "\(owners())")
            #expect(try xclipOut(x).bytes == Array("usr_1".utf8))
        }
    }

    @Test func bothWritesTheClipboardAndStdout() throws {
        try withXvfb { x in
            let result = try home.run(
                ["print-response", "--to", "both", "--headers"], extraEnvironment: ["DISPLAY": x.display])
            #expect(result.status == 0, "\(result)")
            #expect(result.out.hasPrefix("HTTP 200\n"))
            #expect(String(decoding: try xclipOut(x).bytes, as: UTF8.self).hasPrefix("HTTP 200\n"))
            #expect(!String(decoding: try xclipOut(x).bytes, as: UTF8.self).contains(Samples.canary))
        }
    }
}
