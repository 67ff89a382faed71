/// What a menu goes through, in the order an iOS context-menu delegate is called in
/// (`configurationForMenuAtLocation` → `willDisplayMenuFor` → `willPerform…` → `willEndFor`).
/// The order is a contract; `MenuSession` enforces it and tests check each path:
///
/// - performed: `requested` → `willDisplay` → `willPerform` → `willEnd(.performed)`
/// - cancelled after display: `requested` → `willDisplay` → `willEnd(.cancelled)`
/// - failed before display (empty menu, a provider threw): `requested` → `willEnd(.failed)`
///
/// `willEnd` comes exactly once per menu, whatever happens; an action that throws after
/// `willPerform` ends with `willEnd(.failed)`.
public enum MenuEvent: Sendable, Equatable, CustomStringConvertible {
    /// A menu was asked for; providers are about to be called.
    case requested
    /// The menu is about to be shown with this many top-level elements (deferred ones still
    /// showing their placeholders).
    case willDisplay(elementCount: Int)
    /// The action with this id is about to run.
    case willPerform(actionID: String)
    /// The menu is going away, and why.
    case willEnd(MenuOutcome)

    /// One line for `--trace`.
    public var description: String {
        switch self {
        case .requested: return "menu requested"
        case .willDisplay(let count): return "will display (\(count) elements)"
        case .willPerform(let id): return "will perform \(id)"
        case .willEnd(let outcome): return "will end (\(outcome))"
        }
    }
}

/// How a menu ended.
public enum MenuOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The action with this id ran and its payload was delivered.
    case performed(actionID: String)
    /// The menu was shown and dismissed without choosing.
    case cancelled
    /// The menu could not be shown, or the chosen action failed; the message says why.
    case failed(String)

    /// `performed copy-id`, `cancelled`, `failed: …`.
    public var description: String {
        switch self {
        case .performed(let id): return "performed \(id)"
        case .cancelled: return "cancelled"
        case .failed(let reason): return "failed: \(reason)"
        }
    }
}

/// Receives a menu's events, in order, on the thread that drives the menu.
public struct MenuObserver: Sendable {
    private let handle: @Sendable (MenuEvent) -> Void

    /// An observer calling `handle` for each event.
    public init(_ handle: @escaping @Sendable (MenuEvent) -> Void) {
        self.handle = handle
    }

    /// Hands `event` to the observer's closure on the caller's thread; `MenuSession` calls it.
    public func receive(_ event: MenuEvent) {
        handle(event)
    }
}
