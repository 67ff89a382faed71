/// One entry of a debug menu: the desktop form of `UIMenuElement`. A menu is a tree of these,
/// built by providers and walked by `MenuSession`.
public enum MenuElement: Sendable {
    /// Something to run; it produces a payload for the output.
    case action(DebugAction)
    /// A titled group of elements.
    case submenu(Submenu)
    /// Elements that are resolved asynchronously when the menu is shown (`UIDeferredMenuElement`).
    case deferred(DeferredElement)

    /// The element's identifier: the action's id, the deferred element's id, or the submenu's id.
    public var id: String {
        switch self {
        case .action(let action): return action.id
        case .submenu(let submenu): return submenu.id
        case .deferred(let deferred): return deferred.id
        }
    }

    /// The title shown: for a deferred element, its placeholder while it loads and its
    /// "failed"/"timed out" entry afterwards.
    public var title: String {
        switch self {
        case .action(let action): return action.title
        case .submenu(let submenu): return submenu.title
        case .deferred(let deferred): return deferred.displayTitle
        }
    }

    /// The elements below this one: a submenu's children, a resolved deferred element's
    /// elements, nothing for an action or an unresolved deferred element.
    public var children: [MenuElement] {
        switch self {
        case .action: return []
        case .submenu(let submenu): return submenu.children
        case .deferred(let deferred):
            if case .resolved(let elements) = deferred.state { return elements }
            return []
        }
    }
}

/// A titled group of menu elements (`UIMenu` with children).
public struct Submenu: Sendable {
    /// A stable identifier (for `--json` and tests); never run.
    public var id: String
    /// The group's title in the menu; its children are what can be run.
    public var title: String
    /// The elements in order.
    public var children: [MenuElement]

    /// A group. `id` must differ from every other element's id in the menu, the children's
    /// included: `MenuSession.request` refuses a menu that repeats one.
    public init(id: String, title: String, children: [MenuElement]) {
        self.id = id
        self.title = title
        self.children = children
    }
}

extension Array where Element == MenuElement {
    /// Every action in the tree, depth first, in menu order (resolved deferred elements included).
    public var allActions: [DebugAction] {
        var found: [DebugAction] = []
        for element in self {
            if case .action(let action) = element { found.append(action) }
            found += element.children.allActions
        }
        return found
    }

    /// The action with `id` anywhere in the tree.
    public func action(id: String) -> DebugAction? {
        for element in self {
            if case .action(let action) = element, action.id == id { return action }
            if let found = element.children.action(id: id) { return found }
        }
        return nil
    }

    /// Whether the tree holds a deferred element that has not been resolved yet.
    public var hasPendingDeferred: Bool {
        contains { element in
            if case .deferred(let deferred) = element, case .pending = deferred.state { return true }
            return element.children.hasPendingDeferred
        }
    }

    /// Every element id that occurs more than once, so composition can refuse ambiguous menus.
    var duplicateIDs: [String] {
        var ids: [String] = []
        func walk(_ elements: [MenuElement]) {
            for element in elements {
                ids.append(element.id)
                walk(element.children)
            }
        }
        walk(self)
        var duplicates: [String] = []
        // A small menu (the hotkey's) is searched pairwise: a set here was the hotkey path's first
        // hashed collection, whose type costs a scan of every protocol conformance in the binary.
        if ids.count <= 32 {
            for (index, id) in ids.enumerated() where ids[..<index].contains(id) && !duplicates.contains(id) {
                duplicates.append(id)
            }
        } else {
            var seen: Set<String> = []
            for id in ids where !seen.insert(id).inserted && !duplicates.contains(id) { duplicates.append(id) }
        }
        return duplicates
    }
}
