extension Config {
    static let actionKeys = ["id", "title", "subtitle", "keyHint", "template", "command", "secret", "timeoutSeconds"]

    /// `actions`: an array of action objects (see `ConfigAction`).
    static func readActions(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader) throws(ConfigError) {
        guard let elements = value.arrayValue else {
            throw reader.error("actions", "expected an array of action objects, got \(value.kindName)")
        }
        var actions: [ConfigAction] = []
        for (index, element) in elements.enumerated() {
            let key = "actions[\(index)]"
            let object = try reader.members(element, at: key, known: actionKeys)
            let id = try requiredText(object, "id", at: key, reader)
            guard ConfigAction.isWellFormed(id) else {
                throw reader.error(
                    key + ".id",
                    "\"\(id)\" is not an action id: use 1–64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit"
                )
            }
            if ConfigAction.reservedIDs.contains(id) || id.hasPrefix(BackendProvider.sectionID + ".") {
                throw reader.error(key + ".id", "\"\(id)\" is a built-in action's id; choose another")
            }
            if actions.contains(where: { $0.id == id }) {
                throw reader.error(key + ".id", "\"\(id)\" is already the id of an earlier action")
            }
            var action = ConfigAction(id: id, title: try requiredText(object, "title", at: key, reader))
            action.subtitle = try optionalText(object, "subtitle", at: key, reader)
            action.keyHint = try optionalText(object, "keyHint", at: key, reader)
            if let text = try optionalText(object, "template", at: key, reader) {
                action.template = try template(text, at: key + ".template", reader)
            }
            if let value = object["command"] {
                action.command = try command(value, at: key + ".command", reader)
            }
            if let value = object["secret"] {
                guard case .bool(let flag) = value else {
                    throw reader.error(key + ".secret", "expected true or false, got \(value.kindName)")
                }
                action.isSecret = flag
            }
            if let value = object["timeoutSeconds"],
                let seconds = try reader.positiveSeconds(value, at: key + ".timeoutSeconds", allowsNull: false)
            {
                action.timeoutSeconds = seconds
            }
            guard action.template != nil || action.command != nil else {
                throw reader.error(key, "needs a \"template\", a \"command\", or both")
            }
            actions.append(action)
        }
        config.actions = actions
    }

    /// `backend`: `path`, `timeoutSeconds`, `curl`, `sections`.
    static func readBackend(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader) throws(ConfigError) {
        let object = try reader.members(value, at: "backend", known: ["path", "timeoutSeconds", "curl", "sections"])
        try readRequest(&config.backend, object, at: "backend", reader)
        if let value = object["curl"] {
            guard let curl = value.stringValue, !curl.isEmpty else {
                throw reader.error("backend.curl", "expected a program name or path, got \(describe(value))")
            }
            config.backend.curl = curl
        }
        if let value = object["sections"] { try readBackendSections(&config, value, reader) }
    }

