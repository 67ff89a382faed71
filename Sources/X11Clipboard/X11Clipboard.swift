import CX11
public import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The X11 clipboard (CLIPBOARD or PRIMARY) through the CX11 shim over libxcb.
///
/// `copy` takes the selection, confirms it with the X server, and leaves a detached C-only
/// process serving it; it returns as soon as ownership is confirmed. Flush buffered standard
/// output before calling it: the serving process is forked from the caller.
///
/// The targets offered for each payload kind are listed in one place: the comment on `cx11_own`
/// in Sources/CX11/include/cx11.h. Everything else is refused.
public struct X11Clipboard: Clipboard {
    /// The DISPLAY to use; nil reads `$DISPLAY` at each call.
    public let display: String?
    /// The Xauthority file; nil uses `$XAUTHORITY`, else `~/.Xauthority`.
    public let authority: String?
    /// How copies are served (owner process, reuse, hand-off), and whether the caller exits soon.
    public let policy: OwnerPolicy
    /// The bound on connecting to the X server for a paste (the socket, the X setup, the first
    /// round trip): `clipboard.connectTimeoutSeconds`. A copy's is its `CopyOptions`'.
    public let connectTimeout: Double
    /// The bound on a whole paste (and 1 s per 256 KiB received): `clipboard.pasteDeadlineSeconds`.
    public let pasteDeadline: Double

    /// A clipboard on `display` (nil: `$DISPLAY`) serving copies by `policy`, its pastes bounded
    /// by `connectTimeout` and `pasteDeadline`.
    public init(
        display: String?, authority: String? = nil, policy: OwnerPolicy = OwnerPolicy(),
        connectTimeout: Double = CopyOptions().connectTimeout, pasteDeadline: Double = CopyOptions().pasteDeadline
    ) {
        self.display = display
        self.authority = authority
        self.policy = policy
        self.connectTimeout = connectTimeout
        self.pasteDeadline = pasteDeadline
    }

    /// Owns `selection` with `payload` and serves it from a detached process.
    public func copy(_ payload: Payload, to selection: SelectionName = .clipboard, options: CopyOptions = CopyOptions())
        throws(ClipboardError)
    {
        _ = try own(payload, to: selection, options: options)
    }

    /// Like `copy`, and tells which process serves the selection (it exits when it stops serving).
    @discardableResult
    public func own(_ payload: Payload, to selection: SelectionName = .clipboard, options: CopyOptions = CopyOptions())
        throws(ClipboardError) -> OwnerProcess
    {
        let pid = try CX11Calls.own(
            payload, selection: selection, options: options, policy: policy, display: display, authority: authority)
        return OwnerProcess(pid: pid)
    }

    /// `own` for the `Clipboard` seam: the process serving the copy.
    public func serve(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError)
        -> OwnerProcess?
    {
        try own(payload, to: selection, options: options)
    }

    /// Whether the X server on `display` is XWayland (the XWAYLAND extension, or a RandR monitor
    /// named `XWAYLAND<N>`), asked within `timeout` seconds on a connection of its own; nil when
    /// no server answers. Costs a connection and two or three round trips: ask only where the
    /// answer matters (an X11 copy with a Wayland compositor of ours that cannot be reached).
    public func isXWayland(timeout: Double) -> Bool? {
        do {
            return try CX11Calls.xwayland(display: display, authority: authority, timeout: timeout) != nil
        } catch {
            return nil
        }
    }

    /// What the X server on `display` tells about the compositor's bridge, when it is XWayland
    /// (nil: not XWayland, or no server answered): `isXWayland`'s connection, and two more round
    /// trips there.
    public func xwayland(timeout: Double) -> XWaylandFacts? {
        try? CX11Calls.xwayland(display: display, authority: authority, timeout: timeout)
    }

    /// Stops the process `owner` serving a copy that must not be served: `OwnerProcess.stop`.
    public static func stop(_ owner: OwnerProcess) { owner.stop() }

    /// Reads `selection` converted to `target`, following INCR, keeping NUL bytes.
    /// Throws `.noContent` when there is no owner or it refuses the target.
    ///
    /// For `UTF8_STRING`, an owner that offers only `STRING` (xsel does for ASCII text, as do old
    /// Xt programs) is read as `STRING` and its Latin-1 converted to UTF-8, as xclip does.
    /// `TARGETS` comes back as the owner sent it: 32-bit atom ids in native byte order, not names.
    ///
    /// Connecting is bounded by `connectTimeout` (1 s by default), as a copy's is, and the
    /// whole read by `pasteDeadline`; see `paste(selection:target:timeout:connectTimeout:deadline:)`.
    public func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8] {
        try paste(
            selection: selection, target: target, timeout: timeout, connectTimeout: connectTimeout,
            deadline: pasteDeadline)
    }

    /// `paste(selection:target:timeout:to:)` bounded by `connectTimeout` and `pasteDeadline`.
    public func paste(selection: SelectionName, target: String, timeout: Double, to fd: Int32) throws(ClipboardError) {
        try paste(
            selection: selection, target: target, timeout: timeout, connectTimeout: connectTimeout,
            deadline: pasteDeadline, to: fd)
    }

    /// `paste(selection:target:timeout:)` with connecting (the socket, the X setup, the first
    /// round trip) bounded by `connectTimeout` within `timeout`: a server that accepts and never
    /// answers (stopped, hung, not an X server) is `.noDisplay` after it, not after `timeout`.
    /// The whole read ends within the larger of `deadline` and `timeout`, plus 1 s per 256 KiB
    /// received, else throws `.tooSlow`: an owner trickling INCR chunks, each within `timeout`,
    /// cannot hold the reader for ever.
    public func paste(
        selection: SelectionName, target: String, timeout: Double, connectTimeout: Double,
        deadline: Double = CopyOptions().pasteDeadline
    ) throws(ClipboardError) -> [UInt8] {
        try CX11Calls.paste(
            display: display, authority: authority, selection: selection, target: target,
            times: cx11_paste_times(timeout: timeout, connect_timeout: connectTimeout, total: deadline),
            fallback: target == "UTF8_STRING" ? "STRING" : nil,
            convert: Self.utf8(fromLatin1:))
    }

    /// Like `paste`, but writes the bytes to the descriptor `fd` as they arrive (each INCR chunk
    /// as it comes), holding none of them: a large selection piped to a file costs no memory.
    /// A failed write throws `.failed` naming it; bytes written before a failure stay written.
    /// Connecting is bounded by `connectTimeout` within `timeout`, and the whole read by
    /// `deadline`, as in `paste(selection:target:timeout:connectTimeout:deadline:)`.
    public func paste(
        selection: SelectionName, target: String, timeout: Double, connectTimeout: Double, deadline: Double,
        to fd: Int32
    ) throws(ClipboardError) {
        try CX11Calls.paste(
            display: display, authority: authority, selection: selection, target: target,
            times: cx11_paste_times(timeout: timeout, connect_timeout: connectTimeout, total: deadline),
            fallback: target == "UTF8_STRING" ? "STRING" : nil, to: fd)
    }

    static func utf8(fromLatin1 bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for b in bytes {
            if b < 0x80 {
                out.append(b)
            } else {
                out.append(0xC0 | (b >> 6))
                out.append(0x80 | (b & 0x3F))
            }
        }
        return out
    }
}
