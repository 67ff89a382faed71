#if canImport(Glibc)
    import Glibc
#endif

/// Clipboard managers measured to put a cleared secret back on the clipboard even though the
/// clear first takes the selection with empty content: Diodon 1.13 and xfce4-clipman 1.6.2 skip
/// an empty copy and restore their last item, the token; Parcellite 1.2.1 and ClipIt 1.4.4 poll
/// the clipboard and restore the token when they miss the empty copy (ClipboardManagerHistoryTests).
/// On Wayland, clipman 1.2 (run as `wl-paste --watch clipman store`, as its README says) copies
/// its last item back whenever the clipboard is emptied, unless started with `--no-persist`
/// (ClipboardContractTests on sway and KWin). A secret's copy names the ones of this user that
/// run, instead of promising a clear.
enum RestoringKeepers {
    /// The process names (`/proc/PID/comm`) and how the notice calls each.
    static let known: [(comm: String, name: String)] = [
        ("diodon", "Diodon"), ("parcellite", "Parcellite"), ("clipit.real", "ClipIt"), ("clipit", "ClipIt"),
        ("xfce4-clipman", "xfce4-clipman"), ("wl-paste", "clipman"),
    ]

    /// The keepers that serve through a Wayland client the compositor does not name.
    static let wayland: Set<String> = ["clipman"]

    /// The known keepers that run as this user, each named once, in `known`'s order. Reads /proc
    /// only for a secret's copy (never on the hotkey path of `copy-id`).
    static func running() -> [String] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        let uid = getuid()
        var found = Set<String>()
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard Int32(name) != nil else { continue }
            var info = stat()
            guard stat("/proc/\(name)", &info) == 0, info.st_uid == uid, let comm = command("/proc/\(name)/comm")
            else { continue }
            guard let keeper = known.first(where: { $0.comm == comm }) else { continue }
            if comm != "wl-paste" || watchesForClipman(arguments("/proc/\(name)/cmdline")) { found.insert(keeper.name) }
        }
        var named = Set<String>()
        return known.map(\.name).filter { found.contains($0) && named.insert($0).inserted }
    }

    /// Whether `report`'s program is one of the keepers in `names` (as `running` names them): by
    /// its process name, or, for a Wayland client the compositor did not name, when a Wayland
    /// keeper is among them.
    static func named(_ report: ClearReport, among names: [String]) -> Bool {
        if let comm = report.processName { return known.contains { $0.comm == comm && names.contains($0.name) } }
        return report.who.hasPrefix("a Wayland client") && names.contains { wayland.contains($0) }
    }

    /// Whether a `wl-paste` command line is clipman's watch (`wl-paste … --watch clipman store`)
    /// without `--no-persist` (`-P`), that is a clipman that puts the last item back.
    static func watchesForClipman(_ arguments: [String]) -> Bool {
        guard let watch = arguments.firstIndex(of: "--watch") ?? arguments.firstIndex(of: "-w") else { return false }
        let command = arguments[(watch + 1)...]
        guard let program = command.first, program == "clipman" || program.hasSuffix("/clipman"),
            command.contains("store")
        else { return false }
        return !command.contains("--no-persist") && !command.contains("-P")
    }

    /// A process's arguments (`/proc/PID/cmdline`, NUL-separated; its first 4 KiB).
    private static func arguments(_ path: String) -> [String] {
        (head(path, 4096) ?? []).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The first line of a small /proc file, without its newline.
    private static func command(_ path: String) -> String? {
        head(path, 64).map { String(decoding: $0.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self) }
    }

    /// The first `limit` bytes of a /proc file (one read), or nil when it cannot be read or is empty.
    private static func head(_ path: String, _ limit: Int) -> ArraySlice<UInt8>? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = read(fd, &buffer, buffer.count)
        return count > 0 ? buffer[0..<count] : nil
    }
}
