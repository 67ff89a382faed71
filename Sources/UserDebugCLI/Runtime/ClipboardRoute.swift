import UserDebugKit
import WaylandClipboard

#if canImport(Glibc)
    import Glibc
#endif

/// Why a copy or a paste through the chosen backend failed, with the choice that led there.
struct ClipboardRouteError: Error, Sendable {
    /// What went wrong.
    enum Problem: Sendable, Equatable {
        /// The backend failed.
        case backend(ClipboardError)
        /// The forced backend is not there (`choice.reason` says why).
        case unavailable
        /// An X11 copy under a Wayland compositor that Wayland clients cannot see.
        case notBridged
        /// An X11 copy to XWayland while no compositor of ours answers (`WAYLAND_DISPLAY` unset,
        /// its socket in the runtime directory silent): nothing can tell whether Wayland clients
        /// see it. `detail` says what was found.
        case waylandUnreachable(String)
        /// An X11 copy to XWayland that the compositor's bridge would not carry to Wayland
        /// clients (found before anything was served), for the reason given.
        case bridgeRefuses(BridgeLimit)
    }

    /// What a compositor without data-control does not carry from XWayland to Wayland clients.
    enum BridgeLimit: Sendable, Equatable {
        /// wlroots (cage): an X11 selection is taken over only while an X11 window has the focus.
        case noX11Focus
        /// weston: PRIMARY is not bridged.
        case primary
        /// weston: an X11 transfer above `limit` bytes (INCR) reaches Wayland clients as its
        /// size word; the copy has `size` bytes.
        case size(size: Int, limit: Int)
        /// weston: only text (UTF8_STRING) is bridged, and these bytes are not UTF-8.
        case notText
    }

    /// What went wrong.
    var problem: Problem
    /// The choice that led there.
    var choice: BackendChoice

    /// The notice of `--to auto` writing to standard output instead, with the reason.
    var fallbackNotice: String {
        let reason = problem == .unavailable ? ": \(choice.reason)" : " (\(ErrorReport.route(self).1))"
        return "no clipboard\(reason); writing to standard output"
    }

    /// Whether it means "no clipboard here", on which `--to auto` falls back to standard output.
    var meansNoClipboard: Bool {
        switch problem {
        case .unavailable, .backend(.noDisplay), .waylandUnreachable, .bridgeRefuses: true
        default: false
        }
    }
}

/// The clipboard of one command: the backend the rule chose, behind the `Clipboard` seam (X11,
/// Wayland data-control, or the daemon's in-process owner), and the check that an X11 copy made
/// under a Wayland compositor reached Wayland clients. Nothing here knows which backend it is
/// talking to beyond the rule's `choice.route`.
struct ClipboardRoute {
    /// The choice and its reason.
    let choice: BackendChoice
    /// The backend `choice.route` names (`NoClipboard` when it is `.unavailable`, never called).
    /// Not an optional: copying an `Optional<any Clipboard>` makes the runtime build that type's
    /// metadata from its mangled name, about 10,000 instructions on every hotkey copy.
    let backend: any Clipboard
    /// Where the Wayland backend connects: the read-back of the bridge check.
    let wayland: WaylandEndpoint

