import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// KDE Plasma: per key a hidden application entry in `$XDG_DATA_HOME/applications` and its global
/// shortcut in `kglobalshortcutsrc` (`[services][userdebug-ACTION.desktop] _launch=Meta+Alt+I`),
/// written by `kwriteconfig5` on a copy first, so the change is a file change like any other:
/// shown by --dry-run, skipped when already there, put back byte for byte by --undo.
enum SetupKDE {
    static func plan(_ plan: inout SetupPlan, _ invocation: Invocation) throws {
        let environment = invocation.environment
        guard SetupPlanner.run(["kwriteconfig5", "--help"], environment) == 0 else {
            throw CommandError(
                .unavailable, "kwriteconfig5 is not installed (Debian: libkf5config-bin); it writes Plasma's shortcuts")
        }
        let dataHome =
            invocation.variable("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (invocation.variable("HOME") ?? "") + "/.local/share"
        let shortcuts = SetupFiles.resolved(SetupPlanner.configHome(invocation) + "/kglobalshortcutsrc")
        // kwriteconfig5 works on a copy in the state directory; its result is what setup writes.
        let scratch = SetupCommand.manifestDirectory(invocation) + "/kglobalshortcutsrc.scratch"
        let before = try SetupFiles.read(shortcuts)
        try SetupFiles.write(scratch, before?.bytes ?? [], mode: 0o600)
        defer { unlink(scratch) }
        for binding in plan.bindings {
            let id = "userdebug-" + String(binding.action.map { $0.isLetter || $0.isNumber ? $0 : "-" }) + ".desktop"
            let entry = """
                [Desktop Entry]
                Type=Application
                Name=userdebug: \(binding.action)
                Exec=\(SetupPlanner.command(for: binding))
                NoDisplay=true

                """
            try plan.want(dataHome + "/applications/" + id, Array(entry.utf8), "the command of \(binding.key)")
            let written = SetupPlanner.run(
                [
                    "kwriteconfig5", "--file", scratch, "--group", "services", "--group", id, "--key", "_launch",
                    keys(binding.key),
                ], environment)
            guard written == 0 else {
                throw CommandError(.unavailable, "kwriteconfig5 failed on a copy of \(shortcuts)")
            }
        }
        guard let after = try SetupFiles.read(scratch) else { return }
        try plan.want(shortcuts, after.bytes, mode: 0o600, "\(plan.bindings.count) global shortcuts ([services])")
        if plan.files.contains(where: { $0.path == shortcuts }) {
            plan.notes.append(
                "Plasma reads new shortcuts at the next login (or: kquitapp5 kglobalaccel; kglobalaccel5 &)")
        }
        plan.commandOf = { SetupPlanner.command(for: $0) }
    }

    /// `Super+Alt+I` → `Meta+Alt+I`.
    static func keys(_ key: String) -> String {
        let parts = key.split(separator: "+").map(String.init)
        let modifiers = parts.dropLast().map { part -> String in
            switch part.lowercased() {
            case "super": return "Meta"
            case "ctrl", "control": return "Ctrl"
            default: return part.prefix(1).uppercased() + part.dropFirst().lowercased()
            }
        }
        let last = parts.last ?? ""
        return (modifiers + [last.count == 1 ? last.uppercased() : last]).joined(separator: "+")
    }
}
