import UserDebugKit
import WaylandClipboard
import X11Clipboard

#if canImport(Glibc)
    import Glibc
#endif

/// The process's environment as a dictionary, read from `environ` (no Foundation on the hot path).
func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var cursor = environ
    while let entry = cursor.pointee {
        // Split at the first `=` on the bytes: `firstIndex(of:)` on the String walks Characters
        // (grapheme breaking), which cost a hotkey run more than the rest of this function.
        if let equals = strchr(entry, 0x3D) {
            let nameLength = entry.distance(to: equals)
            let name = entry.withMemoryRebound(to: UInt8.self, capacity: nameLength) {
                String(decoding: UnsafeBufferPointer(start: $0, count: nameLength), as: UTF8.self)
            }
            result[name] = String(cString: equals + 1)
        }
        cursor += 1
    }
    return result
}

/// Everything a command may need, created lazily so `copy-id` pays only for what it uses.
final class Invocation: @unchecked Sendable {
    let arguments: ParsedArguments
    let paths: UserDebugPaths
    let diagnostics: Diagnostics
    let stdoutKind: StreamKind
    private let givenEnvironment: [String: String]?
    private var fullEnvironment: [String: String]?
    private var loadedConfig: Config?
    /// Whether `loadedConfig` holds every section (`configWithHotkeys`), not only those
    /// `config()` reads.
    private var loadedEveryConfigSection = false
    private var readStore: SessionStore?
    private var writeStore: SessionStore?
    /// Whether the process exits right after this command (the CLI); the daemon, which runs
    /// many actions, sets it false so copies fork a detached owner it never has to wait for.
    var exitsSoon = true
    /// The daemon's in-process selection owner, which its actions' X11 copies go to (nil: the CLI).
    var selectionHost: X11SelectionHost?
    /// The daemon's store connection kept across key presses (nil: the CLI opens its own).
    var storeKeeper: StoreKeeper?
    /// Whether this command already ran the store's trust check (the kept store then skips it).
    private var trustChecked = false
    private var chosenBackend: BackendChoice?
    /// What the last X11 copy's route found of the compositor where the rule did not ask (a
    /// forced `x11`): the bridge it went through.
    private var copiedFinding: WaylandFinding?
    private var resolvedEndpoint: WaylandEndpoint?

    /// `environment` nil: the process's own, read variable by variable as needed (building a
    /// dictionary of the whole environment costs a hotkey run more than the rest of its start).
    init(arguments: ParsedArguments, environment: [String: String]?) {
        self.arguments = arguments
        self.givenEnvironment = environment
        if let environment {
            self.paths = UserDebugPaths.fromEnvironment(environment)
        } else {
            self.paths = UserDebugPaths.from { name in getenv(name).map { String(cString: $0) } }
        }
        self.stdoutKind = StreamKind.of(1)
        self.diagnostics = Diagnostics(quiet: arguments.has("quiet"), isTerminal: StreamKind.of(2) == .terminal)
    }

    /// The variable `name` from the given environment, else from the process's by `getenv`
    /// (no dictionary of the whole environment is built).
    func variable(_ name: String) -> String? {
        if let givenEnvironment { return givenEnvironment[name] }
        return getenv(name).map { String(cString: $0) }
    }

    /// The clipboard the backend rule chooses (`BackendChoice`), behind the `Clipboard` seam,
    /// serving copies by `policy` (which matters only to copies; a paste needs only the default).
    /// - Throws: a bad `--backend` (exit 64) or config file (exit 78).
    func clipboard(policy: OwnerPolicy = OwnerPolicy(callerExitsSoon: true)) throws -> ClipboardRoute {
        let choice = try backendChoice()
        return ClipboardRoute(
            choice: choice, backend: try backend(choice.route, policy: policy), wayland: waylandEndpoint)
    }

