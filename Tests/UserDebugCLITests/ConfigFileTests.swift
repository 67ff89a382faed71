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

    @Test func aConfiguredRedactionAppliesToOutput() throws {
        let home = try UserDebugHome()
        try home.file("config/config.json", #"{"redaction": {"fields": ["email"]}}"#)
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let out = try home.ok(["dump-json"]).out
        #expect(!out.contains("zoe@example.com"))
        #expect(out.contains("usr_1"))
    }
}
