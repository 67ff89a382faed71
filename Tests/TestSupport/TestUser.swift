public import Foundation

/// A second, unprivileged local account for the tests that play another user's files against
/// ours (`userdebug-test`, a system account without a home or a login shell). CI runs the tests
/// as root; the account is created on first use.
public enum TestUser {
    /// The account's login name.
    public static let name = "userdebug-test"

    /// The numeric ids of the account.
    public struct Account: Sendable, Equatable {
        /// Its user id.
        public var uid: uid_t
        /// Its primary group id.
        public var gid: gid_t
    }

    /// The account, created when missing. Idempotent, and safe when several test processes race
    /// to create it: `useradd` refuses the second one ("already exists", or a held lock on
    /// /etc/passwd), and the account is then looked up again until it appears.
    /// - Throws: `FixtureError` when not root (only root may add accounts) or the account does
    ///   not appear.
    public static func ensure() throws -> Account {
        if let account = lookUp() { return account }
        guard geteuid() == 0 else { throw FixtureError("creating the account \(name) needs root; CI runs as root") }
        var lastOutput = ""
        for _ in 0..<50 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/useradd")
            process.arguments = ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            lastOutput = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if let account = lookUp() { return account }
            usleep(100_000)
        }
        throw FixtureError("useradd \(name) did not create the account: \(lastOutput)")
    }

    /// The argv prefix that runs a program as `account`, with no supplementary groups.
    public static func runningAs(_ account: Account) -> [String] {
        ["/usr/bin/setpriv", "--reuid=\(account.uid)", "--regid=\(account.gid)", "--clear-groups", "--"]
    }

    private static func lookUp() -> Account? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return Account(uid: entry.pw_uid, gid: entry.pw_gid)
    }
}
