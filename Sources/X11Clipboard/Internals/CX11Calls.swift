public import CX11
public import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The single choke point between Swift and CX11: one function per C entry point, each checking
/// the status and throwing a typed error that names the call. Pointers stay in here.
///
/// Internal but for the test seam: what only tests call (C's `cx11_testing.h`) is
/// `@_spi(Testing) public`.
@_spi(Testing) public enum CX11Calls {
    /// What a C status means to a reader of the Swift API, given the call it came from.
    enum Stage {
        case connect, own, paste
    }

    static func error(_ error: cx11_error, stage: Stage, call: String) -> ClipboardError {
        let message = "\(call): " + messageText(error)
        switch error.status {
        case CX11_NO_DISPLAY:
            return .noDisplay(reason: messageText(error))
        case CX11_TIMED_OUT:
            return stage == .paste ? .timedOut(message) : .noDisplay(reason: messageText(error))
        case CX11_NOT_OWNER:
            return .ownershipNotConfirmed(reason: messageText(error))
        case CX11_TOO_SLOW:
            return .tooSlow(message)
        case CX11_NO_CONTENT, CX11_NO_OWNER:
            return .noContent(messageText(error))
        case CX11_UNSUPPORTED:
            return .unsupported(message)
        default:
            return .failed(message)
        }
    }

    static func messageText(_ error: cx11_error) -> String {
        withUnsafeBytes(of: error.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    static func selection(_ name: SelectionName) -> cx11_selection {
        switch name {
        case .clipboard: CX11_CLIPBOARD
        case .primary: CX11_PRIMARY
        }
    }

    static func kind(_ kind: Payload.Kind) -> cx11_kind {
        switch kind {
        case .text: CX11_KIND_TEXT
        case .json: CX11_KIND_JSON
        case .binary: CX11_KIND_BINARY
        }
    }

    /// `cx11_parse_display` (test seam): the parsed address, or `.noDisplay` naming the problem.
    @_spi(Testing) public static func parseDisplay(_ name: String?) throws(ClipboardError) -> cx11_display_addr {
        var address = cx11_display_addr()
        var err = cx11_error()
        let status = withOptionalCString(name) { cx11_parse_display($0, &address, &err) }
        guard status == CX11_OK else { throw error(err, stage: .connect, call: "cx11_parse_display") }
        return address
    }

    /// `cx11_probe` (test seam): connects and completes the X setup within `timeout`, then
    /// disconnects; `.noDisplay` when that fails.
    static func probe(display: String?, authority: String?, timeout: Double) throws(ClipboardError) {
        var err = cx11_error()
        let status = withOptionalCString(display) { d in
            withOptionalCString(authority) { a in cx11_probe(d, a, timeout, &err) }
        }
        guard status == CX11_OK else { throw error(err, stage: .connect, call: "cx11_probe") }
    }

    /// `cx11_xwayland`: nil when the server is not XWayland.
    static func xwayland(display: String?, authority: String?, timeout: Double) throws(ClipboardError)
        -> XWaylandFacts?
    {
        var err = cx11_error()
        var found = cx11_xwayland_facts()
        let status = withOptionalCString(display) { d in
            withOptionalCString(authority) { a in cx11_xwayland(d, a, timeout, &found, &err) }
        }
        guard status == CX11_OK else { throw error(err, stage: .connect, call: "cx11_xwayland") }
        guard found.is_xwayland != 0 else { return nil }
        return XWaylandFacts(
            x11WindowFocused: found.x11_window_focused != 0,
            largestWholeProperty: Int(clamping: found.largest_whole_property))
    }

    /// `cx11_own`: returns the serving process's id.
    static func own(
        _ payload: Payload, selection name: SelectionName, options: CopyOptions, policy: OwnerPolicy,
        display: String?, authority: String?
    ) throws(ClipboardError) -> pid_t {
        var err = cx11_error()
        var pid: pid_t = 0
        let status = withOwnOptions(
            payload, selection: name, options: options, policy: policy, display: display, authority: authority
        ) { o in
            payload.withUnsafeBytes { bytes in
                cx11_own(&o, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &pid, &err)
            }
        }
        guard status == CX11_OK else { throw error(err, stage: .own, call: "cx11_own") }
        return pid
    }

    /// The `cx11_own_options` of a copy of `payload` (its strings valid only inside `body`).
    static func withOwnOptions<R>(
        _ payload: Payload, selection name: SelectionName, options: CopyOptions, policy: OwnerPolicy,
        display: String?, authority: String?, _ body: (inout cx11_own_options) -> R
    ) -> R {
        withOptionalCString(display) { d in
            withOptionalCString(authority) { a in
                withOptionalCString(options.clearReport) { report in
                    var o = cx11_own_options(
                        display: d,
                        authority: a,
                        selection: selection(name),
                        kind: kind(payload.kind),
                        is_secret: payload.isSecret ? 1 : 0,
                        connect_timeout: options.connectTimeout,
                        transfer_timeout: options.transferTimeout,
                        clear_after: payload.isSecret ? (options.clearSecretAfter ?? 0) : 0,
                        lifetime: options.lifetime ?? 0,
                        handoff_timeout: policy.handOffTimeout,
                        single_fork: policy.callerExitsSoon ? 1 : 0,
                        handoff_at_once: policy.handOffAtOnce ? 1 : 0,
                        reuse_owner: policy.reuseOwner ? 1 : 0,
                        new_owner: policy.newOwner ? 1 : 0,
                        clear_report: report
                    )
                    return body(&o)
                }
            }
        }
    }

    /// `cx11_paste` (and `cx11_free` of its buffer). `fallback`, when given, is tried once when
    /// the owner refuses `target` (not when there is no owner), its bytes passed through `convert`.
    static func paste(
        display: String?, authority: String?, selection name: SelectionName, target: String,
        times: cx11_paste_times, fallback: String? = nil,
        convert: ([UInt8]) -> [UInt8] = { $0 }
    ) throws(ClipboardError) -> [UInt8] {
        var err = cx11_error()
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        var limits = times
        let status = withOptionalCString(display) { d in
            withOptionalCString(authority) { a in
                target.withCString { t in
                    cx11_paste(d, a, selection(name), t, &limits, &buffer, &count, &err)
                }
            }
        }
        if status == CX11_NO_CONTENT, let fallback {
            return convert(
                try paste(
                    display: display, authority: authority, selection: name, target: fallback, times: times))
        }
        guard status == CX11_OK else { throw error(err, stage: .paste, call: "cx11_paste") }
        defer { cx11_free(buffer) }
        guard let buffer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: count))
    }

