import UserDebugKit

/// One line of the menu for a launcher (dmenu, rofi): the menu's tree flattened, a submenu's
/// entries as `Section › Title`, with the action they run.
struct LauncherEntry: Equatable {
    /// The line shown: one line, no control characters, no secret.
    var line: String
    /// The action it runs; nil for a line that only informs (a deferred section that failed or
    /// timed out) or a section still loading.
    var actionID: String?
    /// The deferred section (its id) the line belongs to: one of its actions, its failure, or
    /// the section itself while it loads.
    var section: String? = nil
    /// A section still loading (`Title (loading)`): choosing it waits for that section and
    /// shows its lines.
    var isLoading = false
}

/// Flattens a resolved menu into launcher lines, each unique (a repeated line gets its id).
enum LauncherEntries {
    static let separator = " › "

    /// The lines; a deferred section still pending is one `Title (loading)` line.
    static func entries(_ elements: [MenuElement], renderer: MenuRenderer) -> [LauncherEntry] {
        var found: [LauncherEntry] = []
        func walk(_ elements: [MenuElement], path: [String], section: String?) {
            for element in elements {
                switch element {
                case .action(let action):
                    var line = (path + [renderer.clean(action.title)]).joined(separator: separator)
                    if action.isSecret { line += " (secret)" }
                    if let subtitle = renderer.subtitle(of: action) { line += " — " + subtitle }
                    found.append(LauncherEntry(line: safe(line), actionID: action.id, section: section))
                case .submenu(let submenu):
                    walk(submenu.children, path: path + [renderer.clean(submenu.title)], section: section)
                case .deferred(let deferred):
                    switch deferred.state {
                    case .resolved(let children):
                        walk(children, path: path + [renderer.clean(deferred.title)], section: deferred.id)
                    case .pending:
                        let line = (path + [renderer.clean(deferred.title) + " (loading)"]).joined(separator: separator)
                        found.append(
                            LauncherEntry(line: safe(line), actionID: nil, section: deferred.id, isLoading: true))
                    case .failed, .timedOut:
                        let line = (path + [renderer.clean(deferred.displayTitle)]).joined(separator: separator)
                        found.append(LauncherEntry(line: safe(line), actionID: nil, section: deferred.id))
                    }
                }
            }
        }
        walk(elements, path: [], section: nil)
        return unique(found)
    }

    /// The entry a launcher's answer names: its line, else an action id typed in.
    static func entry(chosen: String, in entries: [LauncherEntry]) -> LauncherEntry? {
        entries.first { $0.line == chosen } ?? entries.first { $0.actionID != nil && $0.actionID == chosen }
    }

    /// One line a launcher shows as is: controls (and tabs, which rofi and dmenu would draw as
    /// nothing) made visible or spaces, so a recorded name cannot hide what an entry does.
    private static func safe(_ line: String) -> String {
        TerminalText.escape(String(line.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 }))
    }

    private static func unique(_ entries: [LauncherEntry]) -> [LauncherEntry] {
        var seen: Set<String> = []
        return entries.map { entry in
            var entry = entry
            if !seen.insert(entry.line).inserted, let id = entry.actionID {
                entry.line += " [\(id)]"
                seen.insert(entry.line)
            }
            return entry
        }
    }
}