    /// `path` and `timeoutSeconds` of the `backend` section or of one of its `sections`.
    private static func readRequest(
        _ settings: inout BackendProvider.Settings, _ object: JSONObject, at key: String, _ reader: ConfigReader
    ) throws(ConfigError) {
        if let value = object["path"] {
            switch value {
            case .null:
                settings.path = nil
            case .string(let path) where path.hasPrefix("/") && !path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }):
                settings.path = path
            default:
                throw reader.error(
                    key + ".path", "expected a path starting with \"/\" (e.g. \"/me\") or null, got \(describe(value))")
            }
        }
        if let value = object["timeoutSeconds"],
            let seconds = try reader.positiveSeconds(value, at: key + ".timeoutSeconds", allowsNull: false)
        {
            settings.timeoutSeconds = seconds
        }
    }

    /// `backend.sections`: `[{"name": "orders", "title": "Orders", "path": "/orders", "timeoutSeconds": 5}]`,
    /// each a deferred section `backend.NAME` asked with `backend.curl`.
    private static func readBackendSections(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader)
        throws(ConfigError)
    {
        guard case .array(let entries) = value else {
            throw reader.error("backend.sections", "expected an array of sections, got \(describe(value))")
        }
        var names: Set<String> = []
        for (index, entry) in entries.enumerated() {
            let key = "backend.sections[\(index)]"
            let object = try reader.members(entry, at: key, known: ["name", "title", "path", "timeoutSeconds"])
            guard let name = object["name"]?.stringValue, ConfigAction.isWellFormed(name), !name.contains("."),
                !["body", "field"].contains(name), names.insert(name).inserted
            else {
                throw reader.error(
                    key + (object["name"] == nil ? "" : ".name"),
                    "expected a unique \"name\" of letters, digits, - and _ (not body or field)")
            }
            var section = BackendProvider.Settings(
                timeoutSeconds: config.backend.timeoutSeconds, curl: config.backend.curl,
                id: BackendProvider.sectionID + "." + name, title: object["title"]?.stringValue ?? name)
            try readRequest(&section, object, at: key, reader)
            guard section.path != nil else { throw reader.error(key, "a section needs a \"path\"") }
            config.backendSections.append(section)
        }
    }

    /// A template that puts a secret out must be marked `"secret": true`; a command argument
    /// may never hold one (every local user can read another process's arguments), nor anything
    /// that can carry one: only `ActionTemplate.argumentPlaceholders` are allowed there.
    static func checkActionSecrets(_ config: Config, _ reader: ConfigReader) throws(ConfigError) {
        // The policy is built only for actions to check: building it is most of a small file's cost.
        if config.actions.isEmpty { return }
        let policy = config.redactionPolicy
        let allowed = ActionTemplate.argumentPlaceholders.map { "{{\($0)}}" }.joined(separator: ", ")
        for (index, action) in config.actions.enumerated() {
            let key = "actions[\(index)]"
            for (position, argument) in (action.command ?? []).enumerated() {
                if let secret = argument.secrets(policy: policy).first {
                    throw reader.error(
                        key + ".command[\(position)]",
                        "{{\(secret)}} is a secret and arguments are visible to every local user; put it in \"template\", which the command reads on stdin"
                    )
                }
                if let unfit = argument.placeholdersUnfitForArguments.first {
                    throw reader.error(
                        key + ".command[\(position)]",
                        "{{\(unfit)}} can carry a secret and arguments are visible to every local user; put it in \"template\", which the command reads on stdin (arguments may use \(allowed))"
                    )
                }
            }
            if let secret = action.template?.secrets(policy: policy).first, !action.isSecret {
                throw reader.error(
                    key + ".template",
                    "uses {{\(secret)}}, a secret; add \"secret\": true so it is marked and never shown by default")
            }
        }
    }

    private static func command(_ value: JSONValue, at key: String, _ reader: ConfigReader) throws(ConfigError)
        -> [ActionTemplate]
    {
        guard let elements = value.arrayValue, !elements.isEmpty else {
            throw reader.error(
                key, "expected an array of strings (program, then arguments; no shell), got \(describe(value))")
        }
        var argv: [ActionTemplate] = []
        for (index, element) in elements.enumerated() {
            guard let text = element.stringValue else {
                throw reader.error(key + "[\(index)]", "expected a string, got \(element.kindName)")
            }
            let parsed = try template(text, at: key + "[\(index)]", reader)
            if index == 0, text.isEmpty || !parsed.placeholders.isEmpty {
                throw reader.error(key + "[0]", "the program must be a fixed name or path, got \"\(text)\"")
            }
            argv.append(parsed)
        }
        return argv
    }

    private static func template(_ text: String, at key: String, _ reader: ConfigReader) throws(ConfigError)
        -> ActionTemplate
    {
        do {
            return try ActionTemplate(text)
        } catch {
            throw reader.error(key, error.message)
        }
    }

    static func requiredText(_ object: JSONObject, _ name: String, at key: String, _ reader: ConfigReader)
        throws(ConfigError) -> String
    {
        guard let text = try optionalText(object, name, at: key, reader) else {
            throw reader.error(key, "missing \"\(name)\"")
        }
        return text
    }

    static func optionalText(_ object: JSONObject, _ name: String, at key: String, _ reader: ConfigReader)
        throws(ConfigError) -> String?
    {
        guard let value = object[name] else { return nil }
        guard let text = value.stringValue, !text.isEmpty else {
            throw reader.error(key + "." + name, "expected a non-empty string, got \(describe(value))")
        }
        return text
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text.isEmpty ? "an empty string" : "\"\(text)\"" }
        return value.kindName
    }
}