    /// The implementation of the `Clipboard` seam that `route` names: the Wayland clipboard on
    /// `waylandEndpoint` (its pastes bounded by `clipboard.pasteDeadlineSeconds`), the X11 one on
    /// `DISPLAY` (bounded by `clipboard.connectTimeoutSeconds` and the same deadline), or, in the
    /// daemon, its in-process owner in front of the X11 one; `NoClipboard` for `.unavailable`.
    private func backend(_ route: BackendChoice.Route, policy: OwnerPolicy) throws -> any Clipboard {
        switch route {
        case .unavailable: return NoClipboard()
        case .wayland:
            return waylandEndpoint.clipboard(policy: policy, pasteDeadline: try config().clipboard.pasteDeadline)
        case .x11:
            let options = try config().clipboard
            let x11 = X11Clipboard(
                display: variable("DISPLAY"), policy: policy, connectTimeout: options.connectTimeout,
                pasteDeadline: options.pasteDeadline)
            guard let selectionHost else { return x11 }
            return HostedClipboard(host: selectionHost, x11: x11)
        }
    }

    /// Where the Wayland backend would connect: `WAYLAND_DISPLAY` in `XDG_RUNTIME_DIR`, else a
    /// socket of ours found there (`WaylandEndpoint.resolve`); looked for once per command.
    var waylandEndpoint: WaylandEndpoint {
        if let resolvedEndpoint { return resolvedEndpoint }
        let endpoint = WaylandEndpoint.resolve(
            named: variable("WAYLAND_DISPLAY"), runtimeDir: variable("XDG_RUNTIME_DIR"))
        resolvedEndpoint = endpoint
        return endpoint
    }

    /// Whether this command's copy went to XWayland under weston, whose bridge (weston 10) hands
    /// Wayland clients the text types only: a secret's hint does not reach them.
    var copiedThroughWestonBridge: Bool {
        guard let chosenBackend, chosenBackend.route == .x11,
            case .noDataControl(family: .weston)? = chosenBackend.wayland ?? copiedFinding
        else { return false }
        return true
    }

    /// The backend rule applied once per command (a copy to both selections asks once). Under
    /// plain X11 (no `WAYLAND_DISPLAY`) it reads the environment and nothing else.
    func backendChoice() throws -> BackendChoice {
        if let chosenBackend { return chosenBackend }
        let (preference, source) = try BackendChoice.preference(self)
        let endpoint = waylandEndpoint
        let timeout = try config().clipboard.connectTimeout
        let choice = BackendChoice.choose(
            preference, from: source, waylandDisplay: endpoint.display, discovered: endpoint.discovery != nil
        ) {
            endpoint.probe(timeout: timeout)
        }
        chosenBackend = choice
        return choice
    }

    /// Copies `payload` to `selection` through the backend the rule chooses. While the rule has
    /// not asked the compositor yet and would (`WAYLAND_DISPLAY` set, the preference not `x11`),
    /// the Wayland copy's own connection asks it: where the answer picks Wayland the copy is
    /// already made on it (a cold copy connects once, not twice); elsewhere the rule's choice,
    /// reasons and all, is the one `backendChoice` makes, and the copy goes through it.
    /// - Throws: a bad `--backend` or config, or `ClipboardRouteError`.
    func copy(_ payload: Payload, to selection: SelectionName, options: CopyOptions, policy: OwnerPolicy)
        throws
    {
        if chosenBackend == nil {
            let (preference, source) = try BackendChoice.preference(self)
            let endpoint = waylandEndpoint
            if preference != .x11, endpoint.display != nil {
                let tried = endpoint.copyIfDataControl(payload, to: selection, options: options, policy: policy)
                let choice = BackendChoice.choose(
                    preference, from: source, waylandDisplay: endpoint.display, discovered: endpoint.discovery != nil
                ) {
                    tried.finding
                }
                chosenBackend = choice
                if choice.route == .wayland, let outcome = tried.outcome {
                    if case .failure(let error) = outcome {
                        throw ClipboardRouteError(problem: .backend(error), choice: choice)
                    }
                    return
                }
            }
        }
        copiedFinding = try clipboard(policy: policy).copy(payload, to: selection, options: options)
    }

    /// The whole environment, built afresh each time it is called and touching no state of this
    /// invocation (a deferred section may call it from the resolver thread): for the
    /// `ActionContext`, whose actions rarely read it.
    var environmentSource: @Sendable () -> [String: String] {
        if let givenEnvironment { return { givenEnvironment } }
        return { processEnvironment() }
    }

    /// The whole environment, for commands that hand it on (config actions, the backend fetch).
    var environment: [String: String] {
        if let givenEnvironment { return givenEnvironment }
        if let fullEnvironment { return fullEnvironment }
        let built = processEnvironment()
        fullEnvironment = built
        return built
    }

