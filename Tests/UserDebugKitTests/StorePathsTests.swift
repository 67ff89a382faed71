import Testing

@testable import UserDebugKit

@Suite struct StorePathsTests {
    @Test func userdebugHomeOverridesEverything() {
        let paths = UserDebugPaths.fromEnvironment([
            "USERDEBUG_HOME": "/t/ud/", "HOME": "/home/zoe", "XDG_CONFIG_HOME": "/x/config",
            "XDG_DATA_HOME": "/x/data", "XDG_STATE_HOME": "/x/state", "XDG_RUNTIME_DIR": "/run/user/1000",
        ])
        #expect(
            paths
                == UserDebugPaths(
                    configDirectory: "/t/ud/config", dataDirectory: "/t/ud/data", stateDirectory: "/t/ud/state",
                    runtimeDirectory: "/t/ud/run"
                ))
        #expect(paths.databasePath == "/t/ud/data/userdebug.sqlite3")
        #expect(paths.configFile == "/t/ud/config/config.json")
    }

    @Test func xdgDirectoriesAreUsedWhenSet() {
        let paths = UserDebugPaths.fromEnvironment([
            "HOME": "/home/zoe", "XDG_CONFIG_HOME": "/x/config", "XDG_DATA_HOME": "/x/data",
            "XDG_STATE_HOME": "/x/state", "XDG_RUNTIME_DIR": "/run/user/1000",
        ])
        #expect(paths.configDirectory == "/x/config/userdebug")
        #expect(paths.dataDirectory == "/x/data/userdebug")
        #expect(paths.stateDirectory == "/x/state/userdebug")
        #expect(paths.runtimeDirectory == "/run/user/1000/userdebug")
        #expect(paths.databasePath == "/x/data/userdebug/userdebug.sqlite3")
    }

    @Test func homeIsTheFallbackAndThereIsNoRuntimeDirectoryWithoutXDG() {
        let paths = UserDebugPaths.fromEnvironment(["HOME": "/home/zoe"])
        #expect(paths.configDirectory == "/home/zoe/.config/userdebug")
        #expect(paths.dataDirectory == "/home/zoe/.local/share/userdebug")
        #expect(paths.stateDirectory == "/home/zoe/.local/state/userdebug")
        #expect(paths.runtimeDirectory == nil)
        #expect(paths.configFile == "/home/zoe/.config/userdebug/config.json")
    }

    /// One row per ignored value: relative XDG paths (the spec says to ignore them) and empty
    /// variables (which count as unset).
    static let ignoredValues: [(String, String)] = [
        ("XDG_DATA_HOME", "relative/data"),
        ("XDG_DATA_HOME", "./data"),
        ("XDG_DATA_HOME", "~/data"),
        ("XDG_DATA_HOME", ""),
        ("USERDEBUG_HOME", ""),
    ]

    @Test(arguments: ignoredValues)
    func anIgnoredValueFallsBackToHome(_ name: String, _ value: String) {
        let paths = UserDebugPaths.fromEnvironment(["HOME": "/home/zoe", name: value])
        #expect(paths.dataDirectory == "/home/zoe/.local/share/userdebug")
    }

    @Test func aRelativeRuntimeDirectoryMeansNone() {
        #expect(UserDebugPaths.fromEnvironment(["HOME": "/h", "XDG_RUNTIME_DIR": "run"]).runtimeDirectory == nil)
    }

    @Test func aRootHomeDoesNotDoubleTheSlash() {
        #expect(UserDebugPaths.fromEnvironment(["HOME": "/"]).configDirectory == "/.config/userdebug")
    }

    @Test func withoutHomeThePasswordDatabaseHomeIsUsed() {
        let paths = UserDebugPaths.fromEnvironment([:])
        #expect(paths.dataDirectory.hasPrefix("/"))
        #expect(paths.dataDirectory.hasSuffix("/.local/share/userdebug"))
    }

    @Test func theProcessEnvironmentIsRead() {
        let environment = UserDebugPaths.processEnvironment()
        #expect(environment["PATH"] != nil)
    }
}