    /// Makes `payload` the content of `selection` through the chosen backend. After an X11 copy
    /// while a compositor of ours offers data-control (a forced `x11` on sway or KDE, with
    /// `WAYLAND_DISPLAY` or the socket found without it), it reads the Wayland selection back and
    /// fails unless it carries the payload: sway lets an X11 client set the clipboard only while
    /// one of its windows has keyboard focus, and says so only in its own log. After an X11 copy
    /// to XWayland with `WAYLAND_DISPLAY` unset and no compositor of ours answering, nothing can
    /// read it back: it fails, naming the fix. A failed copy's owner process is stopped, so the
    /// value is not served on. Under a compositor without data-control whose bridge is known to
    /// drop what this copy is (`bridgeRefusal`), nothing is served: it fails, naming the limit.
    /// Returns what is known of the compositor after the copy: the rule's finding, or, for an X11
    /// copy the rule did not probe for (a forced `x11`), the probe's.
    @discardableResult
    func copy(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardRouteError)
        -> WaylandFinding?
    {
        guard choice.route != .unavailable else { throw ClipboardRouteError(problem: .unavailable, choice: choice) }
        var seen = choice
        if choice.route == .x11 {
            seen.wayland = choice.wayland ?? wayland.probe(timeout: options.connectTimeout)
            if case .noDataControl(let family) = seen.wayland, family != .other,
                let limit = bridgeRefusal(payload, to: selection, family: family, timeout: options.connectTimeout)
            {
                throw ClipboardRouteError(problem: .bridgeRefuses(limit), choice: seen)
            }
        }
        let owner: OwnerProcess?
        do throws(ClipboardError) {
            owner = try backend.serve(payload, to: selection, options: options)
        } catch {
            throw ClipboardRouteError(problem: .backend(error), choice: choice)
        }
        guard choice.route == .x11, let finding = seen.wayland else { return seen.wayland }
        if case .dataControl = finding {
            guard wayland.selectionCarries(payload, selection: selection, within: max(2, options.connectTimeout))
            else {
                owner?.stop()
                throw ClipboardRouteError(problem: .notBridged, choice: seen)
            }
        } else if wayland.unreachable(finding), backend.isXWayland(timeout: options.connectTimeout) == true {
            owner?.stop()
            throw ClipboardRouteError(problem: .waylandUnreachable(wayland.unreachableDetail(finding)), choice: seen)
        }
        return finding
    }

    /// What the XWayland bridge of a compositor of `family` (without data-control) would not carry
    /// of this copy, asked of the X server before anything is served; nil: nothing known against
    /// it (or `DISPLAY` is no XWayland: then the bridge is not in the way).
    func bridgeRefusal(
        _ payload: Payload, to selection: SelectionName, family: WaylandCompositorFamily, timeout: Double
    )
        -> ClipboardRouteError.BridgeLimit?
    {
        guard let facts = backend.xwayland(timeout: timeout) else { return nil }
        switch family {
        case .wlroots:
            return facts.x11WindowFocused ? nil : .noX11Focus
        case .weston:
            if selection == .primary { return .primary }
            let limit = facts.largestWholeProperty
            if payload.byteCount > limit { return .size(size: payload.byteCount, limit: limit) }
            let text = payload.kind != .binary || payload.withUnsafeBytes { isValidUTF8($0) }
            return text ? nil : .notText
        case .other:
            return nil
        }
    }

    /// Streams `selection` as `target` to the descriptor `fd` as it arrives (a large selection is
    /// never held in memory where the backend streams) and says whether it did; false: no backend.
    func paste(selection: SelectionName, target: String, timeout: Double, to fd: Int32) throws(ClipboardRouteError)
        -> Bool
    {
        guard choice.route != .unavailable else { return false }
        do throws(ClipboardError) {
            try backend.paste(selection: selection, target: target, timeout: timeout, to: fd)
            return true
        } catch {
            throw ClipboardRouteError(problem: .backend(error), choice: choice)
        }
    }

    /// Reads `selection` as `target` through the chosen backend.
    func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardRouteError) -> [UInt8] {
        guard choice.route != .unavailable else { throw ClipboardRouteError(problem: .unavailable, choice: choice) }
        do throws(ClipboardError) {
            return try backend.paste(selection: selection, target: target, timeout: timeout)
        } catch {
            throw ClipboardRouteError(problem: .backend(error), choice: choice)
        }
    }
}

/// The backend of `BackendChoice.Route.unavailable`: the route refuses before calling it, so its
/// calls only say that there is no clipboard.
struct NoClipboard: Clipboard {
    func copy(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError) {
        throw .noDisplay(reason: "no clipboard")
    }

    func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8] {
        throw .noDisplay(reason: "no clipboard")
    }
}

