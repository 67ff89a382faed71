import CX11
public import UserDebugKit

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
    /// How long a leaving owner waits for a clipboard manager to save the content.
    public let handOffTimeout: Double
    /// Whether the caller exits right after copying (a command-line tool): the serving process is
    /// then forked once instead of twice, which saves a fork and a round trip on the hotkey path,
    /// and connecting (copy and paste) is bounded by a timer signal to the calling thread instead
    /// of a watchdog thread. A long-lived caller leaves it false: it keeps no zombie, and no
    /// signal disposition of its process is touched.
    public let callerExitsSoon: Bool

    /// A clipboard on `display` (nil: `$DISPLAY`).
    public init(display: String?, authority: String? = nil, handOffTimeout: Double = 1.5, callerExitsSoon: Bool = false)
    {
        self.display = display
        self.authority = authority
        self.handOffTimeout = handOffTimeout
        self.callerExitsSoon = callerExitsSoon
    }

    /// Owns the selection with `payload` and serves it from a detached process.
    public func copy(_ payload: Payload, options: CopyOptions) throws(ClipboardError) {
        _ = try own(payload, options: options)
    }

    /// Like `copy`, and tells which process serves the selection (it exits when it stops serving).
    @discardableResult
    public func own(_ payload: Payload, options: CopyOptions) throws(ClipboardError) -> OwnerProcess {
        let pid = try CX11Calls.own(
            payload, options: options, display: display, authority: authority, handOffTimeout: handOffTimeout,
            singleFork: callerExitsSoon)
        return OwnerProcess(pid: pid)
    }

    /// Reads `selection` converted to `target`, following INCR, keeping NUL bytes.
    /// Throws `.noContent` when there is no owner or it refuses the target.
    ///
    /// For `UTF8_STRING`, an owner that offers only `STRING` (xsel does for ASCII text, as do old
    /// Xt programs) is read as `STRING` and its Latin-1 converted to UTF-8, as xclip does.
    public func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8] {
        try CX11Calls.paste(
            display: display, authority: authority, selection: selection, target: target, timeout: timeout,
            callerOwnsProcess: callerExitsSoon, fallback: target == "UTF8_STRING" ? "STRING" : nil,
            convert: Self.utf8(fromLatin1:))
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

/// The detached process serving a selection taken by `X11Clipboard.own`.
public struct OwnerProcess: Sendable, Hashable {
    /// Its process id. It is not the caller's child, so the caller never has to reap it.
    public let pid: Int32
}
