import CX11
public import UserDebugKit

/// Facts about an X display that only tests ask for: whether it answers, and where our resident
/// owner listens on it. Test seam: `@_spi(Testing)`, not part of the library's API.
@_spi(Testing) public enum X11Display {
    /// Connects to `display` (nil or empty: `$DISPLAY`) and completes the X setup within
    /// `timeout` seconds, then disconnects. A server that accepts but never answers fails at the
    /// deadline with `.noDisplay`, as do an unset, garbage or unserved DISPLAY.
    @_spi(Testing) public static func probe(_ display: String?, timeout: Double) -> Result<Void, ClipboardError> {
        probe(display, authority: nil, timeout: timeout)
    }

    /// `probe` with an explicit Xauthority file.
    @_spi(Testing) public static func probe(_ display: String?, authority: String?, timeout: Double)
        -> Result<Void, ClipboardError>
    {
        do throws(ClipboardError) {
            try CX11Calls.probe(display: display, authority: authority, timeout: timeout)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// The Xauthority file a connection without an explicit one reads, for these values of
    /// `$XAUTHORITY` and `$HOME` (nil: unset), as libXau names it; nil when both are unset or
    /// the name is too long. Computed by the same C function the connection uses.
    @_spi(Testing) public static func authorityPath(xauthority: String?, home: String?) -> String? {
        CX11Calls.authorityPath(xauthority: xauthority, home: home)
    }

    /// The abstract unix socket name (without its leading NUL, as `/proc/net/unix` shows it after
    /// `@`) on which a resident owner of `selection` on `display` listens, when it was forked by
    /// the executable file at `executable` (nil: this process's own). The library computes the
    /// name with the same C function. Nil when the display does not parse or the file is missing.
    @_spi(Testing) public static func residentOwnerName(
        display: String?, selection: SelectionName, executable: String? = nil
    ) -> String? {
        CX11Calls.residentName(display: display, selection: selection, executable: executable)
    }
}
