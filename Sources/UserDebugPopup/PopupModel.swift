import UserDebugKit

/// One row of the popup as it is drawn: an entry to run, a submenu to open, a section header,
/// or a deferred section's placeholder (`Loading…`, `timed out`, the error).
struct PopupRow: Equatable {
    /// What a row is; only actions and submenus can be chosen.
    enum Kind: String {
        case action, submenu, header, placeholder
    }

    var kind: Kind
    var id: String
    var title: String
    var subtitle: String?
    var hint: String?

    var isSelectable: Bool { kind == .action || kind == .submenu }
}

/// What a key or a click asks the popup to do next.
enum PopupCommand: Equatable {
    /// Nothing changed.
    case none
    /// The rows or the selection changed: draw again.
    case redraw
    /// Run the action with this id and close.
    case run(String)
    /// Close without running anything.
    case close
}

/// The popup's state, apart from any window: the menu tree, the submenu path, the filter, the
/// selection and the scroll position. Keys and clicks come in as calls, rows go out; the window
/// draws `rows` and nothing else, and `--trace` prints `stateLine`, so tests see what is drawn.
struct PopupModel {
    /// Texts as shown: titles cleaned, subtitles of secrets left out (the host's renderer).
    struct Text {
        var clean: (String) -> String
        var subtitle: (DebugAction) -> String?
    }

    var elements: [MenuElement]
    var path: [Submenu] = []
    var filter = ""
    var rows: [PopupRow] = []
    var selected = 0
    var top = 0
    /// How many rows the window shows at once.
    var visibleCount = 20 {
        didSet { keepSelectionVisible() }
    }
    private let text: Text
    /// The heading at the top level, e.g. `Debug menu · staging`.
    let title: String

    /// Texts as shown are cut (`cut`) after they are cleaned: a token is replaced whole before
    /// any of it could be cut off and shown.
    init(elements: [MenuElement], title: String, text: Text) {
        self.elements = elements
        self.title = Self.cut(title)
        self.text = Text(clean: { Self.cut(text.clean($0)) }, subtitle: { text.subtitle($0).map(Self.cut) })
        rebuild(keeping: nil)
    }

    /// The most Unicode scalars of a heading, a title or a subtitle that the popup measures and
    /// draws: the window is at most 60 % of a monitor wide, a few hundred characters at the
    /// smallest font. A longer value (a user name or a backend field of 300,000 characters) is
    /// cut to this with `…`: drawn whole it was one request too long for the server (BadLength)
    /// and half a second a redraw. What an entry copies is its action's payload, never its row.
    static let shownScalars = 300

