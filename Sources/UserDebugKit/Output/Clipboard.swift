#if canImport(Glibc)
    import Glibc
#endif

/// Which selection a copy or a paste uses. Both exist on X11 and on Wayland (the primary
/// selection protocol), so the names are the same for every backend.
public enum SelectionName: String, Sendable, CaseIterable {
    /// CLIPBOARD: what Ctrl+V pastes.
    case clipboard
    /// PRIMARY: what a middle click pastes.
    case primary
}

/// How one copy behaves, on any backend. It is also the `clipboard` section of the config file
/// (`secretClearSeconds`, `lifetimeSeconds`, `connectTimeoutSeconds`, `transferTimeoutSeconds`,
/// `pasteDeadlineSeconds`):
/// the defaults below are the product's, written only here.
public struct CopyOptions: Sendable, Hashable {
    /// For a secret payload: clear the selection after this many seconds if it still holds this
    /// copy (nil: never). Ordinary payloads ignore it.
    public var clearSecretAfter: Double?
    /// Stop serving after this many seconds (nil: until another client takes the selection).
    public var lifetime: Double?
    /// How long to wait for the display server to answer before throwing `.noDisplay`.
    public var connectTimeout: Double
    /// How long one transfer to one reader may stall before that reader is dropped; the others,
    /// and later readers, are still served.
    public var transferTimeout: Double
    /// How long a paste may take as a whole (at least its own timeout), plus one second for each
    /// 256 KiB received: an owner that sends its INCR chunks one byte at a time, each in time, is
    /// given up on then (`.tooSlow`). 30 s is far more than a local paste of any size needs
    /// below the 256 KiB/s floor; a slow forwarded display with a large paste may need more.
    public var pasteDeadline: Double
    /// Where the owner (X11 or Wayland) reports a clipboard keeper that put a cleared secret back
    /// (it reads the selection back for a few seconds after the clear; a clear that held removes
    /// the file).
    /// nil: no read-back. See `ClearReport`.
    public var clearReport: String?

    /// Options with the defaults of the product: secrets cleared after 30 s, served until
    /// replaced, 1 s to connect, 10 s per stalled transfer, 30 s (and 1 s per 256 KiB) a paste.
    public init(
        clearSecretAfter: Double? = 30,
        lifetime: Double? = nil,
        connectTimeout: Double = 1,
        transferTimeout: Double = 10,
        pasteDeadline: Double = 30
    ) {
        self.clearSecretAfter = clearSecretAfter
        self.lifetime = lifetime
        self.connectTimeout = connectTimeout
        self.transferTimeout = transferTimeout
        self.pasteDeadline = pasteDeadline
    }
}

/// Why the clipboard could not be used.
public enum ClipboardError: Error, Sendable, Equatable {
    /// No display server to talk to: none named in the environment, none serving the name, or
    /// none answering before the connect timeout. Callers may fall back to stdout on this one.
    case noDisplay(reason: String)
    /// The selection could not be taken or ownership was not confirmed; `reason` is the
    /// backend's account of why (the server or compositor refused, another client won).
    case ownershipNotConfirmed(reason: String)
    /// Reading the selection did not finish in time.
    case timedOut(String)
    /// The owner answered, but the whole read passed its deadline (`CopyOptions.pasteDeadline`):
    /// it sends its content too slowly.
    case tooSlow(String)
    /// The owner refused the requested target, or there is no owner.
    case noContent(String)
    /// The payload cannot be offered (e.g. not representable in the requested target).
    case unsupported(String)
    /// Any other failure (a fork, a protocol error), with a message.
    case failed(String)
}

