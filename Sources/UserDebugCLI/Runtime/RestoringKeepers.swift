#if canImport(Glibc)
    import Glibc
#endif

/// Clipboard managers measured to put a cleared secret back on the clipboard even though the
/// clear first takes the selection with empty content: Diodon 1.13 and xfce4-clipman 1.6.2 skip
/// an empty copy and restore their last item, the token; Parcellite 1.2.1 and ClipIt 1.4.4 poll
/// the clipboard and restore the token when they miss the empty copy (ClipboardManagerHistoryTests).
/// A secret's copy names the ones of this user that run, instead of promising a clear.
enum RestoringKeepers {
    /// The process names (`/proc/PID/comm`) and how the notice calls each.
    static let known: [(comm: String, name: String)] = [
        ("diodon", "Diodon"), ("parcellite", "Parcellite"), ("clipit.real", "ClipIt"), ("clipit", "ClipIt"),
        ("xfce4-clipman", "xfce4-clipman"),
    ]

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
            if let keeper = known.first(where: { $0.comm == comm }) { found.insert(keeper.name) }
        }
        var named = Set<String>()
        return known.map(\.name).filter { found.contains($0) && named.insert($0).inserted }
    }

    /// Whether the process name `comm` is one of the keepers in `names` (as `running` names them).
    static func named(_ comm: String, among names: [String]) -> Bool {
        known.contains { $0.comm == comm && names.contains($0.name) }
    }

    /// The first line of a small /proc file, without its newline.
    private static func command(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
