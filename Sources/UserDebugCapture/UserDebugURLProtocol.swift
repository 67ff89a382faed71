#if DEBUG
    // Everything here exists in debug builds only: a host app's release build (`swift build -c
    // release`, no DEBUG) compiles this target to an empty module and links none of it.
    #if canImport(FoundationNetworking)
        import Foundation
        public import FoundationNetworking
    #else
        public import Foundation
    #endif
    public import UserDebugKit

    /// A URL loading hook that records every HTTP response an app's `URLSession` receives into the
    /// userdebug store, so `userdebug print-response`, `export curl`, `export har` see them.
    ///
    /// ```swift
    /// #if DEBUG
    /// UserDebugCapture.start()                                   // the default store, the current session
    /// let configuration = URLSessionConfiguration.default
    /// configuration.protocolClasses = [UserDebugURLProtocol.self] + (configuration.protocolClasses ?? [])
    /// let session = URLSession(configuration: configuration)
    /// #endif
    /// ```
    ///
    /// It forwards each request through its own ephemeral session (which it does not hook), hands the
    /// app the response, the body and any error exactly as they came, and records afterwards on a
    /// serial queue of its own. Recording never fails the app's request: errors go to
    /// `UserDebugCapture`'s error handler. Requests are recorded with their headers in name order
    /// (URLRequest keeps no order) and their body from `httpBody` or `httpBodyStream`.
    public final class UserDebugURLProtocol: URLProtocol {
        private static let handledKey = "UserDebugURLProtocol.handled"
        private static let callbackQueue = DispatchQueue(label: "userdebug.capture.callbacks")
        private let lock = NSLock()
        private var forwardTask: URLSessionDataTask?

        /// HTTP and HTTPS requests this hook has not already forwarded, while capture is started.
        public override class func canInit(with request: URLRequest) -> Bool {
            guard UserDebugCapture.isStarted, let scheme = request.url?.scheme?.lowercased(),
                scheme == "http" || scheme == "https"
            else {
                return false
            }
            return URLProtocol.property(forKey: handledKey, in: request) == nil
        }

        /// `request` as the app built it: the hook forwards and records exactly that, so it
        /// normalises nothing.
        public override class func canonicalRequest(for request: URLRequest) -> URLRequest {
            request
        }

        /// Sends the request through the forwarding session.
        public override func startLoading() {
            var forwarded = request
            let body = Self.bodyBytes(of: request)
            if request.httpBodyStream != nil {
                forwarded.httpBodyStream = nil
                forwarded.httpBody = Data(body)
            }
            if let mutable = (forwarded as NSURLRequest).mutableCopy() as? NSMutableURLRequest {
                URLProtocol.setProperty(true, forKey: Self.handledKey, in: mutable)
                forwarded = mutable as URLRequest
            }
            let started = Date()
            let original = request
            // The protocol object crosses to our queue; URL loading is done with it once it has
            // called didFinishLoading/didFail, which happens there.
            let unchecked = UncheckedProtocol(value: self)
            // startLoading runs on the URL loading queue, which corelibs' URLSession shares between
            // sessions: creating the forwarding task from here would dispatch_sync onto it.
            let outgoing = forwarded
            Self.callbackQueue.async {
                unchecked.value.forward(outgoing, original: original, body: body, started: started)
            }
        }

        private func forward(_ forwarded: URLRequest, original: URLRequest, body: [UInt8], started: Date) {
            let unchecked = UncheckedProtocol(value: self)
            let task = UserDebugCapture.forwardingSession.dataTask(with: forwarded) { data, response, error in
                // Not on the forwarding session's queue: corelibs' URLSession would dispatch_sync
                // back onto a queue it already holds when the client is called from there.
                Self.callbackQueue.async {
                    let protocolObject = unchecked.value
                    let client = protocolObject.client
                    if let response {
                        client?.urlProtocol(protocolObject, didReceive: response, cacheStoragePolicy: .notAllowed)
                    }
                    if let data, !data.isEmpty { client?.urlProtocol(protocolObject, didLoad: data) }
                    if let error {
                        client?.urlProtocol(protocolObject, didFailWithError: error)
                    } else {
                        client?.urlProtocolDidFinishLoading(protocolObject)
                    }
                    guard let http = response as? HTTPURLResponse else { return }
                    UserDebugCapture.record(
                        Self.exchange(original, body: body, response: http, data: data ?? Data(), started: started))
                }
            }
            lock.withLock { forwardTask = task }
            task.resume()
        }

        /// Cancels the forwarded request.
        public override func stopLoading() {
            lock.withLock { forwardTask }?.cancel()
        }

        static func exchange(_ request: URLRequest, body: [UInt8], response: HTTPURLResponse, data: Data, started: Date)
            -> BackendResponse
        {
            let requestHeaders = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
                HTTPHeader(name: $0.key, value: $0.value)
            }
            let responseHeaders = response.allHeaderFields.compactMap { key, value -> HTTPHeader? in
                guard let name = key as? String else { return nil }
                return HTTPHeader(name: name, value: "\(value)")
            }.sorted { $0.name < $1.name }
            return BackendResponse(
                request: BackendRequest(
                    method: request.httpMethod ?? "GET", url: request.url?.absoluteString ?? "",
                    headers: requestHeaders, body: body),
                // URLSession hands the app a decoded body and keeps its Content-Encoding.
                status: response.statusCode,
                headers: ContentEncoding.headers(forBodyThatMayBeDecoded: Array(data), headers: responseHeaders),
                body: Array(data),
                startedAt: started, durationMs: (Date().timeIntervalSince(started) * 1_000_000).rounded() / 1000)
        }

        /// The body from `httpBody`, or read from `httpBodyStream` (which URLSession hands a protocol
        /// instead of `httpBody` for uploads).
        static func bodyBytes(of request: URLRequest) -> [UInt8] {
            if let body = request.httpBody { return Array(body) }
            guard let stream = request.httpBodyStream else { return [] }
            stream.open()
            defer { stream.close() }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = stream.read(&buffer, maxLength: buffer.count)
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            return bytes
        }
    }
    /// Carries the protocol object into the forwarding session's completion handler.
    private struct UncheckedProtocol: @unchecked Sendable {
        let value: UserDebugURLProtocol
    }

    /// Where `UserDebugURLProtocol` records: which store, which session, and what to do when a
    /// recording fails. Debug builds only.
    public enum UserDebugCapture {
        private static let state = CaptureState()

        /// Starts recording into the store at `storePath` (default: the store the `userdebug` tool
        /// uses, from XDG variables or `USERDEBUG_HOME`) under the session named `session` (default:
        /// the current one at the time of each response). The `login` rules of the tool's config
        /// file apply: a response they match records the session from its body and makes it
        /// current (see `LoginRule`); a config file that cannot be read is reported to `onError`
        /// and no rule applies. `onError` hears about failed recordings
        /// (no session yet, store locked past its timeout); by default they are ignored, because a
        /// debug hook must never break the app's networking.
        public static func start(
            storePath: String? = nil,
            session: String? = nil,
            onError: (@Sendable (any Error) -> Void)? = nil
        ) {
            var rules: [LoginRule] = []
            do {
                rules = try Config.load(path: UserDebugPaths.fromProcessEnvironment().configFile).login
            } catch {
                onError?(error)
            }
            start(storePath: storePath, session: session, loginRules: rules, onError: onError)
        }

        /// Starts recording as `start(storePath:session:onError:)` does, with `loginRules` instead
        /// of the config file's `login` rules (an empty array: no response is a login).
        public static func start(
            storePath: String?,
            session: String?,
            loginRules: [LoginRule],
            onError: (@Sendable (any Error) -> Void)?
        ) {
            state.configure(
                path: storePath ?? UserDebugPaths.fromProcessEnvironment().databasePath, session: session,
                onError: onError, loginRules: loginRules)
        }

        /// Stops recording: no request is hooked from now on, and a response still in flight
        /// reaches the app as usual but is not recorded.
        public static func stop() {
            state.configure(path: nil, session: nil, onError: nil, loginRules: [])
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
                var target = session
                // A login (by the config's `login` rules) becomes the current session first, and
                // its response is recorded under it. A login response without a usable user is
                // reported and recorded as any other response.
                for (_, outcome) in LoginRule.logins(in: [response], rules: state.loginRules, name: session) {
                    switch outcome {
                    case .success(let login): target = try store.saveLogin(login).name
                    case .failure(let error): onError?(error)
                    }
                }
                try store.record(response, session: target)
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
        private var rules: [LoginRule] = []

        func configure(
            path: String?, session: String?, onError: (@Sendable (any Error) -> Void)?, loginRules: [LoginRule]
        ) {
            lock.withLock {
                self.path = path
                self.session = session
                self.onError = onError
                self.rules = loginRules
            }
        }

        var loginRules: [LoginRule] { lock.withLock { rules } }

        var current: (path: String?, session: String?, onError: (@Sendable (any Error) -> Void)?) {
            lock.withLock { (path, session, onError) }
        }
    }
#endif