    /// The config file, or the defaults when there is none, without the sections only a few
    /// commands read (`Config.sectionsReadOnDemand`: its `hotkeys` stay empty and unchecked;
    /// docs/files.md says what a broken one gets). Commands that use the hotkeys call
    /// `configWithHotkeys()`.
    func config() throws(ConfigError) -> Config {
        if let loadedConfig { return loadedConfig }
        let config = try Config.load(path: paths.configFile, skipping: Config.sectionsReadOnDemand)
        loadedConfig = config
        return config
    }

    /// The config file with every section read and checked: for the daemon, `daemon --check`
    /// and `doctor`, which use the hotkeys (a broken `hotkeys` section fails them, exit 78).
    func configWithHotkeys() throws(ConfigError) -> Config {
        if let loadedConfig, loadedEveryConfigSection { return loadedConfig }
        let config = try Config.load(path: paths.configFile)
        loadedConfig = config
        loadedEveryConfigSection = true
        return config
    }

    /// Uses `config` instead of reading the file (the daemon keeps the last good one; doctor
    /// the defaults when the file is broken): it stands for every section.
    func use(config: Config) {
        loadedConfig = config
        loadedEveryConfigSection = true
    }

    /// The store opened for reading; never creates one.
    func storeForReading() throws -> SessionStore {
        if let writeStore { return writeStore }
        if let readStore { return readStore }
        let store =
            try storeKeeper?.store(
                path: paths.databasePath, busyTimeoutMilliseconds: busyTimeout, trusted: trustChecked)
            ?? SessionStore.open(path: paths.databasePath, mode: .readOnly, busyTimeoutMilliseconds: busyTimeout)
        readStore = store
        report(store.warnings)
        return store
    }

    /// The store opened for writing, created when missing, with the configured retention.
    func storeForWriting() throws -> SessionStore {
        if let writeStore { return writeStore }
        let store = try SessionStore.open(
            path: paths.databasePath, mode: .readWrite, busyTimeoutMilliseconds: busyTimeout)
        store.retention = try config().retention
        writeStore = store
        report(store.warnings)
        return store
    }

    /// How long a write waits for another writer's lock: 5 s, or USERDEBUG_BUSY_TIMEOUT_MS.
    private var busyTimeout: Int32 {
        variable("USERDEBUG_BUSY_TIMEOUT_MS").flatMap { Int32($0) }.map { max($0, 0) } ?? 5000
    }

    private func report(_ warnings: [String]) {
        for warning in warnings { diagnostics.notice("warning: \(warning)") }
    }

    /// The session the command acts on: `--session NAME`, else the current one. `fromCopy`: the
    /// debug actions (the hotkey path) may take it from the copy beside the store while the
    /// store's files still match it (CurrentSessionCache); commands that record under the
    /// session, or read it once they opened the store, always read the store.
    func session(fromCopy: Bool = false) throws -> Session {
        if let name = arguments.value("session") {
            guard let session = try storeForReading().session(named: name) else { throw StoreError.noSuchSession(name) }
            return session
        }
        let path = paths.databasePath
        var fingerprint: (text: String, settled: Bool)? = nil
        if fromCopy && readStore == nil && writeStore == nil && !DisabledMechanisms.isOff(.sessionCache) {
            // Before the copy is read: it lies beside the store and is trusted no more than the store.
            let warnings = try SessionStore.checkTrust(path: path)
            trustChecked = true
            let copy = CurrentSessionCache.lookup(databasePath: path)
            if let cached = copy.session {
                report(warnings)
                return cached
            }
            fingerprint = copy.fingerprint  // taken before the store is read, as `write` needs
        }
        let store = try storeForReading()
        guard let session = try store.currentSession() else { throw FirstHourHints.noCurrentSession(store) }
        if let fingerprint { CurrentSessionCache.write(session, databasePath: path, fingerprint: fingerprint) }
        return session
    }

    /// The redactor for output of `session`: the config's policy, and the session's own token as a
    /// known secret wherever it appears literally.
    func redactor(for session: Session?) throws -> Redactor? {
        if arguments.has("reveal") { return nil }
        let secrets = [session?.token].compactMap { $0 }.filter { !$0.isEmpty }
        return Redactor(policy: try config().redactionPolicy, knownSecrets: secrets)
    }
}
