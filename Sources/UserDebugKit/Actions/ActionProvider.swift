/// Anything that knows a record and can offer debug actions on it, as the delegate of an iOS
/// context menu offers the actions for the view it knows. A view model, a session, the response
/// log, the config file — each conforms (or wraps a closure in `ActionProvider`) and returns its
/// elements; several providers compose into one menu in the order given.
///
/// `menuElements(in:)` is synchronous on purpose: it runs on the hotkey path (`copy-id`), where
/// no thread or task may start before the output is written. Slow work goes into a
/// `DeferredElement`, which only a shown menu resolves.
public protocol DebugActionProvider: Sendable {
    /// The provider's name, for traces and errors ("user", "responses", "config").
    var name: String { get }
    /// The elements this provider adds to the menu for `context`.
    func menuElements(in context: ActionContext) throws -> [MenuElement]
}

/// A provider around one closure, for a host with no type of its own to conform. The CLI wraps
/// the config's actions and the backend section this way, so the config file is read inside the
/// menu's lifecycle, after `requested`.
public struct ActionProvider: DebugActionProvider {
    /// What traces and `MenuError.providerFailed` call it, e.g. `config`.
    public let name: String
    private let elements: @Sendable (ActionContext) throws -> [MenuElement]

    /// A provider named `name` whose elements `elements` returns.
    public init(name: String, elements: @escaping @Sendable (ActionContext) throws -> [MenuElement]) {
        self.name = name
        self.elements = elements
    }

    /// A provider that always offers `elements`.
    public init(name: String, _ elements: [MenuElement]) {
        self.init(name: name) { _ in elements }
    }

    /// The closure's elements for `context`; what it throws passes through (a menu wraps it in
    /// `MenuError.providerFailed`).
    public func menuElements(in context: ActionContext) throws -> [MenuElement] {
        try elements(context)
    }
}

/// Several providers as one: their elements concatenated in order. A provider that throws fails
/// the whole menu (its error names it), so a broken provider is seen, not silently skipped.
public struct ComposedProvider: DebugActionProvider {
    /// The providers, in menu order.
    public var providers: [any DebugActionProvider]

    /// The providers' names joined with `+`.
    public var name: String { providers.map(\.name).joined(separator: "+") }

    /// A provider that asks each of `providers` once per menu, in the order given.
    public init(_ providers: [any DebugActionProvider]) {
        self.providers = providers
    }

    /// Every provider's elements, in order.
    /// - Throws: a provider's `MenuError` as it is; any other error as `MenuError.providerFailed`
    ///   naming that provider.
    public func menuElements(in context: ActionContext) throws -> [MenuElement] {
        var elements: [MenuElement] = []
        for provider in providers {
            do {
                elements += try provider.menuElements(in: context)
            } catch let error as MenuError {
                throw error
            } catch {
                throw MenuError.providerFailed(provider: provider.name, underlying: error)
            }
        }
        return elements
    }
}

/// Why a menu could not be shown or an action not run.
public enum MenuError: Error, Sendable, CustomStringConvertible {
    /// The providers offered nothing.
    case empty
    /// A provider threw while building the menu.
    case providerFailed(provider: String, underlying: any Error)
    /// Two elements share an id, so `run ID` would be ambiguous.
    case duplicateIDs([String])
    /// No action in the menu has this id; `available` lists those that do.
    case noSuchAction(id: String, available: [String])
    /// A lifecycle step was taken out of order (a programming error in the host).
    case outOfOrder(String)
    /// No action has this id because the deferred section it would come from (`backend` for
    /// `backend.body`) failed or timed out: `reason` is the section's error, e.g. curl's.
    case sectionUnavailable(id: String, section: String, reason: String, timedOut: Bool)

    /// A message for stderr.
    public var description: String {
        switch self {
        case .empty: return "the debug menu is empty: no provider offered an action"
        case .providerFailed(let provider, let underlying): return "provider '\(provider)' failed: \(underlying)"
        case .duplicateIDs(let ids): return "menu elements share an id: \(ids.joined(separator: ", "))"
        case .noSuchAction(let id, let available):
            return "no action '\(id)'; available: \(available.joined(separator: ", "))"
        case .outOfOrder(let what): return "menu lifecycle used out of order: \(what)"
        case .sectionUnavailable(let id, let section, let reason, _):
            return "'\(id)' comes from '\(section)', which failed: \(reason)"
        }
    }
}
