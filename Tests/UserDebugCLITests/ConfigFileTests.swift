import Foundation
import Testing

/// The shipped config/config.json is the documented defaults: loading it changes nothing, and a
/// broken config is exit 78 naming the file, line and key.
@Suite struct ConfigFileTests {
    static var shippedConfig: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("config/config.json").path
    }

    @Test func theShippedConfigLoadsAndBehavesAsTheDefaults() throws {
        let home = try UserDebugHome()
        try home.file("config/config.json", try Data(contentsOf: URL(fileURLWithPath: Self.shippedConfig)))
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        #expect(try home.ok(["copy-id"]).out == "usr_1\n")
        #expect(!(try home.ok(["dump-json"]).out.contains("ak-secret-1")))
    }

    @Test func aBrokenConfigIsExit78NamingFileLineAndKey() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let path = try home.file("config/config.json", "{\n  \"retention\": {\"maxResponses\": \"many\"}\n}\n")
        let result = try home.run(["dump-json"])
        #expect(result.status == 78, "\(result)")
        #expect(result.err.contains(path))
        #expect(result.err.contains("retention.maxResponses"))
        #expect(result.err.contains(":2:"))
    }

    /// The `hotkeys` section is read only by the commands that use it (docs/files.md): broken,
    /// it fails `daemon --check` with 78 at its key, as before, while `dump-json` (which reads
    /// the config for its redaction) runs as if it were absent, without a warning. What every
    /// command reading the config still checks: JSON syntax anywhere, the top-level keys, and
    /// the sections it reads.
    @Test func aBrokenHotkeysSectionFailsOnlyTheCommandsThatUseIt() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let broken = [
            "{\n  \"hotkeys\": {\"Super+Alt+Nope\": \"copy-id\"},\n  \"notifications\": \"never\"\n}\n",
            "{\"hotkeys\": {\"Super+F5\": \"no-such\"}}",
            "{\"hotkeys\": [\"Super+Alt+I\"]}",
        ]
        for text in broken {
            try home.file("config/config.json", text)
            let dump = try home.run(["dump-json"])
            #expect(dump.status == 0 && dump.out.contains("\"usr_1\""), "\(text): \(dump)")
            #expect(dump.err.isEmpty, "\(text): \(dump)")
            let check = try home.run(["daemon", "--check"])
            #expect(check.status == 78, "\(text): \(check)")
            #expect(check.err.contains("hotkeys"), "\(text): \(check)")
        }
        // The other sections are still checked by the command reading them.
        let stillChecked = [
            "{\"hotkeys\": {}, \"output\": {\"defaultTarget\": \"printer\"}}": ":1:45: output.defaultTarget",
            "{\"hotkeys\": {\"Super+Alt+I\": }}": ":1:29: unexpected character",
            "{\"hotkeys\": {},\n \"hotkey\": {}}": ":2:2: hotkey: unknown key",
        ]
        for (text, problem) in stillChecked {
            try home.file("config/config.json", text)
            let dump = try home.run(["dump-json"])
            #expect(dump.status == 78, "\(text): \(dump)")
            #expect(dump.err.contains(home.configPath + problem), "\(text): \(dump)")
        }
    }

    @Test func aConfiguredRedactionAppliesToOutput() throws {
        let home = try UserDebugHome()
        try home.file("config/config.json", #"{"redaction": {"fields": ["email"]}}"#)
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let out = try home.ok(["dump-json"]).out
        #expect(!out.contains("zoe@example.com"))
        #expect(out.contains("usr_1"))
    }
}
