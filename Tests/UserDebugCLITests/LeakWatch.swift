import Foundation
import Testing

/// Everything a test's commands wrote, searched for secrets by `Tests/Support/leak_check.py`: as
/// text, and inside JSON escapes, base64, gzip, zlib, raw deflate, brotli and zstd. Outputs are
/// kept in a directory of their own (not under USERDEBUG_HOME, which is searched as well: every
/// file there but the store itself).
final class LeakWatch: @unchecked Sendable {
    let directory: URL
    private var count = 0

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "userdebug-leaks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Keeps `data` under `name` for the search; returns its path.
    @discardableResult
    func keep(_ name: String, _ data: Data) throws -> String {
        count += 1
        let url = directory.appendingPathComponent(String(format: "%03d-", count) + name)
        try data.write(to: url)
        return url.path
    }

    /// Keeps a run's stdout and stderr.
    func keep(_ result: RunResult, as name: String) throws {
        try keep(name + ".stdout", result.stdout)
        try keep(name + ".stderr", result.stderr)
    }

    /// Expects none of `secrets` in what was kept nor in any file under `home` but the store.
    func expectClean(
        of secrets: [String], home: UserDebugHome, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var files = try FileManager.default.contentsOfDirectory(atPath: directory.path).map {
            directory.appendingPathComponent($0).path
        }
        let enumerator = FileManager.default.enumerator(atPath: home.root.path)
        while let relative = enumerator?.nextObject() as? String {
            let path = home.root.appendingPathComponent(relative).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !relative.hasPrefix("data/userdebug.sqlite3")
            else { continue }
            files.append(path)
        }
        let check = try runTool(
            "/usr/bin/python3",
            [Consumers.support("leak_check.py")] + secrets.flatMap { ["--secret", $0] } + files.sorted())
        #expect(check.status == 0 && check.out == "clean\n", "\(check)", sourceLocation: sourceLocation)
    }
}

/// Bytes made by Python's zlib (the tests have no compressor of their own).
enum Compressed {
    static func gzip(_ data: Data) throws -> Data {
        let script = "import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read()))"
        let result = try runTool("/usr/bin/python3", ["-c", script], stdin: data)
        #expect(result.status == 0, "\(result)")
        return result.stdout
    }
}
