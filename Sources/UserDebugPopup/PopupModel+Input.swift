import UserDebugKit

/// Keysyms the popup acts on (X11/keysymdef.h).
enum Keysym {
    static let backSpace: UInt = 0xff08
    static let tab: UInt = 0xff09
    static let returnKey: UInt = 0xff0d
    static let escape: UInt = 0xff1b
    static let home: UInt = 0xff50
    static let left: UInt = 0xff51
    static let up: UInt = 0xff52
    static let right: UInt = 0xff53
    static let down: UInt = 0xff54
    static let pageUp: UInt = 0xff55
    static let pageDown: UInt = 0xff56
    static let end: UInt = 0xff57
    static let keypadEnter: UInt = 0xff8d
    static let isoLeftTab: UInt = 0xfe20
}

extension PopupModel {
    /// The Alt modifier (Mod1) in an X event's state.
    static let altMask: UInt32 = 8

    /// A key press: `keysym`, the modifier `state`, and the text it types ("" for none).
    ///
    /// Arrows, Home/End and PageUp/PageDown move; Enter and Right choose (Right only opens);
    /// Left and Backspace go back (Backspace first edits the filter); Esc closes. A capital
    /// letter (Shift) or any key with Alt that is a visible entry's key hint runs that entry, as
    /// the hint `I` is shown; any other text, lower case, goes into the filter.
    mutating func key(_ keysym: UInt, state: UInt32, text typed: String) -> PopupCommand {
        switch keysym {
        case Keysym.escape: return .close
        case Keysym.up, Keysym.isoLeftTab: return move(by: -1)
        case Keysym.down, Keysym.tab: return move(by: 1)
        case Keysym.home: return moveTo(rows.firstIndex(where: \.isSelectable), step: 1)
        case Keysym.end: return moveTo(rows.lastIndex(where: \.isSelectable), step: -1)
        case Keysym.pageUp: return moveTo(max(selected - max(visibleCount - 1, 1), 0), step: 1)
        case Keysym.pageDown: return moveTo(min(selected + max(visibleCount - 1, 1), rows.count - 1), step: -1)
        case Keysym.returnKey, Keysym.keypadEnter: return choose(selectedRow)
        case Keysym.right:
            guard let row = selectedRow, row.kind == .submenu else { return .none }
            return choose(row)
        case Keysym.left: return filter.isEmpty ? back() : .none
        case Keysym.backSpace:
            guard !filter.isEmpty else { return back() }
            filter.removeLast()
            rebuild(keeping: selectedRow?.id)
            return .redraw
        default: return insert(typed, alt: state & Self.altMask != 0)
        }
    }

    private mutating func insert(_ typed: String, alt: Bool) -> PopupCommand {
        guard !typed.isEmpty, typed.allSatisfy({ !$0.isWhitespace || $0 == " " }) else { return .none }
        let capital = typed != typed.lowercased()
        if capital || alt, let row = rows.first(where: { $0.hint?.uppercased() == typed.uppercased() }) {
            return choose(row)
        }
        if alt { return .none }
        filter += typed
        rebuild(keeping: selectedRow?.id)
        return .redraw
    }

    /// Runs an action row, opens a submenu row.
    mutating func choose(_ row: PopupRow?) -> PopupCommand {
        guard let row else { return .none }
        switch row.kind {
        case .action:
            return .run(row.id)
        case .submenu:
            guard let submenu = Self.submenu(id: row.id, in: path.last?.children ?? elements) else { return .none }
            path.append(submenu)
            filter = ""
            rebuild(keeping: nil)
            return .redraw
        case .header, .placeholder:
            return .none
        }
    }

    /// Leaves the submenu for its parent, the submenu's row selected there.
    mutating func back() -> PopupCommand {
        guard let left = path.popLast() else { return .none }
        rebuild(keeping: left.id)
        return .redraw
    }

    /// Selects the row under the pointer (`index` in `rows`), when it can be chosen.
    mutating func hover(_ index: Int) -> PopupCommand {
        guard rows.indices.contains(index), rows[index].isSelectable, index != selected else { return .none }
        selected = index
        return .redraw
    }

    /// Scrolls the view by `lines` rows without moving the selection out of reach.
    mutating func scroll(by lines: Int) -> PopupCommand {
        let newTop = max(0, min(top + lines, max(rows.count - visibleCount, 0)))
        guard newTop != top else { return .none }
        top = newTop
        if selected < top || selected >= top + visibleCount {
            let inView = rows.indices.filter { $0 >= top && $0 < top + visibleCount && rows[$0].isSelectable }
            if let first = lines > 0 ? inView.first : inView.last { selected = first }
        }
        return .redraw
    }

    private mutating func move(by step: Int) -> PopupCommand {
        guard rows.contains(where: \.isSelectable) else { return .none }
        var index = selected
        repeat {
            index = (index + step + rows.count) % rows.count
        } while !rows[index].isSelectable
        return select(index)
    }

    /// Selects `index`, or the nearest choosable row from it in the direction `step`.
    private mutating func moveTo(_ index: Int?, step: Int) -> PopupCommand {
        guard var index, rows.indices.contains(index) else { return .none }
        while rows.indices.contains(index), !rows[index].isSelectable { index += step }
        guard rows.indices.contains(index) else { return .none }
        return select(index)
    }

    private mutating func select(_ index: Int) -> PopupCommand {
        guard index != selected else { return .none }
        selected = index
        keepSelectionVisible()
        return .redraw
    }

    mutating func keepSelectionVisible() {
        if selected < top { top = selected }
        if selected >= top + visibleCount { top = selected - visibleCount + 1 }
        top = max(0, min(top, max(rows.count - visibleCount, 0)))
        // A header just above the first visible entry stays in view with it.
        if top > 0, top == selected, rows[top - 1].kind == .header { top -= 1 }
    }
}
