import Testing

@testable import UserDebugKit

/// The text proposed for the `actions` and `backend` sections of `config/config.json`.
let documentedActionsConfig = """
    {
      // Debug actions of your own, shown after the built-in ones and run with
      // `userdebug run ID`. Each: "id" (a-z, 0-9, . _ -), "title", and a "template", a
      // "command", or both. Template placeholders: {{user.identifier}}, {{user.name}},
      // {{user.FIELD}}, {{session.name}}, {{session.token}}, {{session.baseURL}},
      // {{session.environment}}, {{response.id|status|method|url|body}} (the last
      // response, redacted unless --reveal); "{{NAME | url}}" percent-encodes.
      // A template that uses a secret ({{session.token}}, {{user.apiKey}}, …) needs
      // "secret": true. "command" is an argv array run without a shell; its stdout is the
      // result and the template is its stdin; "timeoutSeconds" (default 10) limits it.
      //   {"id": "admin-url", "title": "Open in Admin",
      //    "template": "https://admin.example.com/users/{{user.identifier | url}}"}
      "actions": [],

      // The deferred "From the backend" menu section: GET {session.baseURL}{path} with the
      // session's token, made by curl when a menu is shown. null: no such section.
      "backend": {
        "path": null,               // e.g. "/me"
        "timeoutSeconds": 5,        // then the section shows "timed out"
        "curl": "curl"              // the curl program (a name in PATH, or a path)
      }
    }
    """

@Suite struct ActionConfigTests {
    func parse(_ text: String) throws -> Config {
        try Config.parse(Array(text.utf8), file: "config.json")
    }

