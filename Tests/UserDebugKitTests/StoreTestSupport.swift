import Foundation
import Testing

@testable import UserDebugKit

/// A fresh directory per test (mode 0700, as mkdtemp makes it), removed when the value goes away,
/// so tests share no state and run in any order and in parallel.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "userdebug-store-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        path = String(cString: created)
    }

    deinit {
        // An immutable file left by a failed test would make the removal fail.
        ReadOnlyFiles.run("/usr/bin/chattr", ["-R", "-i", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }
}

/// Values to record, with something in every field.
enum StoreSamples {
    /// A millisecond-exact date: the store keeps dates to the millisecond.
    static let date = Date(timeIntervalSince1970: 1_700_000_000.123)

    static func user(_ identifier: String = "42") -> User {
        User(
            identifier: identifier,
            name: "Zoë Ångström 😀",
            fields: JSONObject([
                JSONObject.Member(key: "zeta", value: .number("1.50")),
                JSONObject.Member(key: "big", value: .number("12345678901234567890")),
                JSONObject.Member(
                    key: "nested", value: .object(JSONObject(["b": .bool(true), "a": .array([.null, .string("x")])]))),
                JSONObject.Member(key: "emoji", value: .string("🦊 \u{0} tab\t")),
            ])
        )
    }

    static func session(_ name: String = "staging", identifier: String = "42") -> Session {
        Session(
            name: name, user: user(identifier), token: "tok-\(name)", baseURL: "https://\(name).example.com",
            environment: name, createdAt: date
        )
    }

    static func response(
        url: String = "https://api.example.com/v1/users/42", status: Int = 200, tags: [String] = [],
        body: [UInt8] = Array("{\"ok\":true}".utf8)
    ) -> BackendResponse {
        BackendResponse(
            request: BackendRequest(
                method: "POST", url: url,
                headers: [
                    HTTPHeader(name: "Accept", value: "application/json"), HTTPHeader(name: "X-Trace", value: "1"),
                    HTTPHeader(name: "X-Trace", value: "2"),
                ],
                body: [0, 1, 0, 255]
            ),
            status: status,
            headers: [HTTPHeader(name: "Set-Cookie", value: "a=1"), HTTPHeader(name: "Set-Cookie", value: "b=2")],
            body: body,
            startedAt: date,
            durationMs: 12.5,
            tags: tags
        )
    }
}

/// Making a file or directory read-only in a way that stops root too: tests run as root, for
/// whom chmod 0444 changes nothing. `chattr +i` (the immutable flag, which needs
/// CAP_LINUX_IMMUTABLE and an ext2/3/4, XFS or btrfs file system) refuses writes to everyone;
/// when the tests do not run as root, chmod is enough.
enum ReadOnlyFiles {
    /// Whether this machine can make a file read-only for this process; probed once.
    static let available: Bool = {
        guard let directory = try? TemporaryDirectory() else { return false }
        let probe = directory.file("probe")
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else { return false }
        set(probe, readOnly: true)
        defer { set(probe, readOnly: false) }
        return open(probe, O_WRONLY) < 0
    }()

    /// Makes `path` read-only (or writable again).
    static func set(_ path: String, readOnly: Bool) {
        if geteuid() == 0 {
            run("/usr/bin/chattr", [readOnly ? "+i" : "-i", path])
        } else {
            var status = stat()
            stat(path, &status)
            let isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
            chmod(path, readOnly ? (isDirectory ? 0o500 : 0o400) : (isDirectory ? 0o700 : 0o600))
        }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension SessionStore {
    /// Rows of an arbitrary query's first column, for checks the public API does not offer.
    func column(_ sql: String) throws -> [String] {
        try database.column(sql)
    }
}

/// The name of an error's case, to compare errors whose detail text comes from SQLite.
func caseName(_ error: StoreError) -> String {
    switch error {
    case .missing: return "missing"
    case .notADatabase: return "notADatabase"
    case .corrupt: return "corrupt"
    case .isDirectory: return "isDirectory"
    case .readOnly: return "readOnly"
    case .permissionDenied: return "permissionDenied"
    case .busy: return "busy"
    case .noSuchSession: return "noSuchSession"
    case .noCurrentSession: return "noCurrentSession"
    case .io: return "io"
    case .sqlite: return "sqlite"
    case .incompatible: return "incompatible"
    case .untrusted: return "untrusted"
    case .invalidResponse: return "invalidResponse"
    case .recordTooLarge: return "recordTooLarge"
    }
}
