/// What a Wayland compositor answered to `WaylandClipboard.probe`: the facts the backend choice
/// rule needs (is there a compositor, does it offer data-control, with the primary selection).
public enum WaylandProbe: Sendable, Equatable {
    /// `WAYLAND_DISPLAY` is not set (or is empty): no compositor is named.
    case notSet
    /// A compositor is named but did not answer within the timeout: nothing listens on the
    /// socket, the connection was refused, or it stayed silent. `reason` says which.
    case noAnswer(reason: String)
    /// The compositor answered; `dataControl` is the protocol a copy would use, nil when it offers
    /// none (GNOME's mutter and weston do not: there the X11 bridge is the way).
    case answers(dataControl: WaylandDataControl?)
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
