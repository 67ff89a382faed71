import Foundation
import TestSupport
import Testing
import UserDebugKit

/// The desktops the clipboard contract runs on, each started fresh for one test.
enum ContractDesktop: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Xvfb: the X11 backend, xclip as the peer.
    case x11
    /// Headless sway (wlroots): data-control (zwlr), wl-clipboard as the peer.
    case sway
    /// Tests/Support/data_control_compositor.py: ext-data-control (and zwlr beside it).
    case extDataControl
    /// weston 10 on Xvfb: no data-control, so X11 through its XWayland bridge; wl-clipboard reads
    /// through the bridge.
    case weston
    /// Headless cage (wlroots kiosk): no data-control and no keyboard, so X11 through XWayland;
    /// X11 clients of that XWayland are the peers (wl-clipboard needs data-control), and a GTK4
    /// app's focused Wayland window reads it too (`copyIdIsReadByTheGTK4Client`). An X11
    /// window has the focus (cage takes X11 copies over only then; without one a copy is
    /// refused: CageRouteTests).
    case cage
    /// KWin 5.27 (KDE), `--virtual --xwayland`: data-control (zwlr), wl-clipboard as the peer.
    case kwin
    /// mutter 43 (GNOME), headless with a virtual monitor: no data-control and no keyboard, so
    /// X11 through XWayland, and X11 clients of that XWayland as the peers; its clipboard manager
    /// keeps every text copied and sets it again when the owner is gone.
    case mutter

    var testDescription: String { rawValue }
}

/// One running desktop of the contract: how our binary reaches it, how a peer reads and
/// writes its clipboard, and how it is killed under us.
final class ContractStand: @unchecked Sendable {
    let desktop: ContractDesktop
    /// Merged into the home's environment for our binary.
    let clientEnvironment: [String: String]
    /// The peers' environment.
    let peerEnvironment: [String: String]
    /// The account our binary and the peers run as (XWayland of wlroots refuses other users'
    /// clients); nil: as the test runner.
    let account: TestUser.Account?
    /// Whether the peers are X11 clients (xclip) rather than Wayland ones (wl-clipboard).
    let x11Peers: Bool
    /// What a hotkey tool started before the session exported WAYLAND_DISPLAY has (DISPLAY, the
    /// XWayland; XDG_RUNTIME_DIR), and the account it runs as (the compositor's); nil where
    /// there is no compositor.
    let unexported: (environment: [String: String], account: TestUser.Account?)?
    private let killServer: () -> Void
    private let stopAll: () -> Void

    private init(
        _ desktop: ContractDesktop, client: [String: String], peers: [String: String], account: TestUser.Account?,
        x11Peers: Bool, unexported: (environment: [String: String], account: TestUser.Account?)? = nil,
        kill: @escaping () -> Void, stop: @escaping () -> Void
    ) {
        self.desktop = desktop
        self.clientEnvironment = client
        self.peerEnvironment = peers
        self.account = account
        self.x11Peers = x11Peers
        self.unexported = unexported
        self.killServer = kill
        self.stopAll = stop
    }