extension WaylandEndpoint {
    /// Whether the Wayland `selection` carries `payload` within `seconds`: the compositor's
    /// XWayland bridge takes an X11 selection over asynchronously, so it is read until it matches
    /// or the deadline passes (a refused copy costs the whole deadline; a bridged one returns at
    /// once).
    func selectionCarries(_ payload: Payload, selection: SelectionName, within seconds: Double) -> Bool {
        let target = payload.kind == .binary ? "application/octet-stream" : "UTF8_STRING"
        let deadline = monotonicSeconds() + seconds
        let reader: any Clipboard = clipboard()
        repeat {
            if let bytes = try? reader.paste(selection: selection, target: target, timeout: 1),
                payload.withUnsafeBytes({ $0.elementsEqual(bytes) })
            {
                return true
            }
            usleep(20_000)
        } while monotonicSeconds() < deadline
        return false
    }
}

extension ErrorReport {
    /// The message and status of a failure through the chosen backend.
    static func route(_ error: ClipboardRouteError) -> (ExitStatus, String) {
        let reason = error.choice.reason
        switch (error.problem, error.choice.route) {
        case (.unavailable, _):
            return (.unavailable, "no clipboard: \(reason)")
        case (.waylandUnreachable(let detail), _):
            return (
                .unavailable,
                "the X11 copy may not reach Wayland clients: DISPLAY is XWayland, but WAYLAND_DISPLAY is not set and "
                    + "\(detail), so nothing can check that the compositor took the copy; set WAYLAND_DISPLAY where the hotkey tool or terminal starts "
                    + "(export it from the compositor's startup; for systemd user services: "
                    + "systemctl --user import-environment WAYLAND_DISPLAY)"
            )
        case (.bridgeRefuses(let limit), _):
            return (.unavailable, bridgeMessage(limit))
        case (.notBridged, _):
            return (
                .unavailable,
                "the X11 copy did not reach Wayland clients: the compositor did not take it over from XWayland "
                    + "(sway does so only while an X11 window has keyboard focus); use --backend wayland"
            )
        case (.backend(.noDisplay(let detail)), .wayland):
            return (.unavailable, "the Wayland compositor does not answer: \(detail)")
        case (.backend(.ownershipNotConfirmed(let detail)), .wayland):
            return (
                .unavailable,
                "the Wayland compositor did not make our copy the selection (it refused, or another client took it at once): "
                    + detail
            )
        case (.backend(let underlying), .x11) where error.choice.wayland.map { $0 != .notSet } ?? true:
            let (status, message) = clipboard(underlying)
            return (status, "\(message) (\(reason))")
        case (.backend(let underlying), _):
            return clipboard(underlying)
        }
    }

    /// Why the compositor's XWayland bridge would not carry the copy, and what to do instead.
    static func bridgeMessage(_ limit: ClipboardRouteError.BridgeLimit) -> String {
        switch limit {
        case .noX11Focus:
            return "the X11 copy would not reach Wayland clients: this wlroots compositor (cage, or another without "
                + "data-control) takes an X11 copy over from XWayland only while an X11 window has keyboard focus, "
                + "and none has it (_NET_ACTIVE_WINDOW is None); focus an X11 window and copy again, or use a "
                + "compositor with data-control (sway, KDE) where the copy needs no focus"
        case .primary:
            return "the X11 copy to PRIMARY would not reach Wayland clients: weston's XWayland bridge carries "
                + "CLIPBOARD only; copy to CLIPBOARD instead (--to clipboard)"
        case .size(let size, let limit):
            return "the X11 copy of \(size) bytes would not reach Wayland clients whole: weston's XWayland bridge "
                + "carries at most \(limit) bytes (one X11 property; a larger transfer arrives as its 4-byte size); "
                + "copy at most \(limit) bytes, or write it to a file (--to stdout)"
        case .notText:
            return "the X11 copy would not reach Wayland clients: weston's XWayland bridge carries text only "
                + "(UTF8_STRING, as text/plain;charset=utf-8) and these bytes are not UTF-8; write them to a file "
                + "(--to stdout)"
        }
    }
}
