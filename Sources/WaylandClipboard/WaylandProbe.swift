/// What a Wayland compositor answered to `WaylandClipboard.probe`: the facts the backend choice
/// rule needs (is there a compositor, does it offer data-control, with the primary selection).
public enum WaylandProbe: Sendable, Equatable {
    /// `WAYLAND_DISPLAY` is not set (or is empty): no compositor is named.
    case notSet
    /// A compositor is named but did not answer within the timeout: nothing listens on the
    /// socket, the connection was refused, or it stayed silent. `reason` says which.
    case noAnswer(reason: String)
    /// The compositor answered; `dataControl` is the protocol a copy would use, nil when it offers
    /// none (GNOME's mutter and weston do not: there the X11 bridge is the way); `family` is what
    /// its globals show it is, which sets the limits of its XWayland bridge.
    case answers(dataControl: WaylandDataControl?, family: WaylandCompositorFamily = .other)
}

/// What a compositor's globals show it is, for what its XWayland bridge carries to Wayland
/// clients (an X11 copy made through XWayland reaches them only through that bridge).
public enum WaylandCompositorFamily: String, Sendable, Equatable {
    /// A wlroots compositor (a `zwlr_` global other than data-control: sway, cage, ...): it takes
    /// an X11 selection over only while an X11 window has the keyboard focus.
    case wlroots
    /// weston (a `weston_` global): its bridge (weston 10) carries CLIPBOARD only, not PRIMARY,
    /// and hands Wayland clients the size word of an INCR transfer instead of its bytes.
    case weston
    /// Anything else (GNOME's mutter, KWin, ...): nothing known against its bridge.
    case other
}

/// A data-control protocol a compositor offers, the one a copy would use.
public struct WaylandDataControl: Sendable, Equatable {
    /// Which of the two data-control protocols.
    public enum Interface: String, Sendable, Equatable {
        /// `ext_data_control_manager_v1` (preferred where offered).
        case ext = "ext_data_control_manager_v1"
        /// `zwlr_data_control_manager_v1` (wlroots compositors, KWin).
        case wlr = "zwlr_data_control_manager_v1"
    }

    /// The protocol.
    public let interface: Interface
    /// The version the compositor advertises.
    public let version: UInt32
    /// Whether the primary selection can be used through it (ext: always; wlr: version 2 and up).
    public let supportsPrimary: Bool
    /// Whether the compositor advertises a seat (data-control works per seat; none: no clipboard).
    public let hasSeat: Bool

    /// A description of a data-control protocol as the registry advertised it.
    public init(interface: Interface, version: UInt32, supportsPrimary: Bool, hasSeat: Bool) {
        self.interface = interface
        self.version = version
        self.supportsPrimary = supportsPrimary
        self.hasSeat = hasSeat
    }
}