/// How a backend serves its copies, on X11 and on Wayland alike: the detached owner process, its
/// reuse, its hand-off to a clipboard manager. The defaults below are the product's and are
/// written only here; the CLI overrides them from `clipboard.handOffAtOnce`,
/// `clipboard.reuseOwner`, `--hand-off` and `--new-owner`.
public struct OwnerPolicy: Sendable, Hashable {
    /// Hand the content to a running clipboard manager (SAVE_TARGETS) as soon as the owner
    /// serves, and stop serving once it is saved; with no manager, or one that does not save
    /// it, keep serving. X11's CLIPBOARD only (Wayland has no such hand-off); never for secrets.
    public var handOffAtOnce: Bool
    /// How long a leaving owner waits for a clipboard manager to save the content (X11).
    public var handOffTimeout: Double
    /// If a serving process of ours already owns the selection on this display or compositor
    /// (one started with `reuseOwner`), hand it the content over a local socket instead of
    /// connecting and forking; it takes the selection again and confirms before the copy
    /// returns. Payloads up to 4 MiB, not with `handOffAtOnce`; anything else, or no such
    /// process, owns as usual, and the new owner listens for the next copies.
    public var reuseOwner: Bool
    /// With `reuseOwner`: start a new serving process anyway (it takes the next copies).
    public var newOwner: Bool
    /// Whether the caller exits right after copying (a command-line tool): the serving
    /// process is then forked once instead of twice, which saves a fork and a round trip on
    /// the hotkey path, and connecting (copy and paste) is bounded by a timer signal to the
    /// calling thread instead of a watchdog thread. A long-lived caller leaves it false: it
    /// keeps no zombie, and no signal disposition of its process is touched.
    public var callerExitsSoon: Bool

    /// A policy; the defaults keep one resident owner per selection that takes the next
    /// copies (the hotkey path's latency depends on it), with no hand-off at once.
    public init(
        handOffAtOnce: Bool = false,
        handOffTimeout: Double = 1.5,
        reuseOwner: Bool = true,
        newOwner: Bool = false,
        callerExitsSoon: Bool = false
    ) {
        self.handOffAtOnce = handOffAtOnce
        self.handOffTimeout = handOffTimeout
        self.reuseOwner = reuseOwner
        self.newOwner = newOwner
        self.callerExitsSoon = callerExitsSoon
    }
}

/// The detached process serving a copy (`Clipboard.serve`).
public struct OwnerProcess: Sendable, Hashable {
    /// Its process id. It is not the caller's child, so the caller never has to reap it.
    public let pid: Int32

    /// The process `pid`.
    public init(pid: Int32) { self.pid = pid }

    /// Stops it serving a copy that must not be served (one whose check after the copy failed),
    /// at once: SIGKILL, so that it hands nothing to a clipboard manager on its way out, and the
    /// display server drops its selection with its connection. Only a process running this very
    /// executable is signalled (the id of one that left may have been reused).
    public func stop() {
        guard pid > 0, runsThisExecutable else { return }
        kill(pid, SIGKILL)
    }

    private var runsThisExecutable: Bool {
        var theirs = stat()
        var ours = stat()
        return stat("/proc/\(pid)/exe", &theirs) == 0 && stat("/proc/self/exe", &ours) == 0
            && theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino
    }
}

