import Glibc
import Testing

@testable import UserDebugKit

/// A fresh directory per test, removed afterwards, so tests share nothing and run in parallel.
private struct ConfigTemporaryDirectory: ~Copyable {
    let path: String

    init() throws {
        var template = Array("/tmp/userdebug-config-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        path = try #require(made)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        return file
    }

    deinit {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}

private func configError(_ text: String) -> ConfigError? {
    loadError { () throws(ConfigError) in _ = try Config.parse(Array(text.utf8), file: "config.json") }
}

private func loadError(_ body: () throws(ConfigError) -> Void) -> ConfigError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

@Test func aMissingFileMeansTheDefaults() throws {
    let directory = try ConfigTemporaryDirectory()
    #expect(try Config.load(path: directory.path + "/config.json") == .defaults)
}

@Test func theDefaultsAreTheDocumentedOnes() {
    let config = Config.defaults
    #expect(config.retention == RetentionPolicy(maxCount: 10_000, maxBytes: 268_435_456))
    #expect(config.output.defaultTarget == .auto && config.output.selection == .clipboard)
    #expect(
        config.clipboard == CopyOptions(clearSecretAfter: 30, lifetime: nil, connectTimeout: 1, transferTimeout: 10))
    #expect(config.clipboardOwner == Config.ClipboardOwner(handOffAtOnce: nil, reuseOwner: nil), "the backend's")
    #expect(config.redactionPolicy == .default)
}

@Test func aFileOfOnlyCommentsMeansTheDefaults() throws {
    #expect(
        try Config.parse(Array("\u{FEFF}// all commented out\n# {\"retention\": {}}\n\n".utf8), file: "c") == .defaults)
}

@Test func aGoodFileWithCommentsIsRead() throws {
    let directory = try ConfigTemporaryDirectory()
    let file = try directory.write(
        "config.json",
        """
        // userdebug settings
        {
          "$schema": "https://example.invalid/userdebug-config.json",
          "retention": {"maxResponses": null, "maxBytes": 1048576},  # unlimited count
          "redaction": {"headers": ["X-Internal-Auth"], "fields": ["ssn"], "fieldPatterns": ["iban"], "queryParameters": ["tenant"]},
          "output": {"defaultTarget": "stdout", "selection": "primary"},
          "clipboard": {"secretClearSeconds": null, "lifetimeSeconds": 600, "transferTimeoutSeconds": 2.5, "connectTimeoutSeconds": 0.5,
                        "handOffAtOnce": true, "reuseOwner": false}
        }
        """)
    let config = try Config.load(path: file)
    #expect(config.retention == RetentionPolicy(maxCount: nil, maxBytes: 1_048_576))
    #expect(config.output == Config.Output(defaultTarget: .stdout, selection: .primary))
    #expect(
        config.clipboard == CopyOptions(clearSecretAfter: nil, lifetime: 600, connectTimeout: 0.5, transferTimeout: 2.5)
    )
    #expect(config.clipboardOwner == Config.ClipboardOwner(handOffAtOnce: true, reuseOwner: false))
    let policy = config.redactionPolicy
    #expect(
        policy.isSensitiveHeader("x-internal-auth") && policy.isSensitiveField("SSN")
            && policy.isSensitiveField("customerIban"))
    #expect(policy.isSensitiveQueryParameter("tenant") && policy.isSensitiveHeader("Authorization"))
}

struct BadConfig: Sendable, CustomTestStringConvertible {
    let text: String
    let description: String
    var testDescription: String { description }
}

