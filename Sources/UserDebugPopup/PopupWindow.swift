import CPopup
import UserDebugCLI
import UserDebugKit

/// Colour slots of the C side, in `Config.Popup.Colors` order.
enum Slot: Int32 {
    case background = 0
    case foreground, dim, selectedBackground, selectedForeground, border
}

/// Sizes derived from the font, so a larger `Xft.dpi` makes a larger popup.
struct PopupLayout {
    var ascent: Int
    var descent: Int
    var width = 0
    var visibleRows = 1

    var padding: Int { max(2, (ascent + descent) / 4) }
    var rowHeight: Int { ascent + descent + 2 * padding }
    var headingHeight: Int { rowHeight + 1 }
    var height: Int { headingHeight + visibleRows * rowHeight + 2 }

    /// The row (an index into the model's rows) under window position `y`.
    func row(at y: Int, top: Int) -> Int? {
        guard y >= headingHeight + 1 else { return nil }
        let slot = (y - headingHeight - 1) / rowHeight
        return slot < visibleRows ? top + slot : nil
    }
}

/// The popup's X window: the C side (`udpopup.h`) with Swift strings.
final class PopupWindow {
    private let ui: OpaquePointer
    private(set) var layout: PopupLayout
    /// Whether text is drawn by Xft (anti-aliased) or by the core font fallback.
    let antialiased: Bool
    private var widths: [String: Int] = [:]

    /// Connects to `display`, loads the font at the screen's `Xft.dpi` and sets the colours.
    init(display: String?, settings: Config.Popup) throws {
        var error = udp_error()
        guard let ui = udp_open(display, &error) else { throw PopupHost.unavailable(Self.message(error)) }
        self.ui = ui
        let loaded = udp_load_font(ui, settings.font, udp_resource_dpi(ui), &error)
        guard loaded >= 0 else {
            udp_close(ui)
            throw PopupHost.unavailable(Self.message(error))
        }
        antialiased = loaded == 1
        var ascent: Int32 = 0
        var descent: Int32 = 0
        udp_font_metrics(ui, &ascent, &descent)
        layout = PopupLayout(ascent: Int(ascent), descent: Int(descent))
        let colors = settings.colors
        let specs = [
            colors.background, colors.foreground, colors.dim, colors.selectedBackground, colors.selectedForeground,
            colors.border,
        ]
        for (slot, spec) in specs.enumerated() where udp_set_color(ui, Int32(slot), spec, &error) != 0 {
            udp_close(ui)
            throw PopupHost.unavailable(Self.message(error))
        }
    }

    /// Whether the X server is XWayland.
    var xwayland: Bool { udp_is_xwayland(ui) != 0 }

    /// Ungrabs, destroys the window and disconnects.
    func close() {
        udp_close(ui)
    }

    /// What wakes the event loop from another thread.
    var waker: Waker { Waker(ui: ui) }

    /// Where the pointer is, and the monitor that holds it.
    func pointer() throws -> (x: Int, y: Int, monitor: udp_rect) {
        var x: Int32 = 0
        var y: Int32 = 0
        var monitor = udp_rect()
        var error = udp_error()
        guard udp_pointer(ui, &x, &y, &monitor, &error) == 0 else { throw PopupHost.unavailable(Self.message(error)) }
        return (Int(x), Int(y), monitor)
    }

    /// Width in pixels of `text`, remembered (the same titles are measured on every redraw).
    func width(_ text: String) -> Int {
        if let known = widths[text] { return known }
        var copy = text
        let measured = copy.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { Int(udp_text_width(ui, $0.baseAddress, Int32($0.count))) }
        }
        widths[text] = measured
        return measured
    }

    /// Fixes the window's size: as wide as the widest of `rows` and as high as `count` rows, each
    /// within what fits on `monitor`.
    func size(for rows: [PopupRow], count: Int, monitor: udp_rect) {
        let widest = rows.map { rowWidth($0) }.max() ?? 0
        let maximum = max(Int(monitor.width) * 6 / 10, 200)
        layout.width = min(max(widest + 4 * layout.padding, 16 * layout.rowHeight), maximum)
        let fit = (Int(monitor.height) * 8 / 10 - layout.headingHeight) / layout.rowHeight
        layout.visibleRows = max(1, min(count, 24, fit))
    }

    /// Goes back to `layout` (the window was not resized after all).
    func keep(_ layout: PopupLayout) {
        self.layout = layout
    }

    func rowWidth(_ row: PopupRow) -> Int {
        var total = width(row.title) + 6 * layout.padding
        if let subtitle = row.subtitle { total += width(subtitle) + 3 * layout.padding }
        if let hint = row.hint { total += width(hint) + 2 * layout.padding }
        if row.kind == .submenu { total += width(antialiased ? "▸" : ">") + 2 * layout.padding }
        return total
    }

    /// Maps the window at `rect` and grabs the keyboard and the pointer (retrying briefly).
    func map(at rect: udp_rect) throws {
        var error = udp_error()
        guard udp_window_open(ui, rect, &error) == 0 else { throw PopupHost.unavailable(Self.message(error)) }
        guard udp_grab(ui, 1.0, &error) == 0 else { throw PopupHost.unavailable(Self.message(error)) }
    }

    /// Moves and resizes the mapped window to `rect`.
    func resize(to rect: udp_rect) throws {
        var error = udp_error()
        guard udp_window_resize(ui, rect, &error) == 0 else { throw PopupHost.unavailable(Self.message(error)) }
    }

    /// What the X server refused, naming the request (`udp_x_error`), or nil when it refused
    /// nothing.
    func refusedRequest() -> String? {
        var error = udp_error()
        return udp_x_error(ui, &error) != 0 ? Self.message(error) : nil
    }

    /// The window's X id.
    var windowID: UInt { UInt(udp_window_id(ui)) }

    /// The next event, waiting at most `milliseconds` (negative: forever).
    func nextEvent(timeout milliseconds: Int32 = -1) -> udp_event {
        var event = udp_event()
        udp_next_event(ui, milliseconds, &event)
        return event
    }

    func fill(_ slot: Slot, _ x: Int, _ y: Int, _ width: Int, _ height: Int) {
        udp_fill(ui, slot.rawValue, Int32(x), Int32(y), Int32(width), Int32(height))
    }

    /// Draws `text` with its baseline at `y`, cut with `…` to `maxWidth` pixels.
    func text(_ text: String, _ slot: Slot, x: Int, y: Int, maxWidth: Int) {
        var shown = text
        let ellipsis = antialiased ? "…" : "..."
        if width(text) > maxWidth {
            let characters = Array(text)
            var low = 0
            var high = characters.count
            while low < high {
                let middle = (low + high + 1) / 2
                if width(String(characters[..<middle]) + ellipsis) <= maxWidth {
                    low = middle
                } else {
                    high = middle - 1
                }
            }
            shown = String(characters[..<low]) + ellipsis
        }
        shown.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                udp_text(ui, slot.rawValue, Int32(x), Int32(y), $0.baseAddress, Int32($0.count))
            }
        }
    }

    /// Copies what was drawn to the window.
    func present() {
        udp_present(ui)
    }

    /// Waits until the server has handled every request sent.
    func sync() {
        udp_sync(ui)
    }

    private static func message(_ error: udp_error) -> String {
        var copy = error
        return withUnsafeBytes(of: &copy.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// Wakes the popup's event loop from the thread that resolves deferred sections.
struct Waker: @unchecked Sendable {
    fileprivate let ui: OpaquePointer

    func wake() {
        udp_wake(ui)
    }
}
