#if canImport(Glibc)
    import Glibc
#endif

/// What the owner found when it read the selection back after a secret's clear
/// (`cx11_clearcheck.c`, `cwl_clearcheck.c`): a program that put the token back. The file holds one line,
/// `restored TAB epoch-seconds TAB selection TAB who`; a clear that held removes it. The next
/// secret's copy says so, and `doctor` shows it, so a keeper nobody knew of is named once it
/// has restored a token.
struct ClearReport: Equatable {
    /// When the token was seen back (seconds since the epoch).
    var time: Int
    /// CLIPBOARD or PRIMARY.
    var selection: String
    /// The program that holds it: "diodon (pid 4242)", a window class, a window id, or on Wayland
    /// "a Wayland client (the compositor does not say which)".
    var who: String

    /// The report's path in a home's state directory.
    static func path(stateDirectory: String) -> String { stateDirectory + "/clear-report" }

    /// The report at `path`, or nil when there is none (or it is not one).
    static func read(_ path: String) -> ClearReport? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = Glibc.read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let line = String(decoding: buffer[0..<count].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == "restored", let time = Int(fields[1]), !fields[3].isEmpty else {
            return nil
        }
        return ClearReport(time: time, selection: String(fields[2]), who: String(fields[3]))
    }

    /// The process name when the report names one ("diodon" of "diodon (pid 4242)"); nil for a
    /// window class, a window id or a Wayland client.
    var processName: String? {
        let marker = Array(" (pid ".utf8)
        let bytes = Array(who.utf8)
        guard bytes.count > marker.count,
            let at = (1...(bytes.count - marker.count)).first(where: {
                bytes[$0..<($0 + marker.count)].elementsEqual(marker)
            })
        else { return nil }
        return String(decoding: bytes[..<at], as: UTF8.self)
    }

    /// The report's time as the local HH:MM:SS.
    var clock: String {
        var seconds = time_t(time)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "?" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// The sentence a secret's copy and `doctor` use.
    var sentence: String {
        "the last clear did not hold: \(who) put the token back on \(selection) (seen at \(clock))"
    }
}
