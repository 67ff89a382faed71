#if DEBUG
    /// The in-app integration, shaped like an iOS context-menu interaction and its delegate. An
    /// object of the host app that knows a record conforms to `DebugMenuInteractionDelegate`; the
    /// interaction turns its actions into a menu with the full lifecycle, resolves deferred
    /// elements, and runs the chosen action.
    ///
    /// Everything here exists only in debug builds (`swift build` defines DEBUG, `-c release` does
    /// not), so a host app's release build contains none of it. Wrap the host's own debug code —
    /// its conformance, its action titles — in `#if DEBUG` too; the release-build test checks both.
    public protocol DebugMenuInteractionDelegate: AnyObject, Sendable {
        /// The debug actions for the record this object shows.
        func debugActions(in context: ActionContext) -> [MenuElement]
    }

    /// Opens debug menus for a delegate; see `DebugMenuInteractionDelegate`.
    public final class DebugMenuInteraction: Sendable {
        /// Held weakly, as UIKit holds its delegates, so the interaction never keeps a view alive.
        private struct WeakDelegate: @unchecked Sendable {
            weak var value: (any DebugMenuInteractionDelegate)?
        }

        private let delegate: WeakDelegate
        private let extraProviders: [any DebugActionProvider]
        private let observers: [MenuObserver]

        /// An interaction for `delegate`, with `providers` appended (e.g. the built-in user and
        /// response providers) and `observers` receiving the lifecycle events.
        public init(
            delegate: any DebugMenuInteractionDelegate,
            providers: [any DebugActionProvider] = [],
            observers: [MenuObserver] = []
        ) {
            self.delegate = WeakDelegate(value: delegate)
            self.extraProviders = providers
            self.observers = observers
        }

        /// Requests and displays a menu for `context` and resolves its deferred elements; the caller
        /// then performs an action or cancels. A gone delegate contributes nothing.
        public func open(context: ActionContext) throws -> MenuSession {
            let delegate = self.delegate
            let own = ActionProvider(name: "delegate") { context in
                delegate.value?.debugActions(in: context) ?? []
            }
            let session = try MenuSession.request(
                providers: [own] + extraProviders, context: { context }, observers: observers)
            try session.display()
            try session.resolveDeferred()
            return session
        }
    }
#endif
