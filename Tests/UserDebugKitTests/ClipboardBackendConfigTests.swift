import Testing

@testable import UserDebugKit

/// `clipboard.backend`: each word the file may use, and the error for any other.
@Test(arguments: ClipboardBackendPreference.allCases)
func theClipboardBackendIsReadFromTheFile(_ preference: ClipboardBackendPreference) throws {
    let text = "{\"clipboard\": {\"backend\": \"\(preference.rawValue)\"}}"
    let config = try Config.parse(Array(text.utf8), file: "config.json")
    #expect(config.clipboardBackend == preference)
    var rest = config
    rest.clipboardBackend = .auto
    #expect(rest == .defaults, "the key changes nothing else")
}

@Test func withoutTheKeyTheRuleChooses() throws {
    let config = try Config.parse(Array("{\"clipboard\": {\"reuseOwner\": true}}".utf8), file: "config.json")
    #expect(config.clipboardBackend == .auto)
    #expect(Config.defaults.clipboardBackend == .auto)
}

@Test(arguments: [
    (
        "{\"clipboard\": {\"backend\": \"wlroots\"}}",
        "config.json:1:27: clipboard.backend: expected one of \"auto\", \"wayland\", \"x11\", got \"wlroots\""
    ),
    (
        "{\n  \"clipboard\": {\n    \"backend\": null\n  }\n}",
        "config.json:3:16: clipboard.backend: expected one of \"auto\", \"wayland\", \"x11\", got null"
    ),
    (
        "{\"clipboard\": {\"backends\": \"x11\"}}",
        "config.json:1:16: clipboard.backends: unknown key \"backends\" (did you mean \"backend\"?)"
    ),
])
func aBadClipboardBackendNamesTheLineColumnAndKey(_ text: String, _ description: String) throws {
    do {
        _ = try Config.parse(Array(text.utf8), file: "config.json")
        Issue.record("accepted \(text)")
    } catch {
        #expect(error.description == description)
    }
}