    func error(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return (error as? ConfigError)?.description
        }
    }

    @Test func theDocumentedSectionsMeanExactlyTheDefaults() throws {
        #expect(try parse(documentedActionsConfig) == .defaults)
    }

    @Test func aGoodFileGivesItsActionsAndBackend() throws {
        let config = try parse(
            """
            {"actions": [
               {"id": "admin-url", "title": "Open in Admin", "keyHint": "A",
                "template": "https://admin.example.com/users/{{ user.identifier | url }}"},
               {"id": "auth-header", "title": "Authorization Header", "template": "Authorization: Bearer {{session.token}}", "secret": true},
               {"id": "lookup", "title": "Look Up", "command": ["printf", "%s", "{{user.name}}"], "timeoutSeconds": 2}
             ],
             "backend": {"path": "/me", "timeoutSeconds": 1.5, "curl": "/usr/bin/curl"}}
            """)
        #expect(config.actions.map(\.id) == ["admin-url", "auth-header", "lookup"])
        #expect(config.actions[1].isSecret && !config.actions[0].isSecret)
        #expect(config.actions[2].command?.count == 3 && config.actions[2].timeoutSeconds == 2)
        #expect(config.backend == BackendProvider.Settings(path: "/me", timeoutSeconds: 1.5, curl: "/usr/bin/curl"))
    }

    @Test(arguments: [
        ("{\"actions\": {}}", "config.json:1:13: actions: expected an array of action objects, got an object"),
        ("{\"actions\": [{\"title\": \"T\", \"template\": \"x\"}]}", "config.json:1:14: actions[0]: missing \"id\""),
        (
            "{\"actions\": [{\"id\": \"Bad Id\", \"title\": \"T\", \"template\": \"x\"}]}",
            "config.json:1:21: actions[0].id: \"Bad Id\" is not an action id: use 1–64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit"
        ),
        (
            "{\"actions\": [{\"id\": \"copy-id\", \"title\": \"T\", \"template\": \"x\"}]}",
            "config.json:1:21: actions[0].id: \"copy-id\" is a built-in action's id; choose another"
        ),
        (
            "{\"actions\": [{\"id\": \"backend.x\", \"title\": \"T\", \"template\": \"x\"}]}",
            "config.json:1:21: actions[0].id: \"backend.x\" is a built-in action's id; choose another"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"x\"}, {\"id\": \"a\", \"title\": \"U\", \"template\": \"y\"}]}",
            "config.json:1:65: actions[1].id: \"a\" is already the id of an earlier action"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\"}]}",
            "config.json:1:14: actions[0]: needs a \"template\", a \"command\", or both"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"\", \"template\": \"x\"}]}",
            "config.json:1:35: actions[0].title: expected a non-empty string, got an empty string"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"tempalte\": \"x\"}]}",
            "config.json:1:40: actions[0].tempalte: unknown key \"tempalte\" (did you mean \"template\"?)"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"{{user.identifier\"}]}",
            "config.json:1:52: actions[0].template: \"{{\" without a closing \"}}\""
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"{{sesion.token}}\"}]}",
            "config.json:1:52: actions[0].template: {{sesion.token}}: unknown name \"sesion\"; expected user, session or response"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"{{session.password}}\"}]}",
            "config.json:1:52: actions[0].template: {{session.password}}: unknown session field; known: name, token, baseURL, environment"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"{{response.headers}}\"}]}",
            "config.json:1:52: actions[0].template: {{response.headers}}: unknown response field; known: id, status, method, url, body"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"{{user.identifier | base64}}\"}]}",
            "config.json:1:52: actions[0].template: {{user.identifier | base64}}: unknown filter \"base64\"; the one filter is \"url\""
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"Bearer {{session.token}}\"}]}",
            "config.json:1:52: actions[0].template: uses {{session.token}}, a secret; add \"secret\": true so it is marked and never shown by default"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"{{user.apiKey}}\"}]}",
            "config.json:1:52: actions[0].template: uses {{user.apiKey}}, a secret; add \"secret\": true so it is marked and never shown by default"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"command\": [\"curl\", \"-H\", \"{{session.token}}\"], \"secret\": true}]}",
            "config.json:1:66: actions[0].command[2]: {{session.token}} is a secret and arguments are visible to every local user; put it in \"template\", which the command reads on stdin"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"command\": []}]}",
            "config.json:1:51: actions[0].command: expected an array of strings (program, then arguments; no shell), got an array"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"command\": \"ls -l\"}]}",
            "config.json:1:51: actions[0].command: expected an array of strings (program, then arguments; no shell), got \"ls -l\""
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"command\": [\"{{user.name}}\"]}]}",
            "config.json:1:52: actions[0].command[0]: the program must be a fixed name or path, got \"{{user.name}}\""
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"x\", \"secret\": \"yes\"}]}",
            "config.json:1:67: actions[0].secret: expected true or false, got a string"
        ),
        (
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"command\": [\"true\"], \"timeoutSeconds\": 0}]}",
            "config.json:1:79: actions[0].timeoutSeconds: expected a positive number of seconds, got 0"
        ),
        (
            "{\"backend\": {\"path\": \"me\"}}",
            "config.json:1:22: backend.path: expected a path starting with \"/\" (e.g. \"/me\") or null, got \"me\""
        ),
        (
            "{\"backend\": {\"timeoutSeconds\": null}}",
            "config.json:1:32: backend.timeoutSeconds: expected a positive number of seconds, got null"
        ),
        (
            "{\"backend\": {\"curl\": \"\"}}",
            "config.json:1:22: backend.curl: expected a program name or path, got an empty string"
        ),
        (
            "{\"backend\": {\"sections\": [{\"name\": \"Orders\", \"path\": \"/o\"}]}}",
            "config.json:1:36: backend.sections[0].name: expected a unique \"name\" of letters, digits, - and _ (not body or field)"
        ),
        (
            "{\"backend\": {\"sections\": [{\"name\": \"orders\"}]}}",
            "config.json:1:27: backend.sections[0]: a section needs a \"path\""
        ),
        (
            "{\"backend\": {\"sections\": {}}}",
            "config.json:1:26: backend.sections: expected an array of sections, got an object"
        ),
        (
            "{\"backend\": {\"url\": \"/me\"}}",
            "config.json:1:14: backend.url: unknown key \"url\" (did you mean \"curl\"?)"
        ),
    ])
    func badFilesNameTheLineColumnKeyAndProblem(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    @Test func backendSectionsAreMoreDeferredSectionsWithTheBackendsCurl() throws {
        let config = try parse(
            #"""
            {"backend": {"sections": [{"name": "orders", "title": "Recent orders", "path": "/orders"},
                                      {"name": "flags", "path": "/flags", "timeoutSeconds": 2}],
                         "timeoutSeconds": 4, "curl": "/usr/bin/curl"}}
            """#)
        #expect(config.backend.path == nil)
        #expect(
            config.backendSections == [
                BackendProvider.Settings(
                    path: "/orders", timeoutSeconds: 4, curl: "/usr/bin/curl", id: "backend.orders",
                    title: "Recent orders"),
                BackendProvider.Settings(
                    path: "/flags", timeoutSeconds: 2, curl: "/usr/bin/curl", id: "backend.flags", title: "flags"),
            ])
    }

    @Test func aRedactionFieldAddedLaterInTheFileMakesATemplateSecret() {
        let text =
            "{\"actions\": [{\"id\": \"a\", \"title\": \"T\", \"template\": \"{{user.ssn}}\"}], \"redaction\": {\"fields\": [\"ssn\"]}}"
        #expect(error(text)?.contains("uses {{user.ssn}}, a secret") == true)
    }
}
