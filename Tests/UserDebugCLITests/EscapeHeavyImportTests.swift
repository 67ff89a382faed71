import Foundation
import Testing

/// A HAR file built to burn CPU: 1.6 million JSON escapes in one body, the file the review used
/// (4.8 MB, 42.7 s to import when string decoding was quadratic). No time is asserted: imported
/// linearly it takes a moment, quadratically several minutes, so a regression shows as a hang
/// of this test while what is asserted is that every byte survives the round trip.
@Suite(.desktopTier) struct EscapeHeavyImportTests {
    static let units = 1_600_000

    static func har(bodyText: String) throws -> Data {
        let entry: [String: Any] = [
            "startedDateTime": "2026-11-30T10:00:00.000Z", "time": 1,
            "request": ["method": "GET", "url": "https://api.example.com/v1/escapes", "headers": []],
            "response": [
                "status": 200, "headers": [["name": "Content-Type", "value": "text/plain"]],
                "content": ["mimeType": "text/plain", "text": bodyText],
            ],
        ]
        let log: [String: Any] = [
            "log": ["version": "1.2", "creator": ["name": "t", "version": "1"], "entries": [entry]]
        ]
        return try JSONSerialization.data(withJSONObject: log)
    }

    @Test func aHARWithMillionsOfEscapesImportsAndPrintsEveryByte() throws {
        let home = try UserDebugHome()
        try home.ok(["session", "import", "-"], stdin: Samples.session)
        let body = String(repeating: "a\"", count: Self.units)
        let file = try Self.har(bodyText: body)
        #expect(file.count > 4_800_000)
        #expect(String(decoding: file, as: UTF8.self).components(separatedBy: #"a\""#).count == Self.units + 1)
        try home.file("escapes.har", file)
        let imported = try home.run(["response", "import", home.root.appendingPathComponent("escapes.har").path])
        #expect(imported.status == 0, "\(imported.err)")
        let printed = try home.run(["print-response", "last", "--to", "stdout"])
        #expect(printed.status == 0, "\(printed.err)")
        #expect(printed.stdout == Data((body + "\n").utf8))
        let exported = try home.run(["export", "har", "--to", "stdout"])
        let log = try #require(JSONSerialization.jsonObject(with: exported.stdout) as? [String: Any])
        let entries = try #require((log["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let content = (entries.first?["response"] as? [String: Any])?["content"] as? [String: Any]
        #expect(content?["text"] as? String == body)
    }
}
