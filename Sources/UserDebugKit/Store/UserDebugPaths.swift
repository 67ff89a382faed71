#if canImport(Glibc)
    import Glibc
#endif

/// Where userdebug keeps its files, following the XDG Base Directory specification, with
/// `USERDEBUG_HOME` overriding all of it (tests and side-by-side setups use that).
///
/// There is one database, in the data directory: sessions and the response log together, so a
/// response row and its session share transactions and a foreign key (removing a session removes
/// its responses atomically). The state directory holds what can be lost without harm: the
/// CLI's exported binary request bodies and its capture traces.
public struct UserDebugPaths: Sendable, Equatable {
    /// `$USERDEBUG_HOME/config`, else `$XDG_CONFIG_HOME/userdebug`, else `$HOME/.config/userdebug`.
    public var configDirectory: String
    /// `$USERDEBUG_HOME/data`, else `$XDG_DATA_HOME/userdebug`, else `$HOME/.local/share/userdebug`.
    public var dataDirectory: String
    /// `$USERDEBUG_HOME/state`, else `$XDG_STATE_HOME/userdebug`, else `$HOME/.local/state/userdebug`.
    public var stateDirectory: String
    /// `$USERDEBUG_HOME/run`, else `$XDG_RUNTIME_DIR/userdebug`, else nil (the spec gives no
    /// fallback for the runtime directory; callers choose their own).
    public var runtimeDirectory: String?
    /// The store: `dataDirectory/userdebug.sqlite3`.
    public var databasePath: String
    /// The configuration file: `configDirectory/config.json`.
    public var configFile: String

    /// Paths from the four directories; the database and config file go inside them.
    public init(configDirectory: String, dataDirectory: String, stateDirectory: String, runtimeDirectory: String?) {
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
        self.stateDirectory = stateDirectory
        self.runtimeDirectory = runtimeDirectory
        self.databasePath = dataDirectory + "/userdebug.sqlite3"
        self.configFile = configDirectory + "/config.json"
    }

    /// The paths for `environment` (e.g. the process environment).
    ///
    /// An empty variable counts as unset, and an XDG variable holding a relative path is ignored,
    /// as the spec requires. Without `HOME`, the home directory comes from the password database.
    public static func fromEnvironment(_ environment: [String: String]) -> UserDebugPaths {
        from { environment[$0] }
    }

    /// The paths from a variable lookup (e.g. `getenv`), so a caller on the hotkey path reads the
    /// few variables it needs instead of building a dictionary of the whole environment.
    public static func from(lookup: (String) -> String?) -> UserDebugPaths {
        func value(_ name: String) -> String? {
            guard let text = lookup(name), !text.isEmpty else { return nil }
            return text
        }
        if let home = value("USERDEBUG_HOME") {
            let base = trimmingTrailingSlashes(home)
            return UserDebugPaths(
                configDirectory: base + "/config",
                dataDirectory: base + "/data",
                stateDirectory: base + "/state",
                runtimeDirectory: base + "/run"
            )
        }
        func xdg(_ name: String) -> String? {
            guard let text = value(name), text.hasPrefix("/") else { return nil }
            return trimmingTrailingSlashes(text)
        }
        let home = trimmingTrailingSlashes(value("HOME") ?? passwordDatabaseHome() ?? "/")
        return UserDebugPaths(
            configDirectory: (xdg("XDG_CONFIG_HOME") ?? home + "/.config") + "/userdebug",
            dataDirectory: (xdg("XDG_DATA_HOME") ?? home + "/.local/share") + "/userdebug",
            stateDirectory: (xdg("XDG_STATE_HOME") ?? home + "/.local/state") + "/userdebug",
            runtimeDirectory: xdg("XDG_RUNTIME_DIR").map { $0 + "/userdebug" }
        )
    }

    /// The paths for this process's environment.
    public static func fromProcessEnvironment() -> UserDebugPaths {
        fromEnvironment(processEnvironment())
    }

    /// The process environment as a dictionary, read from `environ` (no Foundation needed).
    static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                // The first definition wins, as getenv(3) does.
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }

    /// "/a/b/" → "/a/b"; the root becomes "" so that appending "/x" gives "/x", not "//x".
    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return path == "/" ? "" : String(path)
    }

    /// The current user's home directory from /etc/passwd, when it has one (`PasswordFile`
    /// says why not getpwuid_r).
    private static func passwordDatabaseHome() -> String? {
        guard let home = PasswordFile.entry(uid: getuid())?.home, !home.isEmpty else { return nil }
        return home
    }
}
