import CX11
public import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// A selection owner inside a long-lived, single-threaded caller (the hotkey daemon): it owns the
/// selection on a window of its own connection and answers requests whenever the caller's event
/// loop calls `service()`, with the detached owner's serving code and rules (the targets listed
/// on `cx11_own` in Sources/CX11/include/cx11.h, INCR, a secret's clear, the clipboard-manager
/// hand-off). No copy forks a process and no content crosses a socket.
///
/// Poll `descriptor` for readability beside the caller's other descriptors, and wake up after
/// the interval `service()` returns. Before leaving, `handOver` gives what it owns to a detached
/// owner process, so the content outlives the caller.
public final class X11SelectionHost {
    private let handle: OpaquePointer
    /// The DISPLAY it is connected to (nil: `$DISPLAY` at connection time).
    public let display: String?
    /// The Xauthority file (nil: `$XAUTHORITY`, else `~/.Xauthority`).
    public let authority: String?
    /// The selection it owns.
    public let selection: SelectionName

    /// Connects to `display` within `timeout` seconds and makes its window; it owns nothing yet.
    public init(display: String?, authority: String? = nil, selection: SelectionName = .clipboard, timeout: Double)
        throws(ClipboardError)
    {
        var err = cx11_error()
        var host: OpaquePointer? = nil
        let status = CX11Calls.withOptionalCString(display) { d in
            CX11Calls.withOptionalCString(authority) { a in
                cx11_host_open(d, a, CX11Calls.selection(selection), timeout, &host, &err)
            }
        }
        guard status == CX11_OK, let host else { throw CX11Calls.error(err, stage: .connect, call: "cx11_host_open") }
        self.handle = host
        self.display = display
        self.authority = authority
        self.selection = selection
    }

    deinit { cx11_host_close(handle) }

    /// The connection's descriptor: poll it for readability, then call `service()`.
    public var descriptor: Int32 { cx11_host_fd(handle) }

    /// The X server time of the event that causes the next copies (a key press; 0: none): they
    /// take the selection with it, as ICCCM asks, which saves a round trip for a timestamp. One
    /// the server refuses (someone took the selection after that event) falls back to a fresh one.
    public var eventTime: UInt32 = 0

    /// Whether it owns the selection, as far as the events it has read tell.
    public var owns: Bool { cx11_host_owns(handle) != 0 }

    /// Owns the selection with `payload`, served by `options` (and the hand-off of `policy`);
    /// returns once the X server confirmed it.
    public func copy(
        _ payload: Payload, options: CopyOptions = CopyOptions(),
        policy: OwnerPolicy = OwnerPolicy()
    ) throws(ClipboardError) {
        var err = cx11_error()
        let time = eventTime
        let status = CX11Calls.withOwnOptions(
            payload, selection: selection, options: options, policy: policy, display: nil, authority: nil
        ) { o in
            payload.withUnsafeBytes { bytes in
                let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return cx11_host_copy(handle, &o, base, bytes.count, time, &err)
            }
        }
        guard status == CX11_OK else { throw CX11Calls.error(err, stage: .own, call: "cx11_host_copy") }
    }

    /// Answers every queued request and runs the timers that are due, without blocking. Returns
    /// the seconds until the next timer (nil: none); `.noDisplay` once the X server went away.
    public func service() throws(ClipboardError) -> Double? {
        var err = cx11_error()
        var next = 0.0
        guard cx11_host_service(handle, &next, &err) == CX11_OK else {
            throw CX11Calls.error(err, stage: .connect, call: "cx11_host_service")
        }
        return next > 0 ? next : nil
    }

    /// Hands what it owns to a detached owner process (which then also takes the next CLI
    /// copies), with what is left of a secret's clear and of the lifetime; nil when it owns
    /// nothing. Bounded by `options.connectTimeout`.
    @discardableResult
    public func handOver(options: CopyOptions = CopyOptions(), policy: OwnerPolicy)
        throws(ClipboardError) -> OwnerProcess?
    {
        var err = cx11_error()
        var pid: pid_t = 0
        let status = CX11Calls.withOptionalCString(display) { d in
            CX11Calls.withOptionalCString(authority) { a in
                var o = cx11_own_options()
                o.display = d
                o.authority = a
                o.connect_timeout = options.connectTimeout
                o.single_fork = policy.callerExitsSoon ? 1 : 0
                o.reuse_owner = policy.reuseOwner ? 1 : 0
                return cx11_host_hand_over(handle, &o, &pid, &err)
            }
        }
        if status == CX11_NO_CONTENT { return nil }
        guard status == CX11_OK else { throw CX11Calls.error(err, stage: .own, call: "cx11_host_hand_over") }
        return OwnerProcess(pid: pid)
    }
}
