import CWayland

/// The compositors of this session found in the runtime directory, for a command started without
/// `WAYLAND_DISPLAY` (a hotkey tool, or a terminal opened before the session exported it).
public struct WaylandDiscovery: Sendable, Equatable {
    /// The sockets named `wayland-N` that are ours twice (the file is owned by our user, and so is
    /// the process listening on it), lowest N first, as absolute paths (valid `WAYLAND_DISPLAY`s).
    public let sockets: [String]
    /// Whether any `wayland-N` socket of ours is there, listened on or not: false means nothing
    /// suggests a Wayland session (plain X11).
    public let sawSocket: Bool

    /// A finding, as `WaylandClipboard.discover` makes it.
    public init(sockets: [String], sawSocket: Bool) {
        self.sockets = sockets
        self.sawSocket = sawSocket
    }
}

extension WaylandClipboard {
    /// The compositors of ours listening in `runtimeDir` (nil: `$XDG_RUNTIME_DIR`, else
    /// `/run/user/UID`): reads the directory and connects to each candidate only to ask who
    /// listens (SO_PEERCRED); no Wayland is spoken. See `cwl_discover` in
    /// Sources/CWayland/include/cwl.h.
    public static func discover(runtimeDir: String?) -> WaylandDiscovery {
        CWLCalls.discover(runtimeDir: runtimeDir)
    }
}

extension CWLCalls {
    /// `cwl_discover`.
    static func discover(runtimeDir: String?) -> WaylandDiscovery {
        var found = cwl_found()
        withOptionalCString(runtimeDir) { cwl_discover($0, &found) }
        let paths = withUnsafeBytes(of: found.paths) { raw in
            let stride = raw.count / Int(CWL_FOUND_MAX)
            return (0..<min(found.count, Int(CWL_FOUND_MAX))).map { i in
                String(decoding: raw[(i * stride)..<((i + 1) * stride)].prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return WaylandDiscovery(sockets: paths, sawSocket: found.seen > 0)
    }
}