/// A clipboard backend: `copy` makes a payload the content of a selection, `paste` reads one.
/// `X11Clipboard` and `WaylandClipboard` (data-control) implement it, and so does the hotkey
/// daemon's in-process X11 owner; every copy and paste of the CLI goes through `any Clipboard`.
/// The contract:
///
/// - `copy` returns only once the payload is the selection's content, so a paste by anyone right
///   after it sees this copy. The content outlives the caller (a command-line caller exits at
///   once) and is served until another client replaces it, `options.lifetime` passes, or, for a
///   secret, `options.clearSecretAfter` passes while the selection still holds it.
/// - Formats follow `Payload.Kind`: text as UTF-8 text, `.json` also as `application/json`,
///   `.binary` as `application/octet-stream` (and as text only when it is valid UTF-8). A secret
///   is marked `x-kde-passwordManagerHint: secret` and `application/x-copyq-hidden: 1`, which
///   some clipboard managers honour by skipping it (docs/usage.md lists which), and is never handed to one.
/// - `.noDisplay` means the display server did not answer within `options.connectTimeout`; the
///   CLI then writes to stdout instead. Other failures use the other `ClipboardError` cases.
/// - How a backend serves the content (its processes, its hand-off to a clipboard manager) is
///   configuration of the backend value (an `OwnerPolicy`), not of these calls.
///
/// The requirements after `paste` have defaults, for a backend without the feature: `serve`
/// copies and names no process, the streaming `paste` reads and writes the whole, the resident
/// hand-off takes nothing, and a backend that is not an X server is not XWayland.
public protocol Clipboard: Sendable {
    /// Makes `payload` the content of `selection`, served as `options` say; returns once that is
    /// confirmed.
    func copy(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError)
    /// Reads the selection's content converted to `target`, within `timeout` seconds. `target` is
    /// a format name: a MIME type (`application/json`), or one of the X11 names `UTF8_STRING`
    /// (UTF-8 text, what the CLI asks for by default) and `TARGETS` (the formats the owner
    /// offers), which a backend without those names maps to its own.
    func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8]
    /// Like `copy`, and names the detached process that serves the copy, so that a copy whose
    /// check afterwards fails can be stopped (`OwnerProcess.stop`); nil when no process of its
    /// own serves it (an in-process owner).
    func serve(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError)
        -> OwnerProcess?
    /// Like `paste`, but writes the bytes to the descriptor `fd` as they arrive (a large selection
    /// piped to a file costs no memory where the backend streams). A failed write throws `.failed`.
    func paste(selection: SelectionName, target: String, timeout: Double, to fd: Int32) throws(ClipboardError)
    /// Hands `payload` to a serving process of ours that already serves `selection` (one left by
    /// an earlier copy with `OwnerPolicy.reuseOwner`) without asking the display server anything;
    /// true when one took it and confirmed the new selection, false when nothing changed (then
    /// `copy` as usual). A backend whose `copy` does this itself answers false.
    func handToResidentOwner(_ payload: Payload, to selection: SelectionName, options: CopyOptions) -> Bool
    /// Whether this backend's X server is XWayland, asked within `timeout` seconds (nil: no X
    /// server, or it did not answer): an X11 copy there reaches Wayland clients only through the
    /// compositor's bridge, which the caller then checks. Costs round trips: ask only where the
    /// answer matters.
    func isXWayland(timeout: Double) -> Bool?
    /// What this backend's X server tells about the bridge of the Wayland compositor it serves,
    /// asked within `timeout` seconds on a connection of its own (nil: no X server, it did not
    /// answer, or it is not XWayland). Costs round trips: ask only where the answer matters.
    func xwayland(timeout: Double) -> XWaylandFacts?
}

/// What an XWayland server tells about the compositor's bridge: what decides whether an X11 copy
/// made there reaches Wayland clients.
public struct XWaylandFacts: Sendable, Equatable {
    /// Whether the compositor's window manager names an X11 window as the active one
    /// (`_NET_ACTIVE_WINDOW`; wlroots sets None while a Wayland surface has the focus).
    public var x11WindowFocused: Bool
    /// The largest copy, in bytes, that the X11 backend's owner writes there as one property
    /// (larger ones go by INCR, which some bridges do not follow).
    public var largestWholeProperty: Int

    /// Facts as the X server told them.
    public init(x11WindowFocused: Bool, largestWholeProperty: Int) {
        self.x11WindowFocused = x11WindowFocused
        self.largestWholeProperty = largestWholeProperty
    }
}

extension Clipboard {
    /// Copies and names no process.
    public func serve(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError)
        -> OwnerProcess?
    {
        try copy(payload, to: selection, options: options)
        return nil
    }

    /// Reads the whole selection, then writes it to `fd`.
    public func paste(selection: SelectionName, target: String, timeout: Double, to fd: Int32)
        throws(ClipboardError)
    {
        let bytes = try paste(selection: selection, target: target, timeout: timeout)
        do {
            try FileDescriptor(fd).writeAll(bytes)
        } catch {
            throw .failed("writing the pasted bytes: \(error)")
        }
    }

    /// No resident owner: nothing is handed.
    public func handToResidentOwner(_ payload: Payload, to selection: SelectionName, options: CopyOptions) -> Bool {
        false
    }

    /// Not an X server.
    public func isXWayland(timeout: Double) -> Bool? { nil }

    /// Not an X server.
    public func xwayland(timeout: Double) -> XWaylandFacts? { nil }
}
