import Glibc
import UserDebugKit

/// What the CLI adds to `FirstHourState`'s table: the files and places only the running binary
/// knows (the sample session installed beside it, its installation prefix), and the states it
/// meets itself (no current session, a broken config, the popup missing).
enum FirstHourHints {
    /// The sample session: `BINDIR/../share/userdebug/sample-session.json` of an installed
    /// binary, else `config/sample-session.json` of the repository a built binary lies in.
    static func sampleSession() -> String? {
        guard let me = ProxyCommand.selfPath(), let slash = me.lastIndex(of: "/") else { return nil }
        var directory = String(me[..<slash])
        let installed = ProxyCommand.normalized(directory + "/../share/userdebug/sample-session.json")
        if access(installed, R_OK) == 0 { return installed }
        while let up = directory.lastIndex(of: "/"), !directory.isEmpty {
            let candidate = directory + "/config/sample-session.json"
            if access(candidate, R_OK) == 0 && access(directory + "/Package.swift", R_OK) == 0 { return candidate }
            directory = String(directory[..<up])
        }
        return nil
    }

    /// `PREFIX` of an installed userdebug (`PREFIX/bin/userdebug`); nil for a built one.
    static func installPrefix() -> String? {
        guard let me = ProxyCommand.selfPath(), let slash = me.lastIndex(of: "/") else { return nil }
        let directory = String(me[..<slash])
        guard directory.hasSuffix("/bin"), !directory.contains("/.build/") else { return nil }
        let prefix = String(directory.dropLast(4))
        return prefix.isEmpty ? "/" : prefix
    }

    /// The error of a store that has no current session: the sessions it has, newest first.
    static func noCurrentSession(_ store: SessionStore) -> CommandError {
        let names = ((try? store.sessions()) ?? []).map(\.name)
        let state = FirstHourState.noCurrentSession(sessions: names, sample: sampleSession())
        return CommandError(.noInput, state.message)
    }

    /// The error of a config file that cannot be used.
    static func configBroken(_ error: ConfigError) -> (ExitStatus, String) {
        (.config, FirstHourState.configBroken(path: error.file, problem: error.description).message)
    }
}
