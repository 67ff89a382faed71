import CX11
public import UserDebugKit

/// Global hotkeys on an X display: a connection that grabs key combinations on the root window
/// (with every CapsLock/NumLock/ScrollLock combination) and reads their presses. Over the raw X
/// protocol, as the clipboard is; for a long-lived, single-threaded caller.
public final class X11Keys {
    /// A combination resolved against the keyboard's maps: its keycodes and X modifier mask.
    public struct Grab: Sendable, Hashable {
        /// Every keycode that carries the keysym.
        public let keycodes: [UInt8]
        /// The X modifier mask (Shift, Control, Mod1…Mod5).
        public let mask: UInt16

        /// Whether a press is this combination.
        public func matches(_ press: Press) -> Bool { keycodes.contains(press.keycode) && press.mask == mask }
    }

    /// A grabbed key going down; the mask without the lock modifiers.
    public struct Press: Sendable, Hashable {
        /// The key.
        public let keycode: UInt8
        /// The modifiers held, locks removed.
        public let mask: UInt16
        /// The X server time of the press: the timestamp for a selection it causes us to take
        /// (`X11SelectionHost.eventTime`), as ICCCM asks.
        public var time: UInt32 = 0
    }

    /// What `next` found.
    public enum Event: Sendable, Hashable {
        /// A grabbed combination was pressed.
        case press(Press)
        /// The keyboard map changed (the grabs stay as they were): resolve again, and grab again
        /// if the keycodes or masks moved.
        case mappingChanged
    }

    /// Why a grab was not made.
    public enum GrabError: Error, Sendable, Equatable {
        /// Another client holds the combination (BadAccess).
        case taken
        /// The keyboard cannot express it (no key carries the keysym, no modifier holds a key).
        case unavailable(String)
        /// The X server went away or did not answer.
        case lost(String)
    }

    private let handle: OpaquePointer

    /// Connects to `display` (nil: `$DISPLAY`) within `timeout` seconds and reads the keyboard's maps.
    public init(display: String?, authority: String? = nil, timeout: Double) throws(ClipboardError) {
        var err = cx11_error()
        var keys: OpaquePointer? = nil
        let status = Self.withOptional(display) { d in
            Self.withOptional(authority) { a in cx11_keys_open(d, a, timeout, &keys, &err) }
        }
        guard status == CX11_OK, let keys else { throw CX11Calls.error(err, stage: .connect, call: "cx11_keys_open") }
        handle = keys
    }

    deinit { cx11_keys_close(handle) }

    /// The connection's descriptor: poll it for readability, then call `next`.
    public var descriptor: Int32 { cx11_keys_fd(handle) }

    /// Resolves `hotkey` against the current keyboard and modifier maps.
    public func resolve(_ hotkey: Hotkey) throws(GrabError) -> Grab {
        var err = cx11_error()
        var grab = cx11_grab()
        guard cx11_keys_resolve(handle, hotkey.keysym, UInt32(hotkey.modifiers.rawValue), &grab, &err) == CX11_OK else {
            throw .unavailable(CX11Calls.messageText(err))
        }
        let codes = withUnsafeBytes(of: grab.keycodes) { Array($0.prefix(Int(grab.count))) }
        return Grab(keycodes: codes, mask: grab.mask)
    }

    /// Grabs `grab` with every lock combination; `.taken` when another client holds it.
    public func grab(_ grab: Grab, timeout: Double = 2) throws(GrabError) {
        var err = cx11_error()
        var raw = cx11_grab()
        raw.mask = grab.mask
        raw.count = UInt32(min(grab.keycodes.count, 8))
        withUnsafeMutableBytes(of: &raw.keycodes) { bytes in
            for (index, code) in grab.keycodes.prefix(8).enumerated() { bytes[index] = code }
        }
        let status = cx11_keys_grab(handle, &raw, timeout, &err)
        switch status {
        case CX11_OK: return
        case CX11_NOT_OWNER: throw .taken
        default: throw .lost(CX11Calls.messageText(err))
        }
    }

    /// Releases every grab of this connection.
    public func ungrabAll() { cx11_keys_ungrab_all(handle) }

    /// The next queued event, without blocking (nil when none is queued); `.noDisplay` when the
    /// X server went away.
    public func next() throws(ClipboardError) -> Event? {
        var err = cx11_error()
        var event = cx11_key_event()
        guard cx11_keys_next(handle, &event, &err) == CX11_OK else {
            throw CX11Calls.error(err, stage: .connect, call: "cx11_keys_next")
        }
        switch event.kind {
        case CX11_KEY_PRESS: return .press(Press(keycode: event.keycode, mask: event.mask, time: event.time))
        case CX11_KEY_MAPPING: return .mappingChanged
        default: return nil
        }
    }

    private static func withOptional<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let string else { return body(nil) }
        return string.withCString { body($0) }
    }
}
