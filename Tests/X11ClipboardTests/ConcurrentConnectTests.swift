import Foundation
import TestSupport
import Testing
import UserDebugKit
@_spi(Testing) import X11Clipboard

/// The library is called from many threads at once (an app's tasks, the daemon, tests in
/// parallel): connecting keeps no shared state. libXau's `XauFileName` reallocates one static
/// buffer on every call, and two threads connecting at once read it while the other freed it (a
/// heap-buffer-overflow under AddressSanitizer); the Xauthority file name is now computed per
/// call. These tests connect from many threads at the same moment, so that the sanitizer runs of
/// the suite catch any shared state coming back; and they check the name against libXau's rule.
@Suite("Connecting from many threads at once", .processDeadline(300))
struct ConcurrentConnectTests {
    struct AuthorityRow: Sendable, CustomTestStringConvertible {
        let xauthority: String?
        let home: String?
        let expected: String?
        var testDescription: String {
            let shownHome = home.map { $0.count > 40 ? "(\($0.utf8.count) bytes)" : $0 } ?? "unset"
            return "XAUTHORITY=\(xauthority ?? "unset") HOME=\(shownHome)"
        }
    }

    static let authorityRows: [AuthorityRow] = [
        AuthorityRow(
            xauthority: "/run/user/1000/gdm/Xauthority", home: "/home/ada", expected: "/run/user/1000/gdm/Xauthority"),
        AuthorityRow(xauthority: nil, home: "/home/ada", expected: "/home/ada/.Xauthority"),
        AuthorityRow(xauthority: nil, home: "/", expected: "/.Xauthority"),
        // Set but empty: libXau names no file then, and neither do we (no cookie is sent).
        AuthorityRow(xauthority: "", home: "/home/ada", expected: ""),
        AuthorityRow(xauthority: nil, home: nil, expected: nil),
        AuthorityRow(xauthority: nil, home: "/" + String(repeating: "h", count: 5000), expected: nil),
    ]

    @Test(arguments: authorityRows)
    func theAuthorityFileIsXauthorityElseTheHomeFile(_ row: AuthorityRow) {
        #expect(X11Display.authorityPath(xauthority: row.xauthority, home: row.home) == row.expected)
    }

    /// 16 threads released at the same moment, each connecting 8 times: with the cookie file
    /// named explicitly (every connect must succeed) and without (the file from `$XAUTHORITY` or
    /// `$HOME`: every connect must end exactly as one lone connect does).
    @Test func sixteenThreadsConnectAtOnceToAServerThatRequiresACookie() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cx11-threads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let authority = dir.appendingPathComponent("Xauthority").path
        try writeWildcardXauthority(authority, cookie: (0..<16).map { _ in UInt8.random(in: 0...255) })
        try withXvfb(authority: authority) { x in
            let alone = succeeded(X11Display.probe(x.display, authority: nil, timeout: 5))
            let outcomes = atOnce(threads: 16) { index in
                (0..<8).map { round in
                    let explicit = (index + round) % 2 == 0
                    let result = X11Display.probe(x.display, authority: explicit ? authority : nil, timeout: 10)
                    return (explicit, succeeded(result))
                }
            }.flatMap { $0 }
            #expect(outcomes.count == 16 * 8)
            #expect(outcomes.filter { $0.0 }.allSatisfy { $0.1 }, "a connect with the right cookie failed")
            #expect(outcomes.filter { !$0.0 }.allSatisfy { $0.1 == alone }, "threads disagree on the cookie file")
        }
    }

    /// Whole pastes at once (connect, session, conversion, reply) from 16 threads, each reading
    /// back what one copy put there.
    @Test func sixteenThreadsPasteAtOnce() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cx11-paste-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let authority = dir.appendingPathComponent("Xauthority").path
        try writeWildcardXauthority(authority, cookie: (0..<16).map { _ in UInt8.random(in: 0...255) })
        try withXvfb(authority: authority) { x in
            let clipboard = X11Clipboard(
                display: x.display, authority: authority, policy: OwnerPolicy(reuseOwner: false))
            let owner = try clipboard.own(Payload(text: "read by sixteen threads"))
            defer { kill(owner.pid, SIGKILL) }
            let reads = atOnce(threads: 16) { _ in
                (0..<4).map { _ in
                    try? clipboard.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 10)
                }
            }.flatMap { $0 }
            #expect(reads.count == 64)
            #expect(reads.allSatisfy { $0 == Array("read by sixteen threads".utf8) })
        }
    }

    /// libc and libXau functions that keep state shared by every thread (a static buffer, the
    /// environment): none may be called by the C targets the library links.
    static let nonReentrant = [
        "XauFileName", "XauGetAuthByAddr", "XauGetBestAuthByAddr", "strerror", "strsignal", "getpwuid", "getpwnam",
        "getgrgid", "localtime", "gmtime", "ctime", "asctime", "strtok", "gethostbyname", "gethostbyaddr", "getlogin",
        "ttyname", "rand", "setenv", "putenv", "unsetenv", "ptsname", "inet_ntoa",
    ]

    /// What the sanitizer runs catch only when threads happen to collide, the object files show
    /// every time: the symbols CX11, COwnerProcess and CWayland import (`nm -u`, beside this test
    /// bundle).
    @Test(arguments: ["CX11", "COwnerProcess", "CWayland"])
    func theCTargetsCallNoNonReentrantFunction(_ target: String) throws {
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var dir = URL(fileURLWithPath: bundle).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("\(target).build").path) {
            try #require(dir.path != "/", "no \(target).build beside \(bundle)")
            dir = dir.deletingLastPathComponent()
        }
        let objects = try FileManager.default.contentsOfDirectory(
            atPath: dir.appendingPathComponent("\(target).build").path
        )
        .filter { $0.hasSuffix(".o") }.map { dir.appendingPathComponent("\(target).build/\($0)").path }
        try #require(!objects.isEmpty)
        let nm = try Peer.read(["nm", "-u"] + objects, environment: ProcessInfo.processInfo.environment)
        #expect(nm.status == 0)
        let imported = Set(
            String(decoding: nm.bytes, as: UTF8.self).split(separator: "\n").compactMap {
                $0.split(separator: " ").last.map(String.init)
            })
        let surelyImported = ["CX11": "xcb_connect_to_fd", "CWayland": "sendmsg"]
        #expect(
            surelyImported[target].map { imported.contains($0) } ?? true, "nm read nothing: \(imported.count) symbols")
        #expect(
            imported.intersection(Self.nonReentrant).isEmpty,
            "\(target) calls \(imported.intersection(Self.nonReentrant).sorted())")
    }

    private func succeeded(_ result: Result<Void, ClipboardError>) -> Bool {
        if case .success = result { return true }
        return false
    }

    /// Runs `body` on `threads` threads released together; their results in thread order.
    private func atOnce<R: Sendable>(threads: Int, _ body: @escaping @Sendable (Int) -> R) -> [R] {
        let results = ResultSlots<R>(count: threads)
        let ready = DispatchGroup()
        let finished = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            ready.enter()
            finished.enter()
            Thread.detachNewThread {
                ready.leave()
                go.wait()
                results.set(index, body(index))
                finished.leave()
            }
        }
        ready.wait()
        for _ in 0..<threads { go.signal() }
        finished.wait()
        return results.all
    }
}

/// One result per thread, written under a lock.
private final class ResultSlots<R: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [R?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: R) {
        lock.withLock { slots[index] = value }
    }

    var all: [R] { lock.withLock { slots.compactMap { $0 } } }
}