    static func start(_ desktop: ContractDesktop) throws -> ContractStand {
        switch desktop {
        case .x11:
            let x = try Xvfb.start()
            return ContractStand(
                desktop, client: ["DISPLAY": x.display], peers: x.environment, account: nil, x11Peers: true,
                kill: { x.stop() }, stop: { x.stop() })
        case .sway:
            let sway = try Sway.start()
            return ContractStand(
                desktop, client: ["WAYLAND_DISPLAY": sway.socket, "XDG_RUNTIME_DIR": sway.runtimeDir],
                peers: sway.environment, account: nil, x11Peers: false,
                unexported: (["DISPLAY": sway.xDisplay, "XDG_RUNTIME_DIR": sway.runtimeDir], sway.account),
                kill: { sway.process.kill(SIGKILL) }, stop: { sway.stop() })
        case .extDataControl:
            let compositor = try DataControlCompositor(ext: true, wlr: true)
            return ContractStand(
                desktop, client: compositor.clientEnvironment, peers: compositor.environment, account: nil,
                x11Peers: false, kill: { compositor.terminate() }, stop: { compositor.stop() })
        case .weston:
            let weston = try Weston.start()
            return ContractStand(
                desktop,
                client: [
                    "DISPLAY": weston.xwayland, "WAYLAND_DISPLAY": weston.socket, "XDG_RUNTIME_DIR": weston.runtimeDir,
                ], peers: weston.environment, account: nil, x11Peers: false,
                unexported: (["DISPLAY": weston.xwayland, "XDG_RUNTIME_DIR": weston.runtimeDir], nil),
                kill: { weston.process.kill(SIGKILL) }, stop: { weston.stop() })
        case .cage:
            let cage = try Cage.start()
            do {
                guard try cage.focusX11Window() else { throw FixtureError(message: "no X11 window got cage's focus") }
            } catch {
                cage.stop()
                throw error
            }
            return ContractStand(
                desktop,
                client: ["DISPLAY": cage.xDisplay, "WAYLAND_DISPLAY": cage.socket, "XDG_RUNTIME_DIR": cage.runtimeDir],
                peers: ["DISPLAY": cage.xDisplay, "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"],
                account: cage.account, x11Peers: true,
                unexported: (["DISPLAY": cage.xDisplay, "XDG_RUNTIME_DIR": cage.runtimeDir], cage.account),
                kill: { cage.process.kill(SIGKILL) }, stop: { cage.stop() })
        case .kwin, .mutter:
            let full = try FullDesktop.start(desktop == .kwin ? FullDesktop.Kind.kwin : .mutter)
            return ContractStand(
                desktop, client: full.environment, peers: full.environment, account: full.account,
                x11Peers: desktop == .mutter,
                unexported: (full.environment.filter { $0.key != "WAYLAND_DISPLAY" }, full.account),
                kill: { full.killCompositor() }, stop: { full.stop() })
        }
    }

    /// Kills the display server or compositor under its clients.
    func kill() { killServer() }

    func stop() { stopAll() }

    private var prefix: [String] { account.map(TestUser.runningAs) ?? [] }

    /// What a peer reads from `selection` (as `type`, else text).
    func peerRead(_ selection: SelectionName = .clipboard, type: String? = nil) throws -> Peer.Output {
        let arguments: [String]
        if x11Peers {
            arguments = ["xclip", "-o", "-selection", selection.rawValue] + (type.map { ["-t", $0] } ?? [])
        } else {
            arguments = ["wl-paste", "-n"] + (selection == .primary ? ["-p"] : []) + (type.map { ["-t", $0] } ?? [])
        }
        return try Peer.read(prefix + arguments, environment: peerEnvironment, limit: 60)
    }

    /// A native GTK4 app on this desktop (Wayland where there is a compositor, else X11), its
    /// window mapped and, as the desktop's newest window, focused; as `user` (nil: as the test
    /// runner). On mutter it runs on XWayland:
    /// headless mutter 43 never activates a Wayland window here (not on mapping, not after a
    /// click from a RemoteDesktop session that gives its seat a keyboard and a pointer), and GDK
    /// on Wayland is offered a selection only while its window is active.
    func gtk4Reader(as user: TestUser.Account?) throws -> GTK4Reader {
        var environment = clientEnvironment
        environment["HOME"] = environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
        environment["LANG"] = "C.UTF-8"
        return try GTK4Reader(
            environment: environment, wayland: desktop != .x11 && desktop != .mutter, account: user)
    }

    /// Tests/Support/clipboard_restorer.sh on this desktop, as its account, keeping its files in
    /// `directory` (which it must be able to write): a keeper that puts an emptied clipboard back.
    func restorer(in directory: String, atOnce: Bool = false) throws -> Spawned {
        let script = repositoryRoot.appendingPathComponent("Tests/Support/clipboard_restorer.sh").path
        return try Spawned.start(
            prefix + ["/bin/sh", script, x11Peers ? "x11" : "wayland", directory] + (atOnce ? ["at-once"] : []),
            environment: peerEnvironment)
    }

    /// clipman 1.2 (Debian 12's Wayland clipboard keeper) as its README sets it up: `wl-paste
    /// --watch` runs `clipman store` on every change, which keeps a history in `directory` and,
    /// when the clipboard is emptied, copies the last item back with wl-copy.
    func clipman(in directory: String) throws -> Spawned {
        try Spawned.start(
            prefix + [
                "wl-paste", "-t", "text", "--watch", "clipman", "store", "--histpath", directory + "/clipman.json",
            ],
            environment: peerEnvironment)
    }