@Test(arguments: [
    BadConfig(
        text: "{\n  \"retention\": {\n    \"maxResponses\": \"many\"\n  }\n}",
        description: "config.json:3:21: retention.maxResponses: expected a positive integer or null, got a string"),
    BadConfig(
        text: "{\"retention\": {\"maxResponses\": 0}}",
        description: "config.json:1:32: retention.maxResponses: expected a positive integer or null, got 0"),
    BadConfig(
        text: "{\"retention\": {\"maxBytes\": 1.5}}",
        description: "config.json:1:28: retention.maxBytes: expected a positive integer or null, got 1.5"),
    BadConfig(
        text: "{\"retention\": {\"maxBytes\": 99999999999999999999}}",
        description:
            "config.json:1:28: retention.maxBytes: expected a positive integer or null, got 99999999999999999999"),
    BadConfig(
        text: "{\n  // comment\n  \"retention\": {\"maxResponse\": 5}\n}",
        description:
            "config.json:3:17: retention.maxResponse: unknown key \"maxResponse\" (did you mean \"maxResponses\"?)"),
    BadConfig(
        text: "{\"retentoin\": {}}",
        description: "config.json:1:2: retentoin: unknown key \"retentoin\" (did you mean \"retention\"?)"),
    BadConfig(text: "{\"shortcuts\": []}", description: "config.json:1:2: shortcuts: unknown key \"shortcuts\""),
    BadConfig(
        text: "{\"hotkeys\": []}",
        description: "config.json:1:13: hotkeys: expected an object like {\"Super+Alt+I\": \"copy-id\"}, got an array"),
    BadConfig(
        text: "{\"hotkeys\": {\"Super+I\": \"copy-id\", \"super+i\": \"dump-json\"}}",
        description: "config.json:1:36: hotkeys.super+i: the same keys as \"Super+I\" above"),
    BadConfig(
        text: "{\"hotkeys\": {\"Super+\": \"copy-id\"}}",
        description:
            "config.json:1:14: hotkeys.Super+: \"Super+\" is not a key combination: write modifiers and a key joined by '+'"
    ),
    BadConfig(text: "{\"retention\": 5}", description: "config.json:1:15: retention: expected an object, got a number"),
    BadConfig(text: "[]", description: "config.json: expected an object, got an array"),
    BadConfig(
        text: "{\"redaction\": {\"headers\": \"X-A\"}}",
        description: "config.json:1:27: redaction.headers: expected an array of strings, got a string"),
    BadConfig(
        text: "{\"redaction\": {\"fields\": [\"a\", 2]}}",
        description: "config.json:1:32: redaction.fields[1]: expected a string, got a number"),
    BadConfig(
        text: "{\"redaction\": {\"queryParameters\": [\"\"]}}",
        description: "config.json:1:36: redaction.queryParameters[0]: expected a name, got an empty string"),
    BadConfig(
        text: "{\"output\": {\"defaultTarget\": \"clipbaord\"}}",
        description:
            "config.json:1:30: output.defaultTarget: expected one of \"auto\", \"stdout\", \"clipboard\", \"primary\", \"clipboard+stdout\", got \"clipbaord\""
    ),
    BadConfig(
        text: "{\"output\": {\"selection\": 1}}",
        description:
            "config.json:1:26: output.selection: expected one of \"clipboard\", \"primary\", \"both\", got a number"),
    BadConfig(
        text: "{\"clipboard\": {\"transferTimeoutSeconds\": null}}",
        description:
            "config.json:1:42: clipboard.transferTimeoutSeconds: expected a positive number of seconds, got null"),
    BadConfig(
        text: "{\"clipboard\": {\"connectTimeoutSeconds\": -1}}",
        description: "config.json:1:41: clipboard.connectTimeoutSeconds: expected a positive number of seconds, got -1"),
    BadConfig(
        text: "{\"clipboard\": {\"secretClearSeconds\": \"30\"}}",
        description:
            "config.json:1:38: clipboard.secretClearSeconds: expected a positive number of seconds or null, got a string"
    ),
    BadConfig(
        text: "{\"clipboard\": {\"reuseOwner\": \"yes\"}}",
        description: "config.json:1:30: clipboard.reuseOwner: expected true or false, got a string"),
    BadConfig(
        text: "{\"clipboard\": {\"reuseOwners\": true}}",
        description:
            "config.json:1:16: clipboard.reuseOwners: unknown key \"reuseOwners\" (did you mean \"reuseOwner\"?)"),
    BadConfig(
        text: "{\n  \"retention\": {\"maxResponses\": 10,}\n}",
        description: "config.json:2:36: unexpected character '}'; expected a member name in double quotes"),
    BadConfig(text: "{\"a\": 1, \"a\": 2}", description: "config.json:1:10: duplicate key \"a\""),
    BadConfig(
        text: "{\"output\": {} /* block */}",
        description: "config.json:1:15: unexpected character '/'; expected ',' or '}'"),
])
func badConfigFilesNameTheLineColumnAndKey(_ bad: BadConfig) throws {
    let error = try #require(configError(bad.text))
    #expect(error.description == bad.description)
}

