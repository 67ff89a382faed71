import UserDebugKit

/// Where the Wayland backend connects (`WAYLAND_DISPLAY` in `XDG_RUNTIME_DIR`), and the one place
/// that speaks to it: the probe the backend rule asks, and the clipboard it chooses.
struct WaylandEndpoint: Sendable {
    /// `WAYLAND_DISPLAY`; nil when unset or empty.
    var display: String?
    /// `XDG_RUNTIME_DIR`, where a relative `WAYLAND_DISPLAY` is found.
    var runtimeDir: String?

    /// What the compositor offers, within `timeout` seconds.
    func probe(timeout: Double) -> WaylandFinding {
        guard display != nil else { return .notSet }
        return .notAnswering("this build has no Wayland backend")
    }

    /// The Wayland clipboard on this endpoint.
    func clipboard() -> any Clipboard {
        NoWaylandClipboard()
    }
}

/// Stands in for the Wayland backend in a build without it.
private struct NoWaylandClipboard: Clipboard {
    func copy(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError) {
        throw .noDisplay(reason: "this build has no Wayland backend")
    }

    func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8] {
        throw .noDisplay(reason: "this build has no Wayland backend")
    }
}
