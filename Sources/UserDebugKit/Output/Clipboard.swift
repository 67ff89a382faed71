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

/// A clipboard backend: `copy` makes a payload the content of a selection, `paste` reads one.
/// `X11Clipboard` implements it; a second backend (Wayland data-control) implements the same
/// contract, which is:
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
///   configuration of the backend value, not of these calls.
public protocol Clipboard: Sendable {
    /// Makes `payload` the content of `selection`, served as `options` say; returns once that is
    /// confirmed.
    func copy(_ payload: Payload, to selection: SelectionName, options: CopyOptions) throws(ClipboardError)
    /// Reads the selection's content converted to `target`, within `timeout` seconds. `target` is
    /// a format name: a MIME type (`application/json`), or one of the X11 names `UTF8_STRING`
    /// (UTF-8 text, what the CLI asks for by default) and `TARGETS` (the formats the owner
    /// offers), which a backend without those names maps to its own.
    func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8]
}
