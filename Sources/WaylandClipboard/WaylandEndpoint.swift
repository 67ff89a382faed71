public import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// Where the Wayland backend connects (`WAYLAND_DISPLAY` in `XDG_RUNTIME_DIR`, else the socket of
/// ours found there), and the one place outside this module's clipboard that speaks to it: the
/// discovery, the probe the backend rule asks, its probe-and-copy, and the clipboard it chooses.
/// The CLI asks it for these and otherwise holds the Wayland backend only as `any Clipboard`, so
/// no Wayland-only call is made outside this module.
public struct WaylandEndpoint: Sendable {
    /// `WAYLAND_DISPLAY`, else the first socket `discovery` found; nil when there is neither.
    public var display: String?
    /// `XDG_RUNTIME_DIR`, where a relative `WAYLAND_DISPLAY` is found.
    public var runtimeDir: String?
    /// What the runtime directory showed when `WAYLAND_DISPLAY` is unset or empty; nil when it
    /// is set (then nothing is looked for).
    public var discovery: WaylandDiscovery? = nil

    /// The endpoint `display` in `runtimeDir`, with what the runtime directory showed (nil: not
    /// looked at, `WAYLAND_DISPLAY` was set).
    public init(display: String?, runtimeDir: String?, discovery: WaylandDiscovery? = nil) {
        self.display = display
        self.runtimeDir = runtimeDir
        self.discovery = discovery
    }

    /// The endpoint of a process whose `WAYLAND_DISPLAY` is `named` (nil or empty: unset): that
    /// name, else the lowest-numbered socket of ours in the runtime directory (a hotkey tool or
    /// a terminal started before the session exported `WAYLAND_DISPLAY` still reaches the
    /// session's compositor). Reading the directory is all a plain X11 session pays.
    public static func resolve(named: String?, runtimeDir: String?) -> WaylandEndpoint {
        if let named, !named.isEmpty { return WaylandEndpoint(display: named, runtimeDir: runtimeDir) }
        let discovery = WaylandClipboard.discover(runtimeDir: runtimeDir)
        return WaylandEndpoint(display: discovery.sockets.first, runtimeDir: runtimeDir, discovery: discovery)
    }

    /// Whether a Wayland session of ours seems to be there without a compositor that answers as
    /// `finding` says: a `wayland-N` socket of ours in the runtime directory while
    /// `WAYLAND_DISPLAY` is unset, and nothing behind it (or no one of ours) answered. An X11 copy
    /// then goes through XWayland blind: nothing can read it back.
    public func unreachable(_ finding: WaylandFinding) -> Bool {
        guard let discovery, discovery.sawSocket else { return false }
        switch finding {
        case .notSet, .notAnswering: return true
        default: return false
        }
    }

    /// What `unreachable(finding)` found, in words.
    public func unreachableDetail(_ finding: WaylandFinding) -> String {
        let directory = runtimeDir.flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(geteuid())"
        if let display, case .notAnswering(let reason) = finding {
            return "the compositor socket of ours found, \(display), does not answer (\(reason))"
        }
        return "nothing of ours listens on the wayland-N sockets of ours in \(directory)"
    }

    /// What the compositor offers, within `timeout` seconds; nothing is asked when `display` is nil.
    public func probe(timeout: Double) -> WaylandFinding {
        guard let display else { return .notSet }
        return Self.finding(WaylandClipboard.probe(display: display, runtimeDir: runtimeDir, timeout: timeout))
    }

    /// What a probe's answer means to the backend rule.
    public static func finding(_ probe: WaylandProbe) -> WaylandFinding {
        switch probe {
        case .notSet: return .notSet
        case .noAnswer(let reason): return .notAnswering(reason)
        case .answers(nil, let family): return .noDataControl(family: family)
        case .answers(let dataControl?, _):
            guard dataControl.hasSeat else { return .noSeat(interface: dataControl.interface.rawValue) }
            return .dataControl(interface: dataControl.interface.rawValue, version: dataControl.version)
        }
    }

    /// The Wayland clipboard on this endpoint, serving copies as `policy` says (its
    /// `callerExitsSoon`, `reuseOwner` and `newOwner`; the CLI builds one policy for both backends),
    /// behind the seam: copies and pastes use it as `any Clipboard` (its pastes bounded by
    /// `pasteDeadline`, `clipboard.pasteDeadlineSeconds`); the backend rule's probe-and-copy is
    /// `copyIfDataControl`, here.
    public func clipboard(
        policy: OwnerPolicy = OwnerPolicy(callerExitsSoon: true), pasteDeadline: Double = CopyOptions().pasteDeadline
    ) -> any Clipboard {
        wayland(policy: policy, pasteDeadline: pasteDeadline)
    }

    /// The concrete clipboard, for the probe-and-copy.
    func wayland(policy: OwnerPolicy, pasteDeadline: Double = CopyOptions().pasteDeadline) -> WaylandClipboard {
        WaylandClipboard(display: display, runtimeDir: runtimeDir, policy: policy, pasteDeadline: pasteDeadline)
    }

    /// A copy whose own connection is the backend rule's probe: one connect and one registry
    /// round trip answer what `probe` asks (within `options.connectTimeout`, the probe's timeout),
    /// and only when that finds data-control with a seat does the copy go on, on that connection.
    /// Returns the finding and, when the copy went on, its outcome (nil: nothing was set; the rule
    /// decides with the finding). Call it only where the rule would ask (`display` set, the
    /// preference not `x11`).
    public func copyIfDataControl(
        _ payload: Payload, to selection: SelectionName, options: CopyOptions, policy: OwnerPolicy
    ) -> (finding: WaylandFinding, outcome: Result<Void, ClipboardError>?) {
        guard display != nil else { return (.notSet, nil) }
        let (probe, outcome) = wayland(policy: policy).ownIfDataControl(payload, to: selection, options: options)
        return (Self.finding(probe), outcome.map { $0.map { _ in () } })
    }

    /// Hands a copy to a serving process of ours on this compositor before the backend rule asks
    /// the compositor anything (that connect, registry and round trip is most of a consecutive
    /// copy's cost): such a process exists only where the rule chose Wayland with data-control
    /// on this very compositor socket, and it confirms the new selection before answering. Only
    /// under the rule's own conditions: `WAYLAND_DISPLAY` set (or the socket found) and the
    /// preference not `x11`; the backend's `handToResidentOwner` then hands only while the owner
    /// policy reuses owners without `--new-owner`. True: copied; false: apply the rule.
    public func handToResidentOwner(
        _ payload: Payload, to selection: SelectionName, options: CopyOptions,
        preference: ClipboardBackendPreference, policy: OwnerPolicy
    ) -> Bool {
        guard display != nil, preference != .x11 else { return false }
        let backend: any Clipboard = clipboard(policy: policy)
        return backend.handToResidentOwner(payload, to: selection, options: options)
    }
}
