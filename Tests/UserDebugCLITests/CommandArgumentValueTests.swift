import Foundation
import Testing

/// `{{user.identifier}}` and `{{user.name}}` in a config command's arguments come from recorded
/// data (login responses, imported HARs, `--from-clipboard`): a value that would start the
/// argument with `-` (an option to the program) or hold a control character (a second header) is
/// refused at run time, exit 65 naming the field and the action, and the program never runs.
@Suite struct CommandArgumentValueTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var identifier: String
        var name: String
        var arguments: [String]
        /// nil: the program runs and prints these arguments.
        var refusal: String?
        var printed: [String] = []
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(
            identifier: "-K/etc/shadow", name: "Ada", arguments: ["-s", "{{user.identifier}}"],
            refusal: "action 'probe': actions[0].command[2]: {{user.identifier}} starts with '-'"),
        Case(
            identifier: "-K/etc/shadow", name: "Ada", arguments: ["{{user.identifier | url}}"],
            refusal: "action 'probe': actions[0].command[1]: {{user.identifier}} starts with '-'"),
        Case(
            identifier: "usr_1", name: "Ada\r\nX-Injected: yes", arguments: ["-H", "X-User: {{user.name}}"],
            refusal: "action 'probe': actions[0].command[2]: {{user.name}} holds a control character (U+000D)"),
        Case(
            identifier: "usr_1", name: "Ada\nX-Injected: yes", arguments: ["{{user.name}}"],
            refusal: "action 'probe': actions[0].command[1]: {{user.name}} holds a control character (U+000A)"),
        // Inside an argument a leading '-' is only text: the program runs with it.
        Case(
            identifier: "-K/etc/shadow", name: "Ada",
            arguments: ["--user={{user.identifier}}", "X-User: {{user.name}}"],
            refusal: nil, printed: ["--user=-K/etc/shadow", "X-User: Ada"]),
    ]

    @Test(arguments: cases)
    func aRecordedValueThatWouldBeAnOptionOrASecondHeaderNeverReachesTheProgram(_ test: Case) throws {
        let home = try UserDebugHome()
        let log = home.root.appendingPathComponent("argv.log").path
        // A real program that records every argument it was started with.
        let probe = try home.file(
            "tools/argv-probe",
            "#!/bin/sh\nfor a in \"$@\"; do printf '<%s>\\n' \"$a\"; done >> '\(log)'\nprintf 'ran\\n'\n")
        chmod(probe, 0o755)
        let command = try JSONSerialization.data(withJSONObject: [probe] + test.arguments)
        try home.file(
            "config/config.json",
            #"{"actions": [{"id": "probe", "title": "Probe", "command": \#(String(decoding: command, as: UTF8.self))}]}"#
        )
        let session = try JSONSerialization.data(withJSONObject: [
            "name": "shared", "user": ["identifier": test.identifier, "name": test.name],
        ])
        try home.ok(["session", "import", "-"], stdin: String(decoding: session, as: UTF8.self))

        let result = try home.run(["run", "probe", "--to", "stdout"])
        if let refusal = test.refusal {
            #expect(result.status == 65, "\(result)")
            #expect(result.err.contains(refusal), "\(result.err)")
            #expect(result.err.contains("nothing was run"), "\(result.err)")
            #expect(!FileManager.default.fileExists(atPath: log), "the program ran: \(result)")
        } else {
            #expect(result.status == 0 && result.out == "ran\n", "\(result)")
            let printed = try String(contentsOfFile: log, encoding: .utf8)
            #expect(printed == test.printed.map { "<\($0)>\n" }.joined(), "\(printed)")
        }
    }
}
