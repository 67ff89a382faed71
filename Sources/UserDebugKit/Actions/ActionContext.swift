/// What an action works on: the session, how to redact, and how to find recorded responses.
///
/// The redactor and the responses are reached through closures so that an action that needs
/// neither (`copy-id`, on the hotkey path) costs neither a config read nor a store query.
public struct ActionContext: Sendable {
    /// The session the menu is for.
    public var session: Session
    /// The process environment handed to action commands (PATH, DISPLAY, …). Built only when
    /// an action reads it: `copy-id` on the hotkey path never does.
    public var environment: [String: String] {
        get { environmentValue ?? makeEnvironment() }
        set { environmentValue = newValue }
    }
    private var environmentValue: [String: String]?
    private let makeEnvironment: @Sendable () -> [String: String]
    private let makeRedactor: @Sendable () throws -> Redactor?
    private let makeClassifier: (@Sendable () throws -> Redactor)?
    private let findResponse: @Sendable (ResponseSelector) throws -> BackendResponse?

    /// A context. `redactor` returns nil when secrets are to be shown (`--reveal`);
    /// `responses` returns the response a selector means, or nil when none matches;
    /// `classifier` returns the redactor that tells secrets apart even under `--reveal` (nil: the
    /// default policy and the session's token).
    public init(
        session: Session,
        environment: [String: String] = [:],
        redactor: @escaping @Sendable () throws -> Redactor?,
        classifier: (@Sendable () throws -> Redactor)? = nil,
        responses: @escaping @Sendable (ResponseSelector) throws -> BackendResponse?
    ) {
        self.init(
            session: session, environment: { environment }, redactor: redactor, classifier: classifier,
            responses: responses)
    }

    /// A context whose environment is built by `environment` each time an action reads it (never,
    /// for most actions), rather than before the menu opens.
    public init(
        session: Session,
        environment: @escaping @Sendable () -> [String: String],
        redactor: @escaping @Sendable () throws -> Redactor?,
        classifier: (@Sendable () throws -> Redactor)? = nil,
        responses: @escaping @Sendable (ResponseSelector) throws -> BackendResponse?
    ) {
        self.session = session
        self.environmentValue = nil
        self.makeEnvironment = environment
        self.makeRedactor = redactor
        self.makeClassifier = classifier
        self.findResponse = responses
    }

    /// A context over responses held in memory (newest last), redacting with `policy` unless
    /// `reveal`: for tests and for a host app that keeps its responses itself.
    public static func inMemory(
        session: Session,
        responses: [BackendResponse] = [],
        reveal: Bool = false,
        policy: RedactionPolicy = .default,
        environment: [String: String] = [:]
    ) -> ActionContext {
        let secrets = [session.token].compactMap { $0 }.filter { !$0.isEmpty }
        return ActionContext(
            session: session,
            environment: environment,
            redactor: { reveal ? nil : Redactor(policy: policy, knownSecrets: secrets) },
            classifier: { Redactor(policy: policy, knownSecrets: secrets) },
            responses: { selector in
                switch selector {
                case .id(let id): return responses.first { $0.id == id }
                case .newest(let query): return responses.last { query.matches($0) }
                }
            }
        )
    }

    /// The redactor for output, or nil when secrets are to be shown.
    public func redactor() throws -> Redactor? { try makeRedactor() }

    /// The redactor that says what is secret whatever `--reveal` says: a revealed payload that it
    /// would change is marked secret, and error messages (which are never revealed) go through it.
    public func secretsRedactor() throws -> Redactor {
        if let makeClassifier { return try makeClassifier() }
        let secrets = [session.token].compactMap { $0 }.filter { !$0.isEmpty }
        return try makeRedactor() ?? Redactor(knownSecrets: secrets)
    }

    /// The response `selector` means; a `.newest` query is limited to this session.
    public func response(_ selector: ResponseSelector) throws -> BackendResponse? {
        switch selector {
        case .id:
            return try findResponse(selector)
        case .newest(var query):
            if query.session == nil { query.session = session.name }
            query.limit = 1
            return try findResponse(.newest(query))
        }
    }
}
