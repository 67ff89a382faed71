import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The desktops setup binds keys on, each its own way.
enum SetupDesktop: String, CaseIterable, Sendable {
    case x11, sway, i3, gnome, kde

    /// The session as its variables and displays describe it, and why.
    /// - Throws: 69 when no desktop it knows is found.
    static func detect(_ invocation: Invocation) throws(CommandError) -> (SetupDesktop, String) {
        let current = invocation.variable("XDG_CURRENT_DESKTOP") ?? ""
        let names = current.lowercased().split(separator: ":").map(String.init)
        let said = "XDG_CURRENT_DESKTOP=\(current)"
        if names.contains("gnome") { return (.gnome, said) }
        if names.contains("kde") { return (.kde, said) }
        if names.contains("sway") { return (.sway, said) }
        if (invocation.variable("SWAYSOCK") ?? "").isEmpty == false { return (.sway, "SWAYSOCK is set") }
        if names.contains("i3") { return (.i3, said) }
        if (invocation.variable("I3SOCK") ?? "").isEmpty == false { return (.i3, "I3SOCK is set") }
        let type = invocation.variable("XDG_SESSION_TYPE") ?? ""
        let wayland = invocation.variable("WAYLAND_DISPLAY") ?? ""
        if type == "wayland" || !wayland.isEmpty {
            throw CommandError(
                .unavailable,
                "a Wayland session (\(current.isEmpty ? "XDG_SESSION_TYPE=\(type)" : said)) that setup does not know "
                    + "how to bind keys in; it knows sway, GNOME and KDE: pass --desktop sway|gnome|kde if it is one")
        }
        let display = invocation.variable("DISPLAY") ?? ""
        switch X11Finding.probe(display, timeout: 2) {
        case .answers: return (.x11, "DISPLAY=\(display) answers, no desktop named (a window manager: the daemon)")
        case .notSet:
            throw CommandError(
                .unavailable,
                "no desktop session: DISPLAY and WAYLAND_DISPLAY are unset; run setup in the session, or pass --desktop"
            )
        case .notAnswering(let reason):
            throw CommandError(.unavailable, "DISPLAY=\(display) does not answer (\(reason)); pass --desktop")
        }
    }
}

/// One binding as a window manager's config line spells it.
enum KeySpelling {
    /// `Super+Alt+I` → `Mod4+Mod1+i` (sway and i3).
    static func i3(_ key: String) -> String {
        let parts = key.split(separator: "+").map(String.init)
        let modifiers = parts.dropLast().map { part -> String in
            switch part.lowercased() {
            case "super": return "Mod4"
            case "alt": return "Mod1"
            case "ctrl", "control": return "Control"
            case "shift": return "Shift"
            case "hyper": return "Mod3"
            default: return part
            }
        }
        return (modifiers + [keysym(parts.last ?? "")]).joined(separator: "+")
    }

    /// `Super+Alt+I` → `super+alt+i` (xdotool).
    static func xdotool(_ key: String) -> String {
        let parts = key.split(separator: "+").map(String.init)
        let modifiers = parts.dropLast().map { $0.lowercased() == "control" ? "ctrl" : $0.lowercased() }
        return (modifiers + [keysym(parts.last ?? "")]).joined(separator: "+")
    }

    /// `Super+Alt+I` → `<Super><Alt>i` (GNOME).
    static func gnome(_ key: String) -> String {
        let parts = key.split(separator: "+").map(String.init)
        let modifiers = parts.dropLast().map { part -> String in
            switch part.lowercased() {
            case "ctrl", "control": return "<Primary>"
            default: return "<\(part.prefix(1).uppercased() + part.dropFirst().lowercased())>"
            }
        }
        return modifiers.joined() + keysym(parts.last ?? "")
    }

    /// A one-letter key in lower case (the keysym the key sends without Shift); names as written.
    private static func keysym(_ name: String) -> String { name.count == 1 ? name.lowercased() : name }
}

/// Quoting for a command line a shell (or a shell-like splitter) reads.
func shellQuoted(_ text: String) -> String {
    let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:@%=".contains($0) }
    if plain && !text.isEmpty { return text }
    return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
}
