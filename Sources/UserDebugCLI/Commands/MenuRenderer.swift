import UserDebugKit

/// Draws a resolved menu as text (one entry per line: id, title, key hint, subtitle, nested by
/// two spaces) or as one JSON document. Neither shows a secret: secret actions have no
/// subtitle, and the session's token is replaced wherever it would appear.
struct MenuRenderer {
    let session: Session
    /// `--reveal`: titles and subtitles are shown as they are.
    let revealed: Bool
    private var knownSecret: String? { revealed ? nil : session.token }

    /// `{"title", "session", "user", "elements": [...]}`; see `element(_:)` for an element.
    func json(_ elements: [MenuElement]) -> String {
        let document = JSONValue.object(
            JSONObject([
                .init(key: "title", value: .string("Debug menu")),
                .init(key: "session", value: .string(clean(session.name))),
                .init(key: "user", value: .string(clean(session.user.identifier))),
                .init(key: "elements", value: .array(elements.map(element))),
            ]))
        return JSONWriter(indent: 2).string(document)
    }

    /// An action `{"type": "action", "id", "title", "subtitle", "keyHint", "secret"}`, a submenu
    /// `{"type": "submenu", "id", "title", "children"}`, a deferred section `{"type": "deferred",
    /// "id", "title", "state": "resolved"|"failed"|"timedOut"|"pending", "message", "children"}`.
    private func element(_ element: MenuElement) -> JSONValue {
        var members: [JSONObject.Member]
        switch element {
        case .action(let action):
            members = [
                .init(key: "type", value: .string("action")),
                .init(key: "id", value: .string(action.id)),
                .init(key: "title", value: .string(clean(action.title))),
                .init(key: "subtitle", value: subtitle(of: action).map { .string($0) } ?? .null),
                .init(key: "keyHint", value: action.keyHint.map { .string($0) } ?? .null),
                .init(key: "secret", value: .bool(action.isSecret)),
            ]
        case .submenu(let submenu):
            members = [
                .init(key: "type", value: .string("submenu")),
                .init(key: "id", value: .string(submenu.id)),
                .init(key: "title", value: .string(clean(submenu.title))),
                .init(key: "children", value: .array(submenu.children.map(self.element))),
            ]
        case .deferred(let deferred):
            let (state, message): (String, String?) =
                switch deferred.state {
                case .pending: ("pending", nil)
                case .resolved: ("resolved", nil)
                case .failed(let reason): ("failed", reason)
                case .timedOut: ("timedOut", "no answer within \(formatNumber(deferred.timeout)) s")
                }
            members = [
                .init(key: "type", value: .string("deferred")),
                .init(key: "id", value: .string(deferred.id)),
                .init(key: "title", value: .string(clean(deferred.displayTitle))),
                .init(key: "state", value: .string(state)),
                .init(key: "message", value: message.map { .string(clean($0)) } ?? .null),
                .init(key: "children", value: .array(element.children.map(self.element))),
            ]
        }
        return .object(JSONObject(members))
    }

    /// The tree as aligned text: `ID  Title [key] — subtitle`.
    func text(_ elements: [MenuElement]) -> String {
        var rows: [(label: String, title: String)] = []
        func walk(_ elements: [MenuElement], depth: Int) {
            let indent = String(repeating: "  ", count: depth)
            for element in elements {
                switch element {
                case .action(let action):
                    var title = clean(action.title)
                    if let key = action.keyHint { title += " [\(key)]" }
                    if action.isSecret { title += " (secret)" }
                    if let subtitle = subtitle(of: action) { title += " — " + subtitle }
                    rows.append((indent + action.id, title))
                case .submenu(let submenu):
                    rows.append((indent + submenu.id, clean(submenu.title) + " ▸"))
                    walk(submenu.children, depth: depth + 1)
                case .deferred(let deferred):
                    rows.append(
                        (indent + deferred.id, clean(deferred.displayTitle) + (element.children.isEmpty ? "" : " ▸")))
                    walk(element.children, depth: depth + 1)
                }
            }
        }
        walk(elements, depth: 0)
        let width = rows.map(\.label.count).max() ?? 0
        var text = "Debug menu — session \(clean(session.name)), user \(clean(session.user.identifier))\n"
        for row in rows {
            text += "  " + row.label + String(repeating: " ", count: width - row.label.count + 2) + row.title + "\n"
        }
        return text
    }

    func subtitle(of action: DebugAction) -> String? {
        guard !action.isSecret, let subtitle = action.subtitle else { return nil }
        return clean(subtitle)
    }

    /// One line, with the session's token and JWT-shaped values replaced (unless `--reveal`): a
    /// title or subtitle from a backend answer could hold either.
    func clean(_ text: String) -> String {
        var line = String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
        guard !revealed else { return line }
        if let knownSecret, !knownSecret.isEmpty { line = line.replacing(knownSecret, with: "[redacted]") }
        return SecretPayloads.redacted(line, token: knownSecret)
    }
}
