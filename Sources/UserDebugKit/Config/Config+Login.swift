extension Config {
    static let loginKeys = ["match", "user", "token", "session", "environment", "baseURL"]

    /// `login`: an array of rules (see `LoginRule`), each `{"match": "POST /v1/login"}` with
    /// optional `user` and `token` (a JSON path or an array of them, tried in order), `session`,
    /// `environment` and `baseURL`.
    static func readLogin(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader) throws(ConfigError) {
        guard let elements = value.arrayValue else {
            throw reader.error(
                "login", "expected an array of rules like {\"match\": \"POST /v1/login\"}, got \(value.kindName)")
        }
        var rules: [LoginRule] = []
        for (index, element) in elements.enumerated() {
            let key = "login[\(index)]"
            let object = try reader.members(element, at: key, known: loginKeys)
            let match = try requiredText(object, "match", at: key, reader)
            var rule: LoginRule
            do throws(DocumentError) {
                rule = try LoginRule(match: match)
            } catch {
                throw reader.error(key + ".match", error.message)
            }
            if let value = object["user"] { rule.userPaths = try jsonPaths(value, at: key + ".user", reader) }
            if let value = object["token"] { rule.tokenPaths = try jsonPaths(value, at: key + ".token", reader) }
            if let name = try optionalText(object, "session", at: key, reader) {
                do throws(DocumentError) {
                    try SessionDocument.validateName(name, at: key + ".session")
                } catch {
                    throw reader.error(key + ".session", error.message)
                }
                rule.sessionName = name
            }
            rule.environment = try optionalText(object, "environment", at: key, reader)
            if let url = try optionalText(object, "baseURL", at: key, reader) {
                if let problem = HTTPURL.problem(url) { throw reader.error(key + ".baseURL", problem) }
                rule.baseURL = url
            }
            rules.append(rule)
        }
        config.login = rules
    }

    /// A JSON path (`"$.user"`) or a non-empty array of them.
    private static func jsonPaths(_ value: JSONValue, at key: String, _ reader: ConfigReader) throws(ConfigError)
        -> [JSONPath]
    {
        let texts: [(String?, String)]
        if let elements = value.arrayValue, !elements.isEmpty {
            texts = elements.enumerated().map { ($0.element.stringValue, key + "[\($0.offset)]") }
        } else {
            texts = [(value.stringValue, key)]
        }
        var paths: [JSONPath] = []
        for (text, at) in texts {
            guard let text else {
                throw reader.error(at, "expected a JSON path like \"$.data.user\" or an array of them")
            }
            do throws(DocumentError) {
                paths.append(try JSONPath(text))
            } catch {
                throw reader.error(at, "\"\(text)\": \(error.message)")
            }
        }
        return paths
    }
}
