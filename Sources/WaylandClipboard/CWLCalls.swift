import CWayland
import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The single choke point between Swift and CWayland: one function per C entry point, each
/// checking the status and throwing a typed error that names the call. Pointers stay in here.
enum CWLCalls {
    /// What a C status means to a reader of the Swift API, given the call it came from.
    static func error(_ error: cwl_error, paste: Bool, call: String) -> ClipboardError {
        let text = messageText(error)
        switch error.status {
        case CWL_NO_DISPLAY:
            return .noDisplay(reason: text)
        case CWL_TIMED_OUT:
            return paste ? .timedOut("\(call): \(text)") : .noDisplay(reason: text)
        case CWL_NOT_OWNER:
            return .ownershipNotConfirmed(reason: text)
        case CWL_NO_CONTENT, CWL_NO_OWNER:
            return .noContent(text)
        case CWL_UNSUPPORTED:
            return .unsupported("\(call): \(text)")
        case CWL_TOO_SLOW:
            return .tooSlow("\(call): \(text)")
        default:
            return .failed("\(call): \(text)")
        }
    }

    static func messageText(_ error: cwl_error) -> String {
        withUnsafeBytes(of: error.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    static func selection(_ name: SelectionName) -> cwl_selection {
        switch name {
        case .clipboard: CWL_CLIPBOARD
        case .primary: CWL_PRIMARY
        }
    }

    /// `cwl_probe`.
    static func probe(display: String?, runtimeDir: String?, timeout: Double) -> WaylandProbe {
        let name = display ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) }
        guard let name, !name.isEmpty else { return .notSet }
        var result = cwl_probe_result()
        var err = cwl_error()
        let status = name.withCString { d in
            withOptionalCString(runtimeDir) { r in cwl_probe(d, r, timeout, &result, &err) }
        }
        guard status == CWL_OK else { return .noAnswer(reason: messageText(err)) }
        return probe(from: result)
    }

    /// What the compositor's registry showed, as `WaylandProbe` (of a compositor that answered).
    static func probe(from result: cwl_probe_result) -> WaylandProbe {
        let interface: WaylandDataControl.Interface
        switch result.protocol {
        case CWL_PROTOCOL_EXT: interface = .ext
        case CWL_PROTOCOL_WLR: interface = .wlr
        default: return .answers(dataControl: nil, family: family(result.family))
        }
        return .answers(
            dataControl: WaylandDataControl(
                interface: interface, version: result.version, supportsPrimary: result.has_primary != 0,
                hasSeat: result.has_seat != 0), family: family(result.family))
    }

    /// `cwl_family` as `WaylandCompositorFamily`.
    static func family(_ family: cwl_family) -> WaylandCompositorFamily {
        switch family {
        case CWL_FAMILY_WLROOTS: .wlroots
        case CWL_FAMILY_WESTON: .weston
        default: .other
        }
    }
}

extension CWLCalls {
    /// `cwl_own`: returns the serving process's id.
    static func own(
        _ payload: Payload, selection name: SelectionName, options: CopyOptions, display: String?,
        runtimeDir: String?, policy: OwnerPolicy
    ) throws(ClipboardError) -> Int32 {
        var pid: pid_t = 0
        var err = cwl_error()
        let status = withOwnOptions(payload, name, options, display, runtimeDir, policy) { o, bytes in
            cwl_own(&o, bytes.baseAddress, bytes.count, &pid, &err)
        }
        guard status == CWL_OK else { throw error(err, paste: false, call: "cwl_own") }
        return pid
    }