@Test func anUnreadableConfigIsAnErrorNotTheDefaults() throws {
    let directory = try ConfigTemporaryDirectory()
    let error = try #require(loadError { () throws(ConfigError) in _ = try Config.load(path: directory.path) })
    #expect(error.description == "\(directory.path): cannot read: Is a directory")
}

@Test func theErrorCarriesItsPartsSeparately() throws {
    let error = try #require(configError("{\"retention\": {\"maxResponses\": true}}"))
    #expect(
        error
            == ConfigError(
                file: "config.json", line: 1, column: 32, key: "retention.maxResponses",
                message: "expected a positive integer or null, got a boolean"))
}

/// The `hotkeys` section: key names as xbindkeys/sxhkd users write them.
@Suite struct HotkeyConfigTests {
    @Test func keysParseCaseInsensitivelyToTheirKeysymAndModifiers() throws {
        let config = try Config.parse(
            Array(
                #"{"hotkeys": {"Super+Alt+I": "copy-id", "ctrl + SHIFT + f5": "menu", "Hyper+XF86AudioPlay": "dump-json", "Super+U+20AC": "copy-name", "Alt+backspace": "backend.body"}}"#
                    .utf8), file: "config.json")
        let keys = config.hotkeys.map { "\($0.key) \(String($0.key.keysym, radix: 16)) \($0.action)" }
        #expect(
            keys == [
                "Super+Alt+i 69 copy-id", "Ctrl+Shift+F5 ffc2 menu", "Hyper+XF86AudioPlay 1008ff14 dump-json",
                "Super+U+20AC 10020ac copy-name", "Alt+BackSpace ff08 backend.body",
            ])
    }

    @Test func actionsOfTheFileMayComeAfterTheHotkeys() throws {
        let text =
            #"{"hotkeys": {"Super+A": "admin-url"}, "actions": [{"id": "admin-url", "title": "A", "template": "x"}]}"#
        #expect(try Config.parse(Array(text.utf8), file: "c").hotkeys.first?.action == "admin-url")
    }
}

/// `notifications` as a word (when) or an object with the failure notifications' timeout: 30 s
/// unless set, null for "until dismissed" (issue 28 item 5).
@Test func notificationsTakeAFailureTimeout() throws {
    func parse(_ text: String) throws(ConfigError) -> Config { try Config.parse(Array(text.utf8), file: "c.json") }
    #expect(try parse("{}").failureNotificationSeconds == 30)
    let word = try parse(#"{"notifications": "always"}"#)
    #expect(word.notifications == .always && word.failureNotificationSeconds == 30)
    let long = try parse(#"{"notifications": {"when": "never", "failureTimeoutSeconds": 7.5}}"#)
    #expect(long.notifications == .never && long.failureNotificationSeconds == 7.5)
    let forever = try parse(#"{"notifications": {"failureTimeoutSeconds": null}}"#)
    #expect(forever.notifications == .auto && forever.failureNotificationSeconds == nil)
    for (text, names) in [
        (#"{"notifications": {"failureTimeoutSeconds": 0}}"#, "notifications.failureTimeoutSeconds"),
        (#"{"notifications": {"when": "sometimes"}}"#, "notifications.when"),
        (#"{"notifications": {"timeout": 5}}"#, "notifications.timeout"),
    ] {
        #expect(throws: ConfigError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.description.contains(names), "\(error)")
        }
    }
}
