import CPopup
import Synchronization
import UserDebugCLI
import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// One popup: opens the window at the pointer at once, resolves deferred sections on another
/// thread while it is up, and turns keys and clicks into the model's commands until an entry is
/// chosen (its id is returned) or the menu is dismissed (nil).
final class PopupApp {
    private let host: PopupHost
    private let window: PopupWindow
    private var model: PopupModel
    private var monitor = udp_rect()
    private var origin = (x: 0, y: 0)
    private let resolved = ResolvedFlag()

    /// Monotonic seconds: the program's start, the menu built, the window's font and colours
    /// loaded (for `--trace`, which the benchmark reads).
    private let phases: (start: Double, menu: Double, font: Double)

    init(host: PopupHost, started: Double) throws {
        self.host = host
        let menu = monotonicNow()
        window = try PopupWindow(display: host.display, settings: host.settings)
        phases = (started, menu, monotonicNow())
        model = PopupModel(
            elements: host.session.elements,
            title: "Debug menu · " + host.clean(host.session.context.session.name),
            text: PopupModel.Text(clean: host.clean, subtitle: host.subtitle(of:)))
    }

    /// Shows the popup until the user chooses or dismisses; the window is gone when it returns.
    func run() throws -> String? {
        defer { window.close() }
        let (x, y, monitor) = try window.pointer()
        self.monitor = monitor
        origin = (x, y)
        let rect = place()
        try window.map(at: rect)
        host.trace(
            "popup mapped at \(rect.x),\(rect.y) \(rect.width)x\(rect.height) window \(window.windowID) pointer \(x),\(y)"
                + " monitor \(monitor.x),\(monitor.y) \(monitor.width)x\(monitor.height)"
                + (window.antialiased ? "" : " (core font)") + (window.xwayland ? " (XWayland)" : "")
                + " rowHeight \(window.layout.rowHeight)")
        host.trace(
            "popup phases: menu \(milliseconds(from: phases.start, to: phases.menu)) ms, X and font"
                + " \(milliseconds(from: phases.menu, to: phases.font)) ms, mapped and grabbed"
                + " \(milliseconds(since: phases.start)) ms after start")
        redraw()
        if host.session.elements.hasPendingDeferred { startResolving() }
        return try loop()
    }

    /// Sizes the window for the whole menu and puts its corner at the pointer, kept inside the
    /// pointer's monitor (opening left of or above the pointer near the right or bottom edge).
    private func place() -> udp_rect {
        let sizing = model.sizingRows()
        window.size(for: sizing.rows, count: sizing.most, monitor: monitor)
        model.visibleCount = window.layout.visibleRows
        let width = window.layout.width
        let height = window.layout.height
        let right = Int(monitor.x) + Int(monitor.width)
        let bottom = Int(monitor.y) + Int(monitor.height)
        var x = origin.x
        var y = origin.y
        if x + width > right { x = max(Int(monitor.x), min(origin.x - width, right - width)) }
        if y + height > bottom { y = max(Int(monitor.y), bottom - height) }
        return udp_rect(x: Int32(x), y: Int32(y), width: Int32(width), height: Int32(height))
    }

    /// After a deferred section resolved: a larger menu gets a larger window, placed by the
    /// same rule from the same pointer position; a smaller one keeps its window.
    private func grow() {
        let before = window.layout
        let rect = place()
        guard window.layout.width > before.width || window.layout.visibleRows > before.visibleRows else {
            window.keep(before)
            model.visibleCount = before.visibleRows
            return
        }
        do {
            try window.resize(to: rect)
            host.trace("popup resized to \(rect.x),\(rect.y) \(rect.width)x\(rect.height)")
        } catch {
            window.keep(before)
            model.visibleCount = before.visibleRows
        }
    }

    /// Resolves the deferred sections on another thread; each wakes the event loop as soon as
    /// it has resolved (failed, timed out), so a fast section fills in while a slow one loads.
    private func startResolving() {
        let session = host.session
        let waker = window.waker
        let resolved = self.resolved
        Task.detached {
            try? session.resolveDeferred(onEach: { waker.wake() })
            resolved.set()
            waker.wake()
        }
    }

    private func loop() throws -> String? {
        while true {
            let event = window.nextEvent()
            let started = monotonicNow()
            let command = try handle(event)
            switch command {
            case .none: continue
            case .redraw:
                redraw(since: started)
            case .run(let id):
                host.trace("chose \(id)")
                return id
            case .close:
                return nil
            }
        }
    }

    /// Draws; with `--trace`, waits until the server has drawn it, then says how long that took
    /// since `started` (the event's arrival) and what was drawn.
    private func redraw(since started: Double? = nil) {
        draw(model, in: window)
        guard host.tracing else { return }
        window.sync()
        if let started { host.trace("drawn in \(milliseconds(since: started)) ms") }
        host.trace(model.stateLine)
    }

    private func handle(_ event: udp_event) throws -> PopupCommand {
        switch event.kind {
        case UDP_EVENT_KEY:
            return model.key(UInt(event.keysym), state: event.state, text: Self.text(of: event))
        case UDP_EVENT_BUTTON:
            return click(event)
        case UDP_EVENT_MOTION:
            guard event.inside != 0, let row = window.layout.row(at: Int(event.y), top: model.top) else { return .none }
            return model.hover(row)
        case UDP_EVENT_EXPOSE:
            window.present()
            return .none
        case UDP_EVENT_WAKE:
            return refresh()
        case UDP_EVENT_LOST:
            host.trace(
                event.button == UDP_LOST_GRAB
                    ? "lost the keyboard grab; closing" : "the window was unmapped by another client; closing")
            return .close
        case UDP_EVENT_ERROR:
            if let refused = window.refusedRequest() {
                host.trace("an X request was refused; closing")
                throw PopupHost.unavailable(refused + "; the menu closed, nothing was run")
            }
            host.trace("the X connection failed; closing")
            throw PopupHost.unavailable(
                "the X server of display \(host.display ?? "(DISPLAY unset)") went away; the menu closed, nothing was run"
            )
        default:
            return .none
        }
    }

    /// A deferred section has resolved (or all have): the model takes the elements as they stand.
    private func refresh() -> PopupCommand {
        let all = resolved.isSet
        model.replaceElements(host.session.elements)
        host.trace(all ? "deferred sections resolved" : "a deferred section resolved")
        grow()
        return .redraw
    }

    private func click(_ event: udp_event) -> PopupCommand {
        guard event.inside != 0 else {
            host.trace("click outside; closing")
            return .close
        }
        switch event.button {
        case 4: return model.scroll(by: -3)
        case 5: return model.scroll(by: 3)
        case 1:
            guard let index = window.layout.row(at: Int(event.y), top: model.top), model.rows.indices.contains(index)
            else { return .none }
            _ = model.hover(index)
            return model.choose(model.selectedRow)
        default:
            return .none
        }
    }

    private static func text(of event: udp_event) -> String {
        var copy = event
        return withUnsafeBytes(of: &copy.text) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// Set once by the thread that resolves the deferred sections, read by the event loop.
final class ResolvedFlag: Sendable {
    private let done = Atomic<Bool>(false)

    func set() {
        done.store(true, ordering: .releasing)
    }

    var isSet: Bool { done.load(ordering: .acquiring) }
}
