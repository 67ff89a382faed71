#if DEBUG
    // Debug builds only, like the rest of this module: a release build has no `UserDebugSession`.
    public import Foundation
    import UserDebugKit

    /// Tells the `userdebug` tool who is logged in to your app, so that its hotkeys copy that
    /// user's id and token: one call after login, one after logout. Debug builds only.
    ///
    /// ```swift
    /// #if DEBUG
    /// try? UserDebugSession.loggedIn(user: account, token: credentials.accessToken,
    ///                                baseURL: URL(string: "https://api.staging.example"))
    /// #endif
    /// …
    /// #if DEBUG
    /// try? UserDebugSession.loggedOut()
    /// #endif
    /// ```
    ///
    /// The session is saved in the store the tool uses (from `USERDEBUG_HOME` or the XDG variables)
    /// and becomes the current one, as `userdebug session import` does.
    public enum UserDebugSession {
        /// Records the logged-in `user` and makes the session current; returns the session's name.
        ///
        /// - Parameters:
        ///   - user: the user as your app keeps it: any `Encodable` whose JSON is an object with an
        ///     identifier (`id`, `identifier`, `userId`, `user_id` or `uid`: a string or an integer)
        ///     and, optionally, a name (`name`, `displayName`, `username`); every other field is
        ///     kept for templates (`{{user.email}}`).
        ///   - token: the auth token (a secret: the tool shows it only when asked), nil for none.
        ///   - name: the session's name; default `IDENTIFIER@HOST` (the host of `baseURL`), or the
        ///     identifier alone without a `baseURL`. The same name again updates that session.
        ///   - baseURL: the backend's base URL, for backend actions and exports.
        ///   - environment: a label such as `staging`.
        ///   - storePath: another store than the tool's.
        /// - Throws: `EncodingError` when `user` does not encode, `DocumentError` when its JSON is
        ///   no user (no identifier) or the name is not usable, `StoreError` when the store cannot
        ///   be written.
        @discardableResult
        public static func loggedIn<Account: Encodable>(
            user: Account, token: String?, name: String? = nil, baseURL: URL? = nil, environment: String? = nil,
            storePath: String? = nil
        ) throws -> String {
            let defaultName = { (identifier: String, url: URL) in
                LoginRule.defaultSessionName(identifier: identifier, url: url.absoluteString)
            }
            let encoded = try JSONEncoder().encode(user)
            let userValue = try JSONParser().parse(Array(encoded))
            guard let identifier = userIdentifier(in: userValue) else {
                throw DocumentError(path: "$.user", message: "missing \"identifier\" (or id, userId, user_id, uid)")
            }
            var members: [JSONObject.Member] = [
                JSONObject.Member(
                    key: "name",
                    value: .string(name ?? baseURL.map { defaultName(identifier, $0) } ?? identifier)),
                JSONObject.Member(key: "user", value: userValue),
            ]
            if let token { members.append(JSONObject.Member(key: "token", value: .string(token))) }
            if let baseURL { members.append(JSONObject.Member(key: "baseURL", value: .string(baseURL.absoluteString))) }
            if let environment { members.append(JSONObject.Member(key: "environment", value: .string(environment))) }
            let session = try SessionDocument.decode(.object(JSONObject(members)), defaultName: identifier)
            if let baseURL = session.baseURL, let problem = HTTPURL.problem(baseURL) {
                throw DocumentError(path: "$.baseURL", message: problem)
            }
            return try open(storePath).saveLogin(LoginRule.Login(session: session)).name
        }

        /// Records the login from the body of your backend's login response, found where the
        /// config's `login` rules say (the first rule's paths) or, without one, where common APIs
        /// put them (`$.user`, `$.data.user`; `$.token`, `$.access_token`, …). `url` is the
        /// login request's URL (it gives the session's name and base URL). Returns the session's name.
        /// - Throws: `DocumentError` when the body holds no user, `StoreError` when the store
        ///   cannot be written.
        @discardableResult
        public static func loggedIn(responseBody: Data, url: URL, name: String? = nil, storePath: String? = nil)
            throws -> String
        {
            let paths = UserDebugPaths.fromProcessEnvironment()
            var rule = try (try? Config.load(path: paths.configFile).login.first) ?? LoginRule(match: "*")
            rule.method = nil
            rule.path = "*"
            let response = BackendResponse(
                request: BackendRequest(method: "POST", url: url.absoluteString), status: 200,
                body: Array(responseBody))
            guard let login = try rule.login(from: response, name: name) else {
                throw DocumentError(path: "$", message: "not a login response")
            }
            return try open(storePath).saveLogin(login).name
        }

        /// Records a logout: the current session loses its token and is no longer current (its
        /// user and responses stay, for `userdebug session use`). Returns its name, nil when none
        /// was current.
        /// - Throws: `StoreError` when the store cannot be written.
        @discardableResult
        public static func loggedOut(storePath: String? = nil) throws -> String? {
            try open(storePath).logOut()
        }

        private static func open(_ storePath: String?) throws -> SessionStore {
            try SessionStore.open(
                path: storePath ?? UserDebugPaths.fromProcessEnvironment().databasePath, mode: .readWrite)
        }

        private static func userIdentifier(in value: JSONValue) -> String? {
            for key in ["identifier", "id", "userId", "user_id", "uid"] {
                if let text = value[key]?.scalarText, !text.isEmpty { return text }
            }
            return nil
        }
    }
#endif
