import Foundation
import TestSupport
import Testing

/// `print-response --body` without `--reveal` (issue 13): a body printed to standard output is
/// redacted in its own buffer (`RedactedBodyStream`); its bytes are those `run print-response`
/// (the action path, whole-body redaction) prints, and a body that cannot be held is an error.
@Suite(.desktopTier) struct LargeRedactedBodyTests {
    let home: UserDebugHome

    init() throws {
        home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
    }

    func bash(_ script: String, database: Bool = false) throws -> (status: Int32, out: String) {
        var environment = home.environment
        if database { environment["DB"] = home.databasePath }
        environment["UD"] = UserDebugHome.binary
        environment["WORK"] = home.root.path
        let output = try Peer.read(["bash", "-c", script], environment: environment, limit: 120)
        return (output.status, String(decoding: output.bytes, as: UTF8.self))
    }

    /// Records a response with `body` (Python expression of a str) under `contentType`.
    func record(_ body: String, contentType: String = "application/json") throws {
        let result = try bash(
            #"""
            python3 - "$WORK" <<'PY'
            import json, sys
            body = \#(body)
            response = {"status": 200, "headers": {"Content-Type": "\#(contentType)"}, "body": body}
            doc = {"request": {"method": "GET", "url": "https://api.example.com/v1/export"}, "response": response}
            open(f"{sys.argv[1]}/doc.json", "w").write(json.dumps(doc))
            PY
            "$UD" response record "$WORK/doc.json" > /dev/null
            """#)
        try #require(result.status == 0, "\(result)")
    }

    /// Both paths print the same bytes, and the secrets are gone.
    func expectSameAsTheActionPath(_ secrets: [String]) throws {
        let result = try bash(
            """
            "$UD" print-response --body > "$WORK/streamed" || exit 10
            "$UD" run print-response --to stdout > "$WORK/whole" || exit 11
            cmp "$WORK/streamed" "$WORK/whole" || exit 12
            wc -c < "$WORK/streamed"
            for secret in \(secrets.map { "'\($0)'" }.joined(separator: " ")); do grep -c -- "$secret" "$WORK/streamed"; done
            exit 0
            """)
        #expect(result.status == 0, "\(result)")
        let lines = result.out.split(separator: "\n")
        #expect(lines.dropFirst().allSatisfy { $0 == "0" }, "\(result)")
        #expect((Int(lines.first ?? "") ?? 0) > 0, "\(result)")
    }

    @Test func aLargeJSONBodyPrintsTheSameBytesAsTheActionPath() throws {
        try record(
            #"""
            "[" + ",".join(json.dumps({"id": i, "token": f"tok_{i:08d}abcdef", "pin": i % 10,
                "note": "x" * 40, "echo": "canary-7f3a9c-tok" if i % 1000 == 0 else "é😀"}) for i in range(60000)) + "]"
            """#)
        try expectSameAsTheActionPath(["tok_0000", "\"pin\": [0-9]", Samples.canary])
    }

    @Test func textFormAndBinaryBodiesPrintTheSameBytesAsTheActionPath() throws {
        try record(#""line one\npassword=hunter22\n" * 1000"#, contentType: "text/plain")
        try expectSameAsTheActionPath(["hunter22"])
        try record(#""a=1&token=abc123def&b=2""#, contentType: "application/x-www-form-urlencoded")
        try expectSameAsTheActionPath(["abc123def"])
    }

    @Test func aBodyThatCannotBeHeldIsExit74WithAMessageNotATrap() throws {
        try record(#""{}""#)
        // The binary starts well under 200 MB of address space; a 230 MB body cannot fit.
        let result = try bash(
            """
            sqlite3 "$DB" "UPDATE responses SET response_body = zeroblob(230000000)" || exit 10
            ulimit -v 200000
            "$UD" print-response --body --to stdout > /dev/null 2> "$WORK/err"
            echo "status=$?"; cat "$WORK/err"
            """, database: true)
        #expect(result.out.hasPrefix("status=74\n"), "\(result)")
        #expect(result.out.contains("not enough memory to redact a response body of 230000000 bytes"), "\(result)")
        #expect(!result.out.contains("Fatal error"), "\(result)")
    }

    @Test func aFullStandardOutputIsExit74() throws {
        try record(#""[" + ",".join('{"token":"t%08d"}' % i for i in range(1000)) + "]""#)
        let result = try bash(
            """
            "$UD" print-response --body --to stdout > /dev/full 2> "$WORK/err"
            echo "status=$?"; cat "$WORK/err"
            """)
        #expect(result.out.hasPrefix("status=74\n"), "\(result)")
        #expect(result.out.contains("cannot write to standard output"), "\(result)")
    }
}