    /// `cx11_paste_to_fd`: streams the selection to `fd` as it arrives. `fallback`, when given, is
    /// tried once when the owner refuses `target` (before any byte is written), its bytes taken
    /// as Latin-1 and written as UTF-8.
    static func paste(
        display: String?, authority: String?, selection name: SelectionName, target: String,
        times: cx11_paste_times, fallback: String?, to fd: Int32, latin1: Bool = false
    ) throws(ClipboardError) {
        var err = cx11_error()
        var written = 0
        var limits = times
        let status = withOptionalCString(display) { d in
            withOptionalCString(authority) { a in
                target.withCString { t in
                    cx11_paste_to_fd(d, a, selection(name), t, &limits, fd, latin1 ? 1 : 0, &written, &err)
                }
            }
        }
        if status == CX11_NO_CONTENT, written == 0, let fallback {
            return try paste(
                display: display, authority: authority, selection: name, target: fallback, times: times,
                fallback: nil, to: fd, latin1: true)
        }
        guard status == CX11_OK else { throw error(err, stage: .paste, call: "cx11_paste_to_fd") }
    }

    /// `cx11_resident_name` (test seam): the abstract socket name of our resident owner, or nil when
    /// the display does not parse or the executable cannot be stat'ed.
    static func residentName(display: String?, selection name: SelectionName, executable: String?) -> String? {
        var buffer = [CChar](repeating: 0, count: 128)
        let status = withOptionalCString(display) { d in
            withOptionalCString(executable) { e in
                buffer.withUnsafeMutableBufferPointer { out in
                    cx11_resident_name(d, selection(name), e, out.baseAddress, out.count, nil)
                }
            }
        }
        guard status == CX11_OK else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `cx11_authority_path` (test seam): the Xauthority file read when none is given, for these
    /// values of `$XAUTHORITY` and `$HOME` (nil: unset); nil when there is none.
    static func authorityPath(xauthority: String?, home: String?) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let found = withOptionalCString(xauthority) { x in
            withOptionalCString(home) { h in
                buffer.withUnsafeMutableBufferPointer { cx11_authority_path(x, h, $0.baseAddress, $0.count) }
            }
        }
        guard found == 1 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let string else { return body(nil) }
        return string.withCString { body($0) }
    }
}