    /// The types a peer is offered on CLIPBOARD (wl-paste -l, xclip's TARGETS).
    func peerTypes() throws -> Peer.Output {
        try Peer.read(
            prefix + (x11Peers ? ["xclip", "-o", "-selection", "clipboard", "-t", "TARGETS"] : ["wl-paste", "-l"]),
            environment: peerEnvironment, limit: 10)
    }

    /// A peer copies `bytes` as text to CLIPBOARD (and keeps serving it).
    func peerCopy(_ bytes: [UInt8]) throws {
        let arguments =
            x11Peers
            ? ["xclip", "-i", "-selection", "clipboard"] : ["wl-copy", "--type", "text/plain;charset=utf-8"]
        try Peer.own(prefix + arguments, input: bytes, environment: peerEnvironment)
    }
}

/// One clipboard contract for every backend and desktop (issue 22 item 3, issue 23 item 5): the
/// same cases, run by the built binary against X11 (Xvfb), headless sway, the ext-data-control
/// test compositor, weston, cage, KWin and mutter. What a desktop cannot do is an explicit
/// expectation (a refusal, or a known issue naming the bug), never a skip.
@Suite(.serialized, .desktopTier) struct ClipboardContractTests {
    let home: UserDebugHome
    /// Set in the environment of every run of ours, so the serving processes of this test (which
    /// inherit it) can be found and, at the end, none left behind.
    let tag = "contract-\(UUID().uuidString)"

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        // The first X11 client of a compositor starts its XWayland, which on a loaded machine takes
        // longer than the default 1 s connect timeout; secrets cleared soon for the clear case.
        try home.file(
            "config/config.json", #"{"clipboard": {"connectTimeoutSeconds": 10, "secretClearSeconds": 2}}"#)
    }

    /// Runs `body` on a fresh `desktop`, stopped afterwards with every serving process of ours.
    func on<R>(_ desktop: ContractDesktop, _ body: (ContractStand) throws -> R) throws -> R {
        let stand = try ContractStand.start(desktop)
        defer {
            stand.stop()
            let left = servingProcesses()
            if !eventually(timeout: 5, { left.allSatisfy(processExited) }) {
                for pid in left where !processExited(pid) { Glibc.kill(pid, SIGKILL) }
            }
        }
        return try body(stand)
    }

    /// Runs our binary on `stand` (as its account, when it has one), or with `client` as the
    /// desktop's environment, as `user`.
    func run(
        _ stand: ContractStand, _ arguments: [String], stdin: Data? = nil,
        as client: (environment: [String: String], account: TestUser.Account?)? = nil
    ) throws -> RunResult {
        let environment = home.environment.merging(client?.environment ?? stand.clientEnvironment) { $1 }
            .merging(["UD_CONTRACT": tag]) { $1 }
        guard let account = client == nil ? stand.account : client?.account else {
            return try runTool(UserDebugHome.binary, arguments, stdin: stdin, environment: environment)
        }
        let chown = try runTool("/bin/chown", ["-R", "\(account.uid):\(account.gid)", home.root.path])
        try #require(chown.status == 0, "\(chown)")
        return try runTool(
            "/usr/bin/setpriv", Array(TestUser.runningAs(account).dropFirst()) + [UserDebugHome.binary] + arguments,
            stdin: stdin, environment: environment)
    }

    /// The processes of ours started by this test that still run (the serving ones).
    func servingProcesses() -> [Int32] {
        let entry = Array("UD_CONTRACT=\(tag)".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let environ = readWholeFile("/proc/\(pid)/environ"), !processExited(pid) else { return false }
            return environ.split(separator: 0).contains { Array($0) == entry }
        }
    }

    /// `peerRead` until it gives `expected` (a bridge takes a copy over asynchronously), within a deadline.
    func peerEventuallyReads(
        _ stand: ContractStand, _ expected: [UInt8], _ selection: SelectionName = .clipboard, type: String? = nil
    ) -> Peer.Output? {
        var last: Peer.Output? = nil
        _ = eventually(timeout: 10) {
            last = try? stand.peerRead(selection, type: type)
            return last?.status == 0 && last?.bytes == expected
        }
        return last
    }

