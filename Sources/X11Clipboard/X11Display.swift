import CX11
public import UserDebugKit

/// Whether an X display answers.
public enum X11Display {
    /// Connects to `display` (nil or empty: `$DISPLAY`) and completes the X setup within
    /// `timeout` seconds, then disconnects. A server that accepts but never answers fails at the
    /// deadline with `.noDisplay`, as do an unset, garbage or unserved DISPLAY.
    public static func probe(_ display: String?, timeout: Double) -> Result<Void, ClipboardError> {
        probe(display, authority: nil, timeout: timeout)
    }

    /// `probe` with an explicit Xauthority file.
    public static func probe(_ display: String?, authority: String?, timeout: Double) -> Result<Void, ClipboardError> {
        do throws(ClipboardError) {
            try CX11Calls.probe(display: display, authority: authority, timeout: timeout)
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
