import FoundationEssentials
import Testing

@testable import UserDebugKit

/// The `login` section: rules read from the config (bad ones reported at their place), which
/// requests they match, and the session they read from a login response's body.
@Suite struct LoginRuleTests {
    static func parse(_ text: String) throws(ConfigError) -> Config {
        try Config.parse(Array(text.utf8), file: "config.json")
    }

    static func response(
        _ method: String, _ url: String, status: Int = 200, body: String, headers: [HTTPHeader] = []
    ) -> BackendResponse {
        BackendResponse(
            request: BackendRequest(method: method, url: url), status: status, headers: headers, body: Array(body.utf8))
    }

    @Test func aRuleReadsWithItsPathsAndDefaults() throws {
        let config = try Self.parse(
            """
            {"login": [
              {"match": "POST /v1/login"},
              {"match": "*/oauth/token", "user": ["$.profile", "$['user-info']"], "token": "$.data.items[0].jwt",
               "session": "staging", "environment": "staging", "baseURL": "https://api.staging.example/v1"}
            ]}
            """)
        #expect(config.login.count == 2)
        let first = config.login[0]
        #expect(first.method == "POST" && first.path == "/v1/login")
        #expect(first.userPaths == LoginRule.defaultUserPaths && first.tokenPaths == LoginRule.defaultTokenPaths)
        let second = config.login[1]
        #expect(second.method == nil && second.path == "*/oauth/token")
        #expect(second.userPaths.map(\.description) == ["$.profile", "$['user-info']"])
        #expect(second.userPaths[1].steps == [.member("user-info")])
        #expect(second.tokenPaths[0].steps == [.member("data"), .member("items"), .element(0), .member("jwt")])
        #expect(second.sessionName == "staging" && second.environment == "staging")
        #expect(Config.defaults.login.isEmpty, "no rule without a login section")
    }