    @Test(arguments: ContractDesktop.allCases)
    func copyIdIsReadByARealPeer(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let result = try run(stand, ["copy-id", "--to", "clipboard"])
            #expect(result.status == 0, "\(result)")
            #expect(result.err.contains("copied 5 bytes to CLIPBOARD"), "\(result)")
            let read = peerEventuallyReads(stand, Array("usr_1".utf8))
            #expect(read?.bytes == Array("usr_1".utf8), "\(String(describing: read))")
            // Issue 28, item 5: `ps` names the serving process for what it is, not by the argv
            // of the command that forked it.
            let serving = servingProcesses()
            #expect(!serving.isEmpty, "no serving process of ours")
            for pid in serving {
                let comm = readWholeFile("/proc/\(pid)/comm").map { String(decoding: $0, as: UTF8.self) }
                let line = readWholeFile("/proc/\(pid)/cmdline").map {
                    String(decoding: Array($0.split(separator: 0).joined(separator: [0x20])), as: UTF8.self)
                }
                guard !processExited(pid) else { continue }
                #expect(comm == "userdebug-owner\n", "pid \(pid): \(String(describing: comm))")
                #expect(line == "userdebug clipboard owner", "pid \(pid): \(String(describing: line))")
            }
        }
    }

    /// A desktop's own app reads the copy: a native GTK4 client (GDK on Wayland, on X11 for
    /// Xvfb), its window opened after the copy and so focused. Not on the ext-data-control test
    /// compositor, which has no windows (no xdg-shell) for an app to open.
    @Test(arguments: ContractDesktop.allCases.filter { $0 != .extDataControl })
    func copyIdIsReadByTheGTK4Client(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let result = try run(stand, ["copy-id", "--to", "clipboard"])
            #expect(result.status == 0, "\(result)")
            let reader = try stand.gtk4Reader(as: stand.account)
            defer { reader.stop() }
            var text: String? = nil
            var failure: String? = nil
            _ = eventually(timeout: 10) {
                do {
                    text = try reader.read()
                } catch {
                    failure = "\(error)"
                }
                return text == "usr_1"
            }
            #expect(text == "usr_1", "GDK read \(String(describing: text)), \(failure ?? "no error")")
        }
    }

    /// Issue 23's first row: a hotkey tool started before the session exported WAYLAND_DISPLAY,
    /// a Wayland app focused (the GTK4 client, the newest window). The copy reaches that app, or
    /// fails loudly: never "copied" for a value it cannot paste. Not on X11 or the test
    /// compositor (no Wayland windows), nor on mutter (it never activates a Wayland window
    /// headless here; see `gtk4Reader`).
    @Test(arguments: [ContractDesktop.sway, .weston, .cage, .kwin])
    func withoutWaylandDisplayTheFocusedWaylandAppGetsTheCopy(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let hotkey = try #require(stand.unexported)
            let reader = try stand.gtk4Reader(as: hotkey.account)
            defer { reader.stop() }
            let result = try run(stand, ["copy-id", "--to", "clipboard"], as: hotkey)
            var text: String? = nil
            let arrived = eventually(timeout: 10) {
                text = try? reader.read()
                return text == "usr_1"
            }
            if desktop == .cage {
                // cage takes an X11 copy over only while an X11 window has the focus; the GTK4
                // window has it: refused, nothing served.
                #expect(result.status == 69, "\(result)")
                #expect(!result.err.contains("copied"), "\(result)")
                #expect(!arrived, "then the refusal was wrong")
                return
            }
            #expect(result.status == 0, "\(result)")
            #expect(result.err.contains("copied 5 bytes to CLIPBOARD"), "\(result)")
            #expect(arrived, "the focused GTK4 app reads \(String(describing: text))")
        }
    }

    @Test(arguments: ContractDesktop.allCases)
    func aPeersCopyIsReadByPaste(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let theirs = Array("Zoë 名前 🚀".utf8)
            try stand.peerCopy(theirs)
            var pasted: RunResult? = nil
            _ = eventually(timeout: 10) {
                pasted = try? run(stand, ["paste"])
                return pasted.map { Array($0.stdout) == theirs } ?? false
            }
            #expect(pasted?.status == 0, "\(String(describing: pasted))")
            #expect(pasted.map { Array($0.stdout) } == theirs, "\(String(describing: pasted))")
        }
    }

    @Test(arguments: ContractDesktop.allCases)
    func copyIdToPrimaryIsReadFromPrimary(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let result = try run(stand, ["copy-id", "--to", "primary"])
            if desktop == .weston {
                // weston 10's XWayland bridge carries CLIPBOARD only: an X11 PRIMARY never reaches
                // Wayland clients, so the copy is refused before anything is served (issue 23 item 2).
                #expect(result.status == 69, "\(result)")
                #expect(result.err.contains("weston's XWayland bridge carries CLIPBOARD only"), "\(result)")
                #expect(!result.err.contains("copied"), "\(result)")
                #expect(servingProcesses().isEmpty, "a refused copy is served")
                let read = try stand.peerRead(.primary)
                #expect(read.bytes != Array("usr_1".utf8), "then the refusal was wrong: \(read)")
                return
            }
            #expect(result.status == 0, "\(result)")
            #expect(result.err.contains("copied 5 bytes to PRIMARY"), "\(result)")
            let read = peerEventuallyReads(stand, Array("usr_1".utf8), .primary)
            #expect(read?.bytes == Array("usr_1".utf8), "\(String(describing: read))")
        }
    }

    @Test(arguments: ContractDesktop.allCases)
    func sixteenMebibytesArriveByteExact(_ desktop: ContractDesktop) throws {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16 << 20)
        for index in stride(from: 0, to: bytes.count, by: 8) {
            withUnsafeBytes(of: generator.next() as UInt64) { word in
                for offset in 0..<8 { bytes[index + offset] = word[offset] }
            }
        }
        bytes[bytes.count - 3] = 0  // NUL bytes travel too
        try on(desktop) { stand in
            let result = try run(stand, ["copy", "-q"], stdin: Data(bytes))
            if desktop == .weston {
                // issue 23, item 2: weston's XWayland bridge hands Wayland clients the INCR size
                // (4 bytes) of an X11 transfer this large: refused with the size limit, nothing served.
                #expect(result.status == 69, "\(result)")
                #expect(
                    result.err.contains("the X11 copy of \(bytes.count) bytes would not reach Wayland clients whole"),
                    "\(result)")
                let limit = result.err.split(separator: "carries at most ").dropFirst().first
                    .flatMap { Int($0.prefix { $0.isNumber }) }
                #expect(limit.map { $0 > 0 && $0 < bytes.count } == true, "no size limit named: \(result)")
                #expect(servingProcesses().isEmpty, "a refused copy is served")
                return
            }
            #expect(result.status == 0, "\(result)")
            let read = try stand.peerRead(type: "application/octet-stream")
            #expect(read.status == 0 && read.bytes.count == bytes.count, "\(read.status): \(read.bytes.count)")
            #expect(read.bytes == bytes, "the bytes differ")
        }
    }

    @Test(arguments: ContractDesktop.allCases)
    func aSecretIsMarkedAndGoneAfterTheClear(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let result = try run(stand, ["copy-token", "--to", "clipboard"])
            #expect(result.status == 0, "\(result)")
            #expect(result.err.contains("copied a secret"), "\(result)")
            #expect(result.err.contains("cleared in 2 s"), "\(result)")
            let hint = peerEventuallyReads(stand, Array("secret".utf8), type: "x-kde-passwordManagerHint")
            let token = Array(Samples.canary.utf8)
            let gone = eventually(timeout: 20) {
                guard let read = try? stand.peerRead() else { return false }
                return read.bytes != token
            }
            let dropped = "weston's XWayland bridge drops the secret hint (x-kde-passwordManagerHint)"
            if desktop == .weston {
                // issue 23's table: weston's bridge offers Wayland clients only the text types, so
                // the copy says so instead of promising a marked secret; should weston ever carry
                // the hint, this fails and the sentence goes.
                let carried = hint?.status == 0 && hint?.bytes == Array("secret".utf8)
                #expect(!carried, "weston now carries the hint: \(String(describing: hint))")
                #expect(result.err.contains(dropped), "\(result)")
            } else {
                #expect(hint?.bytes == Array("secret".utf8), "\(String(describing: hint))")
                #expect(!result.err.contains(dropped), "\(result)")
            }
            // The clear takes the selection with empty content before leaving, so what a keeper
            // (mutter's clipboard manager, weston's bridge) holds last is nothing, not the token.
            #expect(gone, "the token is still pasted after the clear")
            // The X11 owner reads the selection back for a few seconds after the clear, then leaves;
            // a keeper that had put the token back (as mutter's did before the empty content) is
            // in the clear report, which a clear that held leaves absent.
            if [.x11, .weston, .cage, .mutter].contains(desktop) {
                #expect(eventually(timeout: 20) { servingProcesses().isEmpty }, "the owner stayed after its check")
                let report = readWholeFile(home.root.appendingPathComponent("state/clear-report").path)
                #expect(report == nil, "the owner saw the token back: \(String(decoding: report ?? [], as: UTF8.self))")
            }
        }
    }

    /// A new private directory for a keeper's files, owned by the stand's account when it has one
    /// (the caller removes it).
    func keeperDirectory(_ prefix: String, for stand: ContractStand) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())").path
        try #require(mkdir(directory, 0o700) == 0, "mkdir \(directory): errno \(errno)")
        if let account = stand.account { #expect(chown(directory, account.uid, account.gid) == 0) }
        return directory
    }

    /// A keeper that puts the emptied clipboard back once it is emptied (the stand-in above; Debian
    /// 12's Wayland one, clipman, takes copies over at once: the next test) on an X11 and on two
    /// data-control desktops: the owner's read-back after the
    /// clear sees the token back and writes the report; on Wayland the compositor does not say who.
    @Test(arguments: [ContractDesktop.x11, .sway, .kwin])
    func aTokenPutBackAfterTheClearIsReported(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let directory = try keeperDirectory("ud-restorer", for: stand)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let restorer = try stand.restorer(in: directory)
            defer {
                restorer.kill()
                restorer.wait()
            }
            let result = try run(stand, ["copy-token", "--to", "clipboard"])
            try #require(result.status == 0, "\(result)")
            let token = Array(Samples.canary.utf8)
            #expect(eventually(timeout: 20) { readWholeFile(directory + "/last") == token }, "the keeper never saw it")
            let path = home.root.appendingPathComponent("state/clear-report").path
            #expect(
                eventually(timeout: 30) { readWholeFile(path) != nil },
                "no report; the clipboard offers: \(String(describing: try? stand.peerTypes()))")
            let report = String(decoding: readWholeFile(path) ?? [], as: UTF8.self)
            #expect(report.hasPrefix("restored\t") && report.contains("\tCLIPBOARD\t"), "\(report)")
            // Under X11 the stand-in's xclip sets no _NET_WM_PID: the X server names its process
            // (X-Resource), and doctor's fix names it. On Wayland nothing says which client: the
            // fix names no program then.
            let doctor = try run(stand, ["doctor"])
            #expect(doctor.out.contains("clear: warning — the last clear did not hold"), "\(doctor.out)")
            if desktop == .x11 {
                #expect(report.contains("\txclip (pid "), "\(report)")
                #expect(doctor.out.contains("fix: quit or pause xclip "), "\(doctor.out)")
            } else {
                #expect(report.contains("a Wayland client"), "\(report)")
                #expect(
                    doctor.out.contains("fix: quit or pause the clipboard manager that restores it"), "\(doctor.out)")
            }
        }
    }

    /// A keeper that takes every new text over at once and serves it itself (the stand-in in its
    /// at-once mode; clipman on Wayland, the next test, does the same) under X11: the token's owner
    /// loses the selection before its clear. It stays until the clear's time, sees the keeper
    /// still offering the token without the markers, clears it anyway and reports the keeper,
    /// which puts it back once more, by name. Leaving at once left the token there unreported.
    @Test(arguments: [ContractDesktop.x11])
    func aKeeperThatTakesTheTokenAtOnceIsClearedAndReported(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let directory = try keeperDirectory("ud-at-once", for: stand)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let keeper = try stand.restorer(in: directory, atOnce: true)
            defer {
                keeper.kill()
                keeper.wait()
            }
            // The keeper takes a plain copy over at once: our owner leaves, and xclip serves it.
            let plain = try run(stand, ["copy", "-q"], stdin: Data("plain text".utf8))
            try #require(plain.status == 0, "\(plain)")
            #expect(
                eventually(timeout: 20) {
                    servingProcesses().isEmpty && (try? stand.peerRead())?.bytes == Array("plain text".utf8)
                }, "the keeper never took the copy over")
            let result = try run(stand, ["copy-token", "--to", "clipboard"])
            try #require(result.status == 0, "\(result)")
            let token = Array(Samples.canary.utf8)
            #expect(eventually(timeout: 20) { readWholeFile(directory + "/last") == token }, "the keeper never saw it")
            let path = home.root.appendingPathComponent("state/clear-report").path
            #expect(eventually(timeout: 30) { readWholeFile(path) != nil }, "no report")
            let report = String(decoding: readWholeFile(path) ?? [], as: UTF8.self)
            #expect(report.hasPrefix("restored\t") && report.contains("\txclip (pid "), "\(report)")
            #expect(eventually(timeout: 20) { servingProcesses().isEmpty }, "the owner stayed after its check")
        }
    }

    /// A real Wayland keeper, clipman (on the data-control desktops it needs): a secret's copy
    /// names it instead of promising a clear, clipman puts the token back after the clear, and the
    /// owner's read-back reports it.
    @Test(arguments: [ContractDesktop.sway, .kwin])
    func clipmanIsNamedAtCopyTimeAndItsRestoreReported(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let directory = try keeperDirectory("ud-clipman", for: stand)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let keeper = try stand.clipman(in: directory)
            defer {
                keeper.kill()
                keeper.wait()
            }
            // clipman records a plain copy first: it is watching.
            let history = directory + "/clipman.json"
            let recorded = eventually(timeout: 20) {
                _ = try? stand.peerCopy(Array("plain-before-token".utf8))
                return String(decoding: readWholeFile(history) ?? [], as: UTF8.self).contains("plain-before-token")
            }
            try #require(recorded, "clipman never recorded a plain copy")
            // The clear waits long enough for clipman to take the token over first, as it does at
            // once on a quiet machine. Under load clipman's own re-copy of the plain text may land
            // after ours and replace the token before clipman read it (it then holds nothing to
            // restore, and our owner leaves the plain text alone): the copy is made again then.
            try home.file(
                "config/config.json", #"{"clipboard": {"connectTimeoutSeconds": 10, "secretClearSeconds": 10}}"#)
            let token = Array(Samples.canary.utf8)
            var copied: RunResult?
            let taken = eventually(timeout: 40) {
                copied = try? run(stand, ["copy-token", "--to", "clipboard"])
                return eventually(timeout: 5) {
                    String(decoding: readWholeFile(history) ?? [], as: UTF8.self).contains(Samples.canary)
                }
            }
            let result = try #require(copied)
            try #require(result.status == 0, "\(result)")
            try #require(taken, "clipman never took the token over")
            // By its name (" clipman ", not xfce4-clipman): a keeper another test runs as the same
            // user meanwhile may be named beside it.
            #expect(
                result.err.contains(" clipman ") && result.err.contains(" back after the clear"), "\(result.err)")
            let path = home.root.appendingPathComponent("state/clear-report").path
            #expect(eventually(timeout: 30) { readWholeFile(path) != nil }, "no report")
            let report = String(decoding: readWholeFile(path) ?? [], as: UTF8.self)
            #expect(report.hasPrefix("restored\t") && report.contains("a Wayland client"), "\(report)")
            // What the report says is what a paste gets: the token, served by clipman's wl-copy.
            #expect(eventually(timeout: 10) { (try? stand.peerRead().bytes) == token }, "the token is not back")
            // The next secret's copy names clipman once, not also as an unnamed Wayland client.
            let again = try run(stand, ["copy-token", "--to", "clipboard"])
            #expect(again.status == 0, "\(again)")
            #expect(
                again.err.contains(" clipman ") && !again.err.contains("the last clear did not hold"),
                "\(again.err)")
        }
    }

    @Test(arguments: ContractDesktop.allCases)
    func theServerKilledWhileWeOwnEndsTheServingProcess(_ desktop: ContractDesktop) throws {
        try on(desktop) { stand in
            let result = try run(stand, ["copy-id", "--to", "clipboard"])
            #expect(result.status == 0, "\(result)")
            let owners = servingProcesses()
            #expect(!owners.isEmpty, "no serving process of ours after the copy")
            stand.kill()
            #expect(
                eventually(timeout: 20) { owners.allSatisfy(processExited) },
                "a serving process outlived its display server: \(owners.filter { !processExited($0) })")
        }
    }
}
