import Testing

@testable import UserDebugCLI

/// Which `wl-paste` command lines are a clipman that puts the last item back (the contract suite
/// runs the real one on sway and KWin); a report a Wayland keeper already named is not repeated.
@Suite struct RestoringKeepersTests {
    @Test func clipmansWatchIsRecognisedUnlessItDoesNotPersist() {
        #expect(RestoringKeepers.watchesForClipman(["wl-paste", "-t", "text", "--watch", "clipman", "store"]))
        #expect(RestoringKeepers.watchesForClipman(["wl-paste", "-w", "/usr/bin/clipman", "store", "--max-items=5"]))
        #expect(!RestoringKeepers.watchesForClipman(["wl-paste", "--watch", "clipman", "store", "--no-persist"]))
        #expect(!RestoringKeepers.watchesForClipman(["wl-paste", "--watch", "clipman", "store", "-P"]))
        #expect(!RestoringKeepers.watchesForClipman(["wl-paste", "--watch", "cliphist", "store"]))
        #expect(!RestoringKeepers.watchesForClipman(["wl-paste", "clipman", "store"]))
        #expect(!RestoringKeepers.watchesForClipman(["wl-paste", "--watch"]))
    }

    @Test func aWaylandReportIsNamedByAWaylandKeeperOnly() throws {
        let wayland = ClearReport(
            time: 0, selection: "CLIPBOARD", who: "a Wayland client (the compositor does not say which)")
        #expect(RestoringKeepers.named(wayland, among: ["clipman"]))
        #expect(!RestoringKeepers.named(wayland, among: ["Diodon"]))
        let diodon = ClearReport(time: 0, selection: "CLIPBOARD", who: "diodon (pid 42)")
        #expect(RestoringKeepers.named(diodon, among: ["Diodon"]))
        #expect(!RestoringKeepers.named(diodon, among: ["clipman"]))
        let window = ClearReport(time: 0, selection: "CLIPBOARD", who: "the X window 0x20000d")
        #expect(!RestoringKeepers.named(window, among: ["clipman", "Diodon"]))
    }
}
