import CPopup

#if canImport(Glibc)
    import Glibc
#endif

extension PopupApp {
    /// Draws the heading and the visible rows into the back buffer, shows it, and traces the
    /// state that was drawn.
    func draw(_ model: PopupModel, in window: PopupWindow) {
        let layout = window.layout
        let pad = layout.padding
        window.fill(.border, 0, 0, layout.width, layout.height)
        window.fill(.background, 1, 1, layout.width - 2, layout.height - 2)
        window.text(model.heading, .dim, x: 1 + 2 * pad, y: 1 + pad + layout.ascent, maxWidth: layout.width - 4 * pad)
        window.fill(.border, 1, layout.headingHeight, layout.width - 2, 1)
        let end = min(model.top + layout.visibleRows, model.rows.count)
        for index in model.top..<max(end, model.top) {
            let y = layout.headingHeight + 1 + (index - model.top) * layout.rowHeight
            drawRow(model.rows[index], selected: index == model.selected && model.selectedRow != nil, y: y, in: window)
        }
        if model.rows.count > layout.visibleRows {
            let track = layout.visibleRows * layout.rowHeight
            let thumb = max(track * layout.visibleRows / model.rows.count, 4)
            let offset = track * model.top / model.rows.count
            window.fill(.dim, layout.width - 4, layout.headingHeight + 1 + offset, 2, thumb)
        }
        window.present()
    }

    private func drawRow(_ row: PopupRow, selected: Bool, y: Int, in window: PopupWindow) {
        let layout = window.layout
        let pad = layout.padding
        let baseline = y + pad + layout.ascent
        if selected { window.fill(.selectedBackground, 1, y, layout.width - 2, layout.rowHeight) }
        let main: Slot =
            selected ? .selectedForeground : (row.kind == .action || row.kind == .submenu ? .foreground : .dim)
        let second: Slot = selected ? .selectedForeground : .dim
        var right = layout.width - 3 * pad
        if row.kind == .submenu {
            // The core font fallback has Latin-1 only.
            let arrow = window.antialiased ? "▸" : ">"
            right -= window.width(arrow)
            window.text(arrow, second, x: right, y: baseline, maxWidth: layout.width)
            right -= 2 * pad
        } else if let hint = row.hint {
            right -= window.width(hint)
            window.text(hint, second, x: right, y: baseline, maxWidth: layout.width)
            right -= 2 * pad
        }
        let left = 1 + (row.kind == .header ? 2 : 3) * pad
        window.text(row.title, main, x: left, y: baseline, maxWidth: right - left)
        guard let subtitle = row.subtitle else { return }
        let after = left + window.width(row.title) + 3 * pad
        if after < right { window.text(subtitle, second, x: after, y: baseline, maxWidth: right - after) }
    }
}

/// Seconds on the monotonic clock.
func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Milliseconds since `start`, with two decimals, for `--trace`.
func milliseconds(since start: Double) -> String {
    milliseconds(from: start, to: monotonicNow())
}

/// Milliseconds from `start` to `end`, with two decimals.
func milliseconds(from start: Double, to end: Double) -> String {
    let hundredths = Int(((end - start) * 100_000).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
