import Foundation
import TestSupport
import Testing
import UserDebugKit

/// CWayland's wire against the data-control test compositor (Tests/Support/data_control_compositor.py):
/// each event's descriptors taken by its own signature, and USERDEBUG_WAYLAND_DEBUG's trace.
@Suite(.desktopTier) struct WaylandWireTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    /// The processes of ours serving a copy on this compositor (after the short-lived middle
    /// process of the double fork has gone): exactly one, or nil.
    func servingOwner(_ compositor: DataControlCompositor) -> Int32? {
        var owners: [Int32] = []
        _ = eventually {
            // The serving process names itself (ud_owner_detach): comm "userdebug-owner".
            owners = compositor.liveClients(named: "userdebug-owner")
            return owners.count == 1
        }
        return owners.count == 1 ? owners[0] : nil
    }

    /// Whether a resident owner of ours listens for the next CLIPBOARD copy on this compositor.
    func residentListens(_ compositor: DataControlCompositor) -> Bool {
        var info = stat()
        guard stat(compositor.socket, &info) == 0 else { return false }
        let name =
            "@userdebug-wl-owner-1/\(geteuid())/CLIPBOARD/"
            + String(info.st_dev, radix: 16) + ":" + String(info.st_ino, radix: 16) + "/"
        return String(decoding: readWholeFile("/proc/net/unix") ?? [], as: UTF8.self).contains(name)
    }

    /// The compositor's `probe LABEL SOURCE STATUS LENGTH HEX` lines, as [LABEL: "STATUS LENGTH HEX"].
    func probes(_ compositor: DataControlCompositor) -> [String: String] {
        var found: [String: String] = [:]
        for line in compositor.logLines where line.hasPrefix("probe ") {
            let words = line.split(separator: " ").map(String.init)
            if words.count == 6 { found[words[1]] = words[3...5].joined(separator: " ") }
        }
        return found
    }

    /// Two copies handed to one serving process replace its source twice. The compositor then
    /// sends to the first source (destroyed by now, its destroy not yet read by the compositor,
    /// so the event still comes) and to the current one. The replaced source's reader gets
    /// nothing and the current one's gets the current bytes: with one shared descriptor queue
    /// the first `send` left its descriptor behind, the second took it, and each reader got the
    /// other's transfer (the replaced one the current bytes, the current one nothing).
    @Test func aSendToAReplacedSourceDoesNotShiftTheNextTransfer() throws {
        let compositor = try DataControlCompositor(ext: true, wlr: false, lateSends: true)
        defer { compositor.stop() }
        let environment = compositor.clientEnvironment
        try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: environment)
        let owner = try #require(servingOwner(compositor), "not one serving process of ours")
        for id in ["usr_2", "usr_3"] {
            #expect(eventually { residentListens(compositor) }, "the owner does not listen for the next copy")
            try home.ok(["session", "set", "--id", id, "--name", "Bo"])
            try home.ok(["copy-id", "--to", "clipboard"], extraEnvironment: environment)
            #expect(servingOwner(compositor) == owner, "the copy of \(id) was not handed to the serving process")
        }
        compositor.probe()
        var seen: [String: String] = [:]
        _ = eventually(timeout: 30) {
            seen = probes(compositor)
            return seen.count == 2
        }
        let current = Array("usr_3".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(seen["replaced"] == "eof 0 -", "\(compositor.logLines)")
        #expect(seen["current"] == "eof 5 \(current)", "\(compositor.logLines)")
        #expect(try home.ok(["paste"], extraEnvironment: environment).out == "usr_3")
    }

    /// USERDEBUG_WAYLAND_DEBUG=1: every request and event on stderr as WAYLAND_DEBUG shows them
    /// (`[ms.µs] -> interface@id.request(args)`, `[ms.µs] interface@id.event(args)`), descriptors
    /// as `fd`, a payload by its size: the token copied and pasted is never printed.
    @Test func theDebugTraceNamesEachMessageAndNoSecret() throws {
        let compositor = try DataControlCompositor(ext: true, wlr: true)
        defer { compositor.stop() }
        var environment = compositor.clientEnvironment
        environment["USERDEBUG_WAYLAND_DEBUG"] = "1"
        let copy = try home.run(["copy-token", "--to", "clipboard"], extraEnvironment: environment)
        #expect(copy.status == 0, "\(copy)")
        let paste = try home.run(["paste"], extraEnvironment: environment)
        #expect(paste.status == 0 && paste.out == Samples.canary, "\(paste)")
        let trace = (copy.err + paste.err).split(separator: "\n").map(String.init)
        func has(_ pattern: String) -> Bool {
            trace.contains { line in
                line.range(of: #"^\[ *[0-9]+\.[0-9]{3}\] "# + pattern + "$", options: .regularExpression) != nil
            }
        }
        let (n, manager, source) = ("[0-9]+", "ext_data_control_manager_v1", "ext_data_control_source_v1")
        let (device, offer) = ("ext_data_control_device_v1", "ext_data_control_offer_v1")
        let expected = [
            #" -> wl_display@1\.get_registry\(new id wl_registry@2\)"#,
            #"wl_registry@2\.global\(\#(n), "\#(manager)", 1\)"#,
            #" -> wl_registry@2\.bind\(\#(n), "\#(manager)", 1, new id \#(manager)@\#(n)\)"#,
            #" -> \#(manager)@\#(n)\.create_data_source\(new id \#(source)@\#(n)\)"#,
            #" -> \#(source)@\#(n)\.offer\("x-kde-passwordManagerHint"\)"#,
            #" -> \#(device)@\#(n)\.set_selection\(\#(source)@\#(n)\)"#,
            #"\#(device)@\#(n)\.data_offer\(new id \#(offer)@\#(n)\)"#,
            #"\#(device)@\#(n)\.selection\(\#(offer)@\#(n)\)"#,
            #" -> \#(offer)@\#(n)\.receive\("text/plain;charset=utf-8", fd\)"#,
            #"wl_callback@\#(n)\.done\(\#(n)\)"#,
        ]
        for pattern in expected { #expect(has(pattern), "no line matches \(pattern) in \(trace)") }
        let size = Samples.canary.utf8.count
        #expect(has("read \(size) bytes of text/plain;charset=utf-8 from the offer"), "\(trace)")
        #expect(!copy.err.contains(Samples.canary) && !paste.err.contains(Samples.canary), "the token was printed")
        let quiet = try home.run(["copy-id", "--to", "clipboard"], extraEnvironment: compositor.clientEnvironment)
        #expect(quiet.status == 0 && !quiet.err.contains("wl_display@1"), "\(quiet)")
    }
}
