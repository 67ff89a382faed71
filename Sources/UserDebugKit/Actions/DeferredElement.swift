/// Menu elements that are only known once something slow has answered (a backend call): the
/// desktop form of `UIDeferredMenuElement`. While it loads the menu shows `placeholderTitle`;
/// when `resolve` returns its elements take its place; when it throws or outlives `timeout`
/// the menu shows one "failed"/"timed out" entry instead, so a slow provider never holds the
/// menu up.
public struct DeferredElement: Sendable {
    /// Where resolution stands: `pending` until the menu resolves the element, then one of the
    /// other three, once.
    public enum State: Sendable {
        /// Not resolved yet: the placeholder is shown.
        case pending
        /// `resolve` returned these elements in time.
        case resolved([MenuElement])
        /// `resolve` threw; the message says why.
        case failed(String)
        /// `resolve` did not return within the timeout (it was cancelled and its result, should
        /// it come, is dropped).
        case timedOut
    }

    /// A stable identifier, e.g. `backend`.
    public var id: String
    /// The section's title, e.g. "From the backend".
    public var title: String
    /// What is shown while it loads, e.g. "From the backend: loading…".
    public var placeholderTitle: String
    /// Seconds `resolve` may take before the element is shown as timed out.
    public var timeout: Double
    /// Resolves the elements; called once per menu, when it is shown.
    public var resolve: @Sendable (ActionContext) async throws -> [MenuElement]
    /// `.pending` until `MenuSession.resolveDeferred()` puts a resolved, failed or timed-out copy
    /// of the element in its place; `resolve` never sets it.
    public var state: State

    /// A pending element; `placeholderTitle` defaults to "`title`: loading…".
    public init(
        id: String,
        title: String,
        placeholderTitle: String? = nil,
        timeout: Double,
        resolve: @escaping @Sendable (ActionContext) async throws -> [MenuElement]
    ) {
        self.id = id
        self.title = title
        self.placeholderTitle = placeholderTitle ?? title + ": loading…"
        self.timeout = timeout
        self.resolve = resolve
        self.state = .pending
    }

    /// The title for the current state: the placeholder, the section title, or the
    /// "failed"/"timed out" entry.
    public var displayTitle: String {
        switch state {
        case .pending: return placeholderTitle
        case .resolved: return title
        case .failed(let reason): return "\(title): failed (\(reason))"
        case .timedOut: return "\(title): timed out after \(formatSeconds(timeout)) s"
        }
    }

    /// This element with `state` set.
    func with(_ state: State) -> DeferredElement {
        var copy = self
        copy.state = state
        return copy
    }
}
