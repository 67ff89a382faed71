/// Which clipboard backend to use, spelled as users type it: `--backend` on the command line and
/// `clipboard.backend` in the config file. The kit only names the choice; the command line holds
/// the rule that applies it and the backends themselves.
public enum ClipboardBackendPreference: String, Sendable, Equatable, CaseIterable {
    /// The rule: a Wayland compositor that answers and offers a data-control protocol, else the
    /// X display, else (for `--to auto`) standard output.
    case auto
    /// Only the Wayland data-control backend.
    case wayland
    /// Only the X11 backend (under a Wayland compositor: through XWayland).
    case x11
}
