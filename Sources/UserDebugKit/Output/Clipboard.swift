/// Which X11 selection to use.
public enum SelectionName: String, Sendable, CaseIterable {
    /// CLIPBOARD: what Ctrl+V pastes.
    case clipboard
    /// PRIMARY: what a middle click pastes.
    case primary
}

/// How a copy should behave.
public struct CopyOptions: Sendable, Hashable {
    /// The selection to own.
    public var selection: SelectionName
    /// For secrets: clear the selection after this many seconds if we still own it (nil: never).
    public var clearSecretAfter: Double?
    /// Stop serving after this many seconds (nil: until another client takes the selection).
    public var lifetime: Double?
    /// How long to wait for the display to answer before giving up.
    public var connectTimeout: Double
    /// How long one transfer to one requestor may stall before it is dropped.
    public var transferTimeout: Double
    /// Hand the content to a running clipboard manager (SAVE_TARGETS) as soon as the owner
    /// serves, and stop serving once it is saved; with no manager, or one that does not save it,
    /// keep serving. CLIPBOARD only; never for secrets.
    public var handOffAtOnce: Bool
    /// If a serving process of ours already owns this selection on this display (one started
    /// with `reuseOwner`), hand it the content over a local socket instead of connecting and
    /// forking; it takes the selection again and confirms before the copy returns. Payloads up
    /// to 4 MiB, not with `handOffAtOnce`; anything else, or no such process, owns as usual.
    public var reuseOwner: Bool
    /// With `reuseOwner`: start a new serving process anyway (it takes the next copies).
    public var newOwner: Bool

    /// Options with the defaults of the product.
    public init(
        selection: SelectionName = .clipboard,
        clearSecretAfter: Double? = 30,
        lifetime: Double? = nil,
        connectTimeout: Double = 1,
        transferTimeout: Double = 10,
        handOffAtOnce: Bool = false,
        reuseOwner: Bool = false,
        newOwner: Bool = false
    ) {
        self.selection = selection
        self.clearSecretAfter = clearSecretAfter
        self.lifetime = lifetime
        self.connectTimeout = connectTimeout
        self.transferTimeout = transferTimeout
        self.handOffAtOnce = handOffAtOnce
        self.reuseOwner = reuseOwner
        self.newOwner = newOwner
    }
}

/// Why the clipboard could not be used.
public enum ClipboardError: Error, Sendable, Equatable {
    /// No display to talk to: DISPLAY unset, unserved, garbage, or silent past the deadline.
    case noDisplay(reason: String)
    /// The selection could not be taken or ownership was not confirmed.
    case ownershipNotConfirmed
    /// Reading the selection did not finish in time.
    case timedOut(String)
    /// The owner refused the requested target, or there is no owner.
    case noContent(String)
    /// The payload cannot be offered (e.g. not representable in the requested target).
    case unsupported(String)
    /// Any other failure (fork, X protocol error), with a message.
    case failed(String)
}

/// An X11 selection: written by `copy`, read by `paste`. Implemented by `X11Clipboard`.
public protocol Clipboard: Sendable {
    /// Owns the selection with `payload` and serves it from a background process; returns once
    /// ownership is confirmed.
    func copy(_ payload: Payload, options: CopyOptions) throws(ClipboardError)
    /// Reads the selection's content converted to `target` (e.g. `UTF8_STRING`), within `timeout` seconds.
    func paste(selection: SelectionName, target: String, timeout: Double) throws(ClipboardError) -> [UInt8]
}
