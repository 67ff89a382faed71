/// What asking the compositor on `WAYLAND_DISPLAY` found.
public enum WaylandFinding: Sendable, Equatable {
    /// `WAYLAND_DISPLAY` is unset or empty: nothing was asked.
    case notSet
    /// No compositor answered: no socket, refused, or no answer before the timeout.
    case notAnswering(String)
    /// A compositor answered and offers no data-control protocol (GNOME, weston, cage); `family`
    /// is what its globals show it is (what its XWayland bridge carries).
    case noDataControl(family: WaylandCompositorFamily)
    /// A compositor answered and offers `interface`, but no seat: no selection to set.
    case noSeat(interface: String)
    /// A compositor answered and offers `interface` at `version`.
    case dataControl(interface: String, version: UInt32)

    /// The finding in words, after `WAYLAND_DISPLAY=NAME`.
    public var description: String {
        switch self {
        case .notSet: "not set"
        case .notAnswering(let reason): "does not answer (\(reason))"
        case .noDataControl:
            "answers but offers no data-control protocol (neither ext_data_control_manager_v1 nor zwlr_data_control_manager_v1)"
        case .noSeat(let interface): "answers and offers \(interface) but no seat, so no selection"
        case .dataControl(let interface, let version): "answers and offers \(interface) version \(version)"
        }
    }
}
