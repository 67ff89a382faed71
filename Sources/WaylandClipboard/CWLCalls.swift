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
            return .ownershipNotConfirmed
        case CWL_NO_CONTENT, CWL_NO_OWNER:
            return .noContent(text)
        case CWL_UNSUPPORTED:
            return .unsupported("\(call): \(text)")
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
        let interface: WaylandDataControl.Interface
        switch result.protocol {
        case CWL_PROTOCOL_EXT: interface = .ext
        case CWL_PROTOCOL_WLR: interface = .wlr
        default: return .answers(dataControl: nil)
        }
        return .answers(
            dataControl: WaylandDataControl(
                interface: interface, version: result.version, supportsPrimary: result.has_primary != 0,
                hasSeat: result.has_seat != 0))
    }
}

/// Calls `body` with `text` as a C string, or with NULL when it is nil.
func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