    /// `text` cut to `shownScalars` Unicode scalars with `…`, else unchanged. Scalars, not
    /// characters: one character can carry any number of combining marks.
    static func cut(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: shownScalars, limitedBy: scalars.endIndex),
            end != scalars.endIndex
        else { return text }
        return String(scalars[..<end]) + "…"
    }

    /// The selected row, when it can be chosen.
    var selectedRow: PopupRow? {
        rows.indices.contains(selected) && rows[selected].isSelectable ? rows[selected] : nil
    }

    /// The line above the rows: the filter while typing, the submenu's title inside one.
    var heading: String {
        if !filter.isEmpty { return "› " + filter }
        if let submenu = path.last { return "‹ " + text.clean(submenu.title) }
        return title
    }

    /// The tree changed (a deferred section resolved): the rows are rebuilt, the selection kept
    /// on the same entry when it is still there.
    mutating func replaceElements(_ elements: [MenuElement]) {
        self.elements = elements
        path = path.compactMap { submenu in Self.submenu(id: submenu.id, in: elements) }
        rebuild(keeping: selectedRow?.id)
    }

    // MARK: Rows

    mutating func rebuild(keeping id: String?) {
        rows = filter.isEmpty ? levelRows(path.last?.children ?? elements) : filteredRows()
        let kept = id.flatMap { id in rows.firstIndex { $0.id == id && $0.isSelectable } }
        selected = kept ?? rows.firstIndex(where: \.isSelectable) ?? 0
        keepSelectionVisible()
    }

    private func levelRows(_ elements: [MenuElement]) -> [PopupRow] {
        var rows: [PopupRow] = []
        for element in elements {
            switch element {
            case .action(let action):
                rows.append(row(action, title: text.clean(action.title)))
            case .submenu(let submenu):
                rows.append(PopupRow(kind: .submenu, id: submenu.id, title: text.clean(submenu.title)))
            case .deferred(let deferred):
                switch deferred.state {
                case .resolved(let children):
                    rows.append(PopupRow(kind: .header, id: deferred.id, title: text.clean(deferred.title)))
                    rows += levelRows(children)
                case .pending:
                    rows.append(placeholder(deferred, "Loading…"))
                case .timedOut:
                    rows.append(placeholder(deferred, "timed out"))
                case .failed(let reason):
                    rows.append(placeholder(deferred, "failed: " + reason))
                }
            }
        }
        return rows
    }

    /// An action's row; a secret one is marked `(secret)`, as dmenu and rofi show it.
    private func row(_ action: DebugAction, title: String) -> PopupRow {
        PopupRow(
            kind: .action, id: action.id, title: action.isSecret ? title + " (secret)" : title,
            subtitle: text.subtitle(action), hint: action.keyHint)
    }

    private func placeholder(_ deferred: DeferredElement, _ status: String) -> PopupRow {
        PopupRow(kind: .placeholder, id: deferred.id, title: text.clean(deferred.title), subtitle: text.clean(status))
    }

    /// With a filter: every action of the whole tree whose title, id or section matches, as
    /// `Section › Title`, then the placeholders of sections still loading.
    private func filteredRows() -> [PopupRow] {
        let needle = filter.lowercased()
        var rows: [PopupRow] = []
        func walk(_ elements: [MenuElement], prefix: String) {
            for element in elements {
                switch element {
                case .action(let action):
                    let title = prefix + text.clean(action.title)
                    if title.lowercased().contains(needle) || action.id.lowercased().contains(needle) {
                        rows.append(row(action, title: title))
                    }
                case .submenu(let submenu):
                    walk(submenu.children, prefix: prefix + text.clean(submenu.title) + " › ")
                case .deferred(let deferred):
                    if case .pending = deferred.state { rows.append(placeholder(deferred, "Loading…")) }
                    walk(element.children, prefix: prefix + text.clean(deferred.title) + " › ")
                }
            }
        }
        walk(elements, prefix: "")
        return rows
    }

    static func submenu(id: String, in elements: [MenuElement]) -> Submenu? {
        for element in elements {
            if case .submenu(let submenu) = element, submenu.id == id { return submenu }
            if let found = submenu(id: id, in: element.children) { return found }
        }
        return nil
    }

    /// What the window is sized for: the rows of every level and of a filter that matches every
    /// action (the widest), and the most rows one level has (a longer filter result scrolls).
    func sizingRows() -> (rows: [PopupRow], most: Int) {
        var all = allActionsModel().rows
        var most = 1
        func walk(_ elements: [MenuElement]) {
            let level = levelRows(elements)
            all += level
            most = max(most, level.count)
            for element in elements { if case .submenu(let submenu) = element { walk(submenu.children) } }
        }
        walk(elements)
        return (all, most)
    }

    private func allActionsModel() -> PopupModel {
        var copy = self
        copy.filter = ""
        copy.rows = copy.filteredRows()
        return copy
    }

    /// One line for `--trace`: the heading, the filter, the selected row, the scroll position
    /// and every row as the window draws it, as JSON.
    var stateLine: String {
        func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        let rowValues: [JSONValue] = rows.map { row in
            .object(
                JSONObject([
                    .init(key: "kind", value: .string(row.kind.rawValue)), .init(key: "id", value: .string(row.id)),
                    .init(key: "title", value: .string(row.title)),
                    .init(key: "subtitle", value: optional(row.subtitle)),
                    .init(key: "hint", value: optional(row.hint)),
                ]))
        }
        let state = JSONObject([
            .init(key: "heading", value: .string(heading)),
            .init(key: "level", value: .array(path.map { .string($0.id) })),
            .init(key: "filter", value: .string(filter)),
            .init(key: "selected", value: optional(selectedRow?.id)),
            .init(key: "top", value: .number(String(top))),
            .init(key: "rows", value: .array(rowValues)),
        ])
        return "state " + JSONWriter().string(.object(state))
    }
}