    @Test(arguments: [
        (#"{"login": {"match": "POST /login"}}"#, "config.json:1:11: login: expected an array of rules"),
        (#"{"login": [{"match": "POST"}]}"#, "config.json:1:22: login[0].match: expected \"METHOD /path\""),
        (#"{"login": [{"mtch": "POST /x"}]}"#, "config.json:1:13: login[0].mtch: unknown key \"mtch\""),
        (#"{"login": [{"match": "POST /x", "user": "user"}]}"#, "login[0].user: \"user\": a JSON path starts with"),
        (
            #"{"login": [{"match": "POST /x", "token": ["$.a[x]"]}]}"#,
            "login[0].token[0]: \"$.a[x]\": expected an index"
        ),
        (#"{"login": [{"match": "POST /x", "user": 3}]}"#, "login[0].user: expected a JSON path"),
        (#"{"login": [{"match": "POST /x", "session": "-x"}]}"#, "login[0].session: the session name must not start"),
        (#"{"login": [{"match": "POST /x", "baseURL": "ftp://x"}]}"#, "login[0].baseURL: not an absolute http(s) URL"),
        (#"{"login": [{}]}"#, "login[0]: missing \"match\""),
    ])
    func aBadRuleIsReportedAtItsPlace(text: String, expected: String) {
        do {
            _ = try Self.parse(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(error.line != nil, "\(error.description)")
        }
    }

    /// Logins to two local servers on two ports are two sessions: the name keeps a port that is
    /// not the scheme's default, and leaves user info out.
    @Test(arguments: [
        ("http://127.0.0.1:18391/v1/login", "usr_1@127.0.0.1:18391"),
        ("http://127.0.0.1:18392/v1/login", "usr_1@127.0.0.1:18392"),
        ("http://api.example.com:80/v1/login", "usr_1@api.example.com"),
        ("https://api.example.com/v1/login", "usr_1@api.example.com"),
        ("https://api.example.com:443/v1/login?x=1", "usr_1@api.example.com"),
        ("https://api.example.com:8443/v1/login", "usr_1@api.example.com:8443"),
        ("http://ana:pw@[::1]:8080/v1/login", "usr_1@[::1]:8080"),
    ])
    func aLoginNamesItsSessionByHostAndANonDefaultPort(url: String, name: String) throws {
        let rule = try #require(Self.parse(#"{"login": [{"match": "POST /v1/login"}]}"#).login.first)
        let login = try rule.login(
            from: Self.response("POST", url, body: #"{"user": {"id": "usr_1"}, "token": "t"}"#), name: nil)
        #expect(login?.session.name == name)
    }

    @Test func matchingTakesTheMethodAndThePathWithoutTheQuery() throws {
        let rule = try LoginRule(match: "post /v1/login")
        #expect(rule.matches(BackendRequest(method: "POST", url: "https://api.example/v1/login?next=/x")))
        #expect(!rule.matches(BackendRequest(method: "GET", url: "https://api.example/v1/login")))
        #expect(!rule.matches(BackendRequest(method: "POST", url: "https://api.example/v1/login/extra")))
        #expect(!rule.matches(BackendRequest(method: "POST", url: "https://api.example/api/v1/login")))
        let glob = try LoginRule(match: "*/login")
        #expect(glob.matches(BackendRequest(method: "PUT", url: "http://u:p@[::1]:8080/api/v1/login#frag")))
        #expect(!glob.matches(BackendRequest(method: "POST", url: "https://api.example/logins")))
        #expect(!glob.matches(BackendRequest(method: "POST", url: "not a url/login")))
    }

    @Test func theSessionComesFromTheDefaultPathsOfCommonAPIs() throws {
        let rule = try LoginRule(match: "POST /login")
        let bodies = [
            (#"{"user": {"id": 42, "name": "Zoë", "plan": "pro"}, "token": "t1"}"#, "42", "t1"),
            (#"{"data": {"user": {"userId": "u-2"}, "token": "t2"}}"#, "u-2", "t2"),
            (#"{"user": {"uid": "u-3"}, "access_token": "t3", "token_type": "Bearer"}"#, "u-3", "t3"),
            (#"{"user": "u-4", "accessToken": "t4"}"#, "u-4", "t4"),
            (#"{"user": {"id": "u-5"}, "data": {"access_token": "t5"}}"#, "u-5", "t5"),
        ]
        for (body, identifier, token) in bodies {
            let login = try #require(
                try rule.login(from: Self.response("POST", "https://api.example:8443/login", body: body), name: nil))
            #expect(login.session.user.identifier == identifier, "\(body)")
            #expect(login.session.token == token, "\(body)")
            #expect(login.session.name == "\(identifier)@api.example:8443")
            #expect(login.origin == "https://api.example:8443")
            #expect(login.session.baseURL == nil, "the store decides the base URL")
        }
        let named = try rule.login(
            from: Self.response("POST", "https://api.example/login", body: #"{"user": {"id": 1}}"#), name: "mine")
        #expect(named?.session.name == "mine" && named?.session.token == nil)
    }

    @Test func onlyASuccessfulMatchingAnswerWithAUserIsALogin() throws {
        let rule = try LoginRule(match: "POST /login")
        let refused = Self.response("POST", "https://api.example/login", status: 401, body: #"{"user": {"id": 1}}"#)
        #expect(try rule.login(from: refused, name: nil) == nil)
        let other = Self.response("POST", "https://api.example/other", body: #"{"user": {"id": 1}}"#)
        #expect(try rule.login(from: other, name: nil) == nil)
        for (body, message) in [
            ("<html>", "the body is not JSON"), (#"{"ok": true}"#, "no user object at $.user, $.data.user"),
            (#"{"user": {"email": "x"}}"#, "missing \"identifier\""),
        ] {
            #expect(throws: DocumentError.self, "\(body)") {
                try rule.login(from: Self.response("POST", "https://api.example/login", body: body), name: nil)
            }
            do {
                _ = try rule.login(from: Self.response("POST", "https://api.example/login", body: body), name: nil)
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
        // A batch: the failures and the logins, each with its response's index.
        let found = LoginRule.logins(
            in: [
                other, Self.response("POST", "https://api.example/login", body: "{}"),
                Self.response("POST", "https://api.example/login", body: #"{"user": {"id": 7}}"#),
            ], rules: [rule], name: nil)
        #expect(found.map(\.index) == [1, 2])
        #expect((try? found[1].outcome.get())?.session.user.identifier == "7")
    }

    @Test func aLoginSavedInTheStoreBecomesCurrentAndKeepsWhatTheSessionHad() throws {
        let directory = try TemporaryDirectory()
        let store = try SessionStore.open(path: directory.file("data/userdebug.sqlite3"), mode: .readWrite)
        try store.saveSession(
            Session(name: "staging", user: User(identifier: "old"), baseURL: "https://api.x/v1", environment: "stg"),
            makeCurrent: false)
        let saved = try store.saveLogin(
            LoginRule.Login(
                session: Session(name: "staging", user: User(identifier: "new"), token: "t"), origin: "https://api.x"))
        #expect(saved.baseURL == "https://api.x/v1" && saved.environment == "stg")
        #expect(try store.currentSessionName() == "staging")
        let fresh = try store.saveLogin(
            LoginRule.Login(session: Session(name: "b", user: User(identifier: "b")), origin: "https://api.x"))
        #expect(fresh.baseURL == "https://api.x")
        #expect(try store.logOut() == "b")
        #expect(try store.currentSessionName() == nil)
    }
}
