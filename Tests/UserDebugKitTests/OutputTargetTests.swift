import Testing
import UserDebugKit

/// `--to` and `output.defaultTarget` names: `clipboard+stdout` is listed, `both` still read as it.
@Suite struct OutputTargetTests {
    @Test func clipboardPlusStdoutIsListedAndBothIsItsAlias() {
        #expect(
            OutputTarget.allCases.map(\.rawValue) == ["auto", "stdout", "clipboard", "primary", "clipboard+stdout"])
        #expect(OutputTarget(rawValue: "both") == .clipboardAndStdout)
        #expect(OutputTarget(rawValue: "clipboard+stdout") == .clipboardAndStdout)
        #expect(OutputTarget(rawValue: "Both") == nil)
        for target in OutputTarget.allCases { #expect(OutputTarget(rawValue: target.rawValue) == target) }
    }

    @Test(arguments: ["both", "clipboard+stdout"])
    func theConfigReadsBothSpellings(name: String) throws {
        let config = try Config.parse(Array(#"{"output": {"defaultTarget": "\#(name)"}}"#.utf8), file: "config.json")
        #expect(config.output.defaultTarget == .clipboardAndStdout)
    }
}
