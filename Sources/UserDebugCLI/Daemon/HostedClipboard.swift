import UserDebugKit
import X11Clipboard

/// The hotkey daemon's clipboard: copies to the selection its in-process owner holds
/// (`X11SelectionHost`) are made there, with no process forked and no content crossing a socket;
/// everything else (the other selection, every paste, the XWayland check) is the X11 backend's.
/// One more implementation of the `Clipboard` seam, so the daemon's actions copy through the
/// same route as the CLI's.
///
/// The host is used from the daemon's one thread only (its event loop runs the actions), which
/// is what makes the unchecked `Sendable` hold.
struct HostedClipboard: Clipboard, @unchecked Sendable {
    /// The in-process owner of `host.selection`.
    let host: X11SelectionHost
    /// The X11 backend on the same display, for the rest.
    let x11: X11Clipboard

    /// Makes `payload` the content of `selection`: in process for the host's selection.
    func copy(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError) {
        _ = try serve(payload, to: selection, options: options)
    }

    /// Like `copy`; nil for the host's selection (no process of its own serves it).
    func serve(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError)
        -> OwnerProcess?
    {
        guard host.selection == selection else { return try x11.serve(payload, to: selection, options: options) }
        try host.copy(payload, options: options, policy: x11.policy)
        return nil
    }

    /// The X11 backend's paste.
    func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8] {
        try x11.paste(selection: selection, target: target, timeout: timeout)
    }

    /// The X11 backend's streaming paste.
    func paste(selection: SelectionName, target: String, timeout: Double, to fd: Int32) throws(ClipboardError) {
        try x11.paste(selection: selection, target: target, timeout: timeout, to: fd)
    }

    /// Whether the daemon's X server is XWayland.
    func isXWayland(timeout: Double) -> Bool? { x11.isXWayland(timeout: timeout) }

    /// What the daemon's XWayland tells about the compositor's bridge.
    func xwayland(timeout: Double) -> XWaylandFacts? { x11.xwayland(timeout: timeout) }
}