    /// `cwl_own` with `probed` (and `skip_hand`): what the compositor answered and, when it offers
    /// data-control with a seat (so the copy went on, on the same connection), the serving
    /// process's id or the copy's failure.
    static func ownIfDataControl(
        _ payload: Payload, selection name: SelectionName, options: CopyOptions, display: String?,
        runtimeDir: String?, policy: OwnerPolicy
    ) -> (probe: WaylandProbe, copy: Result<Int32, ClipboardError>?) {
        var pid: pid_t = 0
        var err = cwl_error()
        var probed = cwl_probe_result()
        let status = withOwnOptions(payload, name, options, display, runtimeDir, policy) { o, bytes in
            o.skip_hand = 1
            return withUnsafeMutablePointer(to: &probed) { answer in
                o.probed = answer
                return cwl_own(&o, bytes.baseAddress, bytes.count, &pid, &err)
            }
        }
        guard probed.answered != 0 else { return (.noAnswer(reason: messageText(err)), nil) }
        let found = probe(from: probed)
        guard case .answers(let dataControl?, _) = found, dataControl.hasSeat else { return (found, nil) }
        return (found, status == CWL_OK ? .success(pid) : .failure(error(err, paste: false, call: "cwl_own")))
    }

    /// `cwl_hand`: the serving process's id, or nil when no serving process of ours took the copy.
    static func hand(
        _ payload: Payload, selection name: SelectionName, options: CopyOptions, display: String?,
        runtimeDir: String?
    ) -> Int32? {
        var pid: pid_t = 0
        var err = cwl_error()
        let policy = OwnerPolicy(callerExitsSoon: true)
        let status = withOwnOptions(payload, name, options, display, runtimeDir, policy) { o, bytes in
            cwl_hand(&o, bytes.baseAddress, bytes.count, &pid, &err)
        }
        return status == CWL_OK ? pid : nil
    }

    /// Calls `body` with the `cwl_own_options` of this copy and its bytes.
    private static func withOwnOptions(
        _ payload: Payload, _ name: SelectionName, _ options: CopyOptions, _ display: String?, _ runtimeDir: String?,
        _ policy: OwnerPolicy,
        _ body: (inout cwl_own_options, UnsafeBufferPointer<UInt8>) -> cwl_status
    ) -> cwl_status {
        let kind: cwl_kind =
            switch payload.kind {
            case .text: CWL_KIND_TEXT
            case .json: CWL_KIND_JSON
            case .binary: CWL_KIND_BINARY
            }
        let isText = payload.kind != .binary || payload.withUnsafeBytes { isValidUTF8($0) }
        return withOptionalCString(display) { d in
            withOptionalCString(runtimeDir) { r in
                withOptionalCString(options.clearReport) { report in
                    var o = cwl_own_options(
                        display: d, runtime_dir: r, selection: selection(name), kind: kind, offer_text: isText ? 1 : 0,
                        is_secret: payload.isSecret ? 1 : 0, connect_timeout: options.connectTimeout,
                        transfer_timeout: options.transferTimeout,
                        clear_after: payload.isSecret ? (options.clearSecretAfter ?? 0) : 0,
                        lifetime: options.lifetime ?? 0, single_fork: policy.callerExitsSoon ? 1 : 0,
                        reuse_owner: policy.reuseOwner ? 1 : 0, new_owner: policy.newOwner ? 1 : 0, probed: nil,
                        skip_hand: 0, clear_report: report)
                    return payload.withUnsafeBytes { body(&o, $0.assumingMemoryBound(to: UInt8.self)) }
                }
            }
        }
    }

    /// `cwl_paste` (and `cwl_free` of its buffer); `fd` >= 0 streams the bytes there instead.
    static func paste(
        display: String?, runtimeDir: String?, selection name: SelectionName, target: String, timeout: Double,
        deadline: Double, to fd: Int32
    ) throws(ClipboardError) -> [UInt8] {
        var err = cwl_error()
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        let status = withOptionalCString(display) { d in
            withOptionalCString(runtimeDir) { r in
                target.withCString { t in
                    cwl_paste(d, r, selection(name), t, timeout, deadline, fd, &buffer, &count, &err)
                }
            }
        }
        guard status == CWL_OK else { throw error(err, paste: true, call: "cwl_paste") }
        defer { cwl_free(buffer) }
        guard let buffer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: count))
    }
}

/// Calls `body` with `text` as a C string, or with NULL when it is nil.
func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
