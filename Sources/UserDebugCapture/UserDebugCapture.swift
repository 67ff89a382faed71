#if DEBUG
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import UserDebugKit

/// Where `UserDebugURLProtocol` records: which store, which session, and what to do when a
/// recording fails. Debug builds only.
public enum UserDebugCapture {
    private static let state = CaptureState()

    /// Starts recording into the store at `storePath` (default: the store the `userdebug` tool
    /// uses, from XDG variables or `USERDEBUG_HOME`) under the session named `session` (default:
    /// the current one at the time of each response). `onError` hears about failed recordings
    /// (no session yet, store locked past its timeout); by default they are ignored, because a
    /// debug hook must never break the app's networking.
    public static func start(
        storePath: String? = nil,
        session: String? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil
    ) {
        state.configure(path: storePath ?? UserDebugPaths.fromProcessEnvironment().databasePath, session: session, onError: onError)
    }

    /// Stops recording; requests already in flight are still recorded.
    public static func stop() {
        state.configure(path: nil, session: nil, onError: nil)
    }

    /// Whether `start` was called (and `stop` was not since).
    public static var isStarted: Bool { state.current.path != nil }

    /// The session that forwards hooked requests: ephemeral and not hooked itself.
    static let forwardingSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = []
        return URLSession(configuration: configuration)
    }()

    static func record(_ response: BackendResponse) {
        let (path, session, onError) = state.current
        guard let path else { return }
        do {
            let store = try SessionStore.open(path: path, mode: .readWrite)
            try store.record(response, session: session)
        } catch {
            onError?(error)
        }
    }
}

/// The configuration behind a lock: URL loading calls in from its own threads.
private final class CaptureState: @unchecked Sendable {
    private let lock = NSLock()
    private var path: String?
    private var session: String?
    private var onError: (@Sendable (any Error) -> Void)?

    func configure(path: String?, session: String?, onError: (@Sendable (any Error) -> Void)?) {
        lock.withLock {
            self.path = path
            self.session = session
            self.onError = onError
        }
    }

    var current: (path: String?, session: String?, onError: (@Sendable (any Error) -> Void)?) {
        lock.withLock { (path, session, onError) }
    }
}
#endif
