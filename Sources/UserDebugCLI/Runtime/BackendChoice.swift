import UserDebugKit
import WaylandClipboard

/// The one rule for choosing the clipboard backend, and the reason it chose, in words:
///
/// 1. `WAYLAND_DISPLAY` answers and offers data-control → Wayland;
/// 2. else `DISPLAY` answers → X11 (under GNOME and weston through XWayland, whose bridge works);
/// 3. else no clipboard: `--to auto` writes to standard output, `--to clipboard` exits 69.
///
/// `--backend` (else `clipboard.backend`) may force one backend; a forced Wayland that is not
/// there is no clipboard, with the reason. Step 2's "answers" is found by the X11 backend itself
/// when it connects, so under plain X11 (no `WAYLAND_DISPLAY`) choosing costs nothing.
struct BackendChoice: Sendable, Equatable {
    /// The backend chosen.
    enum Route: String, Sendable {
        /// The Wayland data-control backend.
        case wayland
        /// The X11 backend on `DISPLAY`.
        case x11
        /// None: a forced backend that is not there.
        case unavailable
    }

    /// Where the preference came from, for the reason.
    enum Source: String, Sendable {
        /// `--backend` on the command line.
        case option = "--backend"
        /// `clipboard.backend` in the config file.
        case config = "clipboard.backend"
        /// Neither: `auto`.
        case none = "the default"
    }

    /// The backend chosen.
    var route: Route
    /// Why, in words, for notices, errors and `doctor`.
    var reason: String
    /// What asking `WAYLAND_DISPLAY` found; nil when the rule did not ask (a forced `x11`).
    var wayland: WaylandFinding?

    /// Applies the rule. `probe` asks the compositor on `waylandDisplay`; it is called at most
    /// once, and never when `waylandDisplay` is unset or empty or `x11` is forced. `discovered`:
    /// `WAYLAND_DISPLAY` is unset and `waylandDisplay` is the socket of ours found in the runtime
    /// directory (the reason says so).
    static func choose(
        _ preference: ClipboardBackendPreference, from source: Source, waylandDisplay: String?,
        discovered: Bool = false, probe: () -> WaylandFinding
    ) -> BackendChoice {
        if preference == .x11 {
            return BackendChoice(route: .x11, reason: "\(source.rawValue) x11", wayland: nil)
        }
        let finding: WaylandFinding
        if let waylandDisplay, !waylandDisplay.isEmpty { finding = probe() } else { finding = .notSet }
        let named =
            discovered
            ? "WAYLAND_DISPLAY is not set; \(waylandDisplay ?? "") (ours, found)"
            : "WAYLAND_DISPLAY=\(waylandDisplay ?? "")"
        let found = finding == .notSet ? "WAYLAND_DISPLAY is not set" : "\(named) \(finding.description)"
        switch (preference, finding) {
        case (.wayland, .dataControl):
            return BackendChoice(route: .wayland, reason: "\(source.rawValue) wayland: \(found)", wayland: finding)
        case (.wayland, _):
            return BackendChoice(
                route: .unavailable, reason: "\(source.rawValue) wayland, but \(found)\(advice(finding))",
                wayland: finding)
        case (_, .dataControl):
            return BackendChoice(route: .wayland, reason: found, wayland: finding)
        case (_, .noDataControl), (_, .noSeat):
            return BackendChoice(route: .x11, reason: "\(found): X11 through XWayland", wayland: finding)
        default:
            return BackendChoice(route: .x11, reason: "\(found): X11", wayland: finding)
        }
    }

    /// What to do instead of a forced Wayland that is not there.
    private static func advice(_ finding: WaylandFinding) -> String {
        guard case .noDataControl = finding else { return "" }
        return "; use --backend x11 (XWayland) on this compositor"
    }

    /// The preference of this command: `--backend`, else `clipboard.backend`, else `auto`.
    static func preference(_ invocation: Invocation) throws -> (ClipboardBackendPreference, Source) {
        if let preference = try option(invocation.arguments) { return (preference, .option) }
        let preference = try invocation.config().clipboardBackend
        return (preference, preference == .auto ? .none : .config)
    }

    /// `--backend`'s value, nil when not given; checked even by a command that ends up writing to
    /// standard output, so a typo never goes unnoticed.
    static func option(_ arguments: ParsedArguments) throws(CommandError) -> ClipboardBackendPreference? {
        guard let text = arguments.value("backend") else { return nil }
        return try parse(text)
    }

    /// `--backend TEXT` as a preference.
    /// - Throws: exit 64 naming the value and the accepted ones.
    static func parse(_ text: String) throws(CommandError) -> ClipboardBackendPreference {
        guard let preference = ClipboardBackendPreference(rawValue: text) else {
            let names = ClipboardBackendPreference.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandError(.usage, "unknown --backend '\(text)'; expected one of: \(names)")
        }
        return preference
    }
}
