import CWayland
public import UserDebugKit

/// The Wayland clipboard (CLIPBOARD or the primary selection) through the data-control
/// protocols (`ext_data_control_manager_v1`, else `zwlr_data_control_manager_v1`), spoken by the
/// CWayland shim without libwayland-client.
///
/// Data-control lets a client without a window or keyboard focus own and read the selection, so
/// a hotkey copy works whatever window is focused (the X11 route through XWayland does not on
/// wlroots compositors). `copy` makes a data source the selection, confirms that the compositor
/// shows it as the current selection, and leaves a detached C-only process serving it. Flush
/// buffered standard output before calling it: the serving process is forked from the caller.
public struct WaylandClipboard: Clipboard {
    /// The compositor: `WAYLAND_DISPLAY`'s value (a socket name under `runtimeDir`, or an
    /// absolute path); nil reads `$WAYLAND_DISPLAY` at each call.
    public let display: String?
    /// The directory of a relative socket name; nil reads `$XDG_RUNTIME_DIR`.
    public let runtimeDir: String?
    /// How copies are served: the owner process forked once or twice (`callerExitsSoon`), and
    /// the resident owner (`reuseOwner`, `newOwner`): if a serving process of ours already serves
    /// the selection on this compositor, the content is handed to it over a local socket instead
    /// of connecting and forking; it makes a new source the selection and confirms it before the
    /// copy returns. Payloads up to 4 MiB; anything else, or no such process, owns as usual, and
    /// the new owner listens for the next copies. `handOffAtOnce` has no Wayland counterpart.
    public let policy: OwnerPolicy
    /// The bound on a whole paste (and 1 s per 256 KiB received): `clipboard.pasteDeadlineSeconds`.
    public let pasteDeadline: Double

    /// A clipboard on `display` (nil: `$WAYLAND_DISPLAY`) serving copies by `policy`, its pastes
    /// ending within `pasteDeadline` seconds (the larger of it and a paste's own timeout) plus 1 s
    /// per 256 KiB received, else `.tooSlow`.
    public init(
        display: String? = nil, runtimeDir: String? = nil, policy: OwnerPolicy,
        pasteDeadline: Double = CopyOptions().pasteDeadline
    ) {
        self.display = display
        self.runtimeDir = runtimeDir
        self.policy = policy
        self.pasteDeadline = pasteDeadline
    }

    /// A clipboard on `display` (nil: `$WAYLAND_DISPLAY`) with an `OwnerPolicy` of these settings.
    public init(
        display: String? = nil, runtimeDir: String? = nil, callerExitsSoon: Bool = false, reuseOwner: Bool = true,
        newOwner: Bool = false
    ) {
        self.init(
            display: display, runtimeDir: runtimeDir,
            policy: OwnerPolicy(reuseOwner: reuseOwner, newOwner: newOwner, callerExitsSoon: callerExitsSoon))
    }

    /// Connects to `display` (nil: `$WAYLAND_DISPLAY`; a name under `runtimeDir`, nil:
    /// `$XDG_RUNTIME_DIR`), lists the compositor's globals in one round trip, and disconnects,
    /// all within `timeout` seconds: whether a compositor answers and which data-control
    /// protocol a copy would use.
    public static func probe(display: String?, runtimeDir: String?, timeout: Double) -> WaylandProbe {
        CWLCalls.probe(display: display, runtimeDir: runtimeDir, timeout: timeout)
    }

    /// Makes `payload` the content of `selection` and serves it from a detached process.
    /// The types offered for each payload kind are listed in one place: the comment on `cwl_own`
    /// in Sources/CWayland/include/cwl.h.
    public func copy(_ payload: Payload, to selection: SelectionName = .clipboard, options: CopyOptions = CopyOptions())
        throws(ClipboardError)
    {
        _ = try own(payload, to: selection, options: options)
    }

    /// `own` for the `Clipboard` seam: the process serving the copy.
    public func serve(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError)
        -> OwnerProcess?
    {
        OwnerProcess(pid: try own(payload, to: selection, options: options))
    }

    /// Like `copy`, and returns the id of the process that serves the selection (it exits when
    /// another client takes the selection, the lifetime ends, or the compositor goes away).
    @discardableResult
    public func own(_ payload: Payload, to selection: SelectionName = .clipboard, options: CopyOptions = CopyOptions())
        throws(ClipboardError) -> Int32
    {
        try CWLCalls.own(
            payload, selection: selection, options: options, display: display, runtimeDir: runtimeDir,
            policy: policy)
    }

    /// Asks the compositor what `probe` asks and copies on that same connection, only if the
    /// answer allows it: one connect and one registry round trip serve a caller that chooses the
    /// backend from the answer (as `probe` would, within `options.connectTimeout`) and the copy.
    /// When the compositor offers data-control with a seat, the copy goes on as `own` does (but
    /// without trying a serving process of ours first: call `residentOwnerTaking` before) and
    /// `outcome` is its result (the serving process's id, or the failure); otherwise `outcome`
    /// is nil and nothing was set.
    public func ownIfDataControl(
        _ payload: Payload, to selection: SelectionName = .clipboard, options: CopyOptions = CopyOptions()
    ) -> (probe: WaylandProbe, outcome: Result<Int32, ClipboardError>?) {
        let (probe, copy) = CWLCalls.ownIfDataControl(
            payload, selection: selection, options: options, display: display, runtimeDir: runtimeDir,
            policy: policy)
        return (probe, copy)
    }

    /// Hands `payload` to a serving process of ours that already serves `selection` on this
    /// compositor (one started with `reuseOwner`), if one listens: it makes a new source the
    /// selection and confirms it before answering. Talks to no compositor and forks nothing, so a
    /// caller can try it before asking the compositor anything. Returns the serving process's id,
    /// or nil when none took the copy (nothing changed; payloads over 4 MiB are never handed).
    public func residentOwnerTaking(
        _ payload: Payload, to selection: SelectionName = .clipboard, options: CopyOptions = CopyOptions()
    ) -> Int32? {
        CWLCalls.hand(payload, selection: selection, options: options, display: display, runtimeDir: runtimeDir)
    }

    /// The resident hand-off of the `Clipboard` seam: `residentOwnerTaking(_:to:options:)`, when
    /// `policy` reuses owners and asks for no new one.
    public func handToResidentOwner(_ payload: Payload, to selection: SelectionName, options: CopyOptions) -> Bool {
        guard policy.reuseOwner, !policy.newOwner else { return false }
        return residentOwnerTaking(payload, to: selection, options: options) != nil
    }

    /// Reads `selection` as `target` (a MIME type; `UTF8_STRING`: the best text type offered;
    /// `TARGETS`: the offered types, one per line), keeping NUL bytes. Throws `.noContent` when
    /// the selection is empty or its owner does not offer the type.
    public func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8] {
        try CWLCalls.paste(
            display: display, runtimeDir: runtimeDir, selection: selection, target: target, timeout: timeout,
            deadline: pasteDeadline, to: -1)
    }

    /// Like `paste`, but writes the bytes to the descriptor `fd` as they arrive, holding none
    /// of them in memory (for a large selection piped to a file).
    public func paste(selection: SelectionName, target: String, timeout: Double, to fd: Int32) throws(ClipboardError) {
        _ = try CWLCalls.paste(
            display: display, runtimeDir: runtimeDir, selection: selection, target: target, timeout: timeout,
            deadline: pasteDeadline, to: fd)
    }
}
