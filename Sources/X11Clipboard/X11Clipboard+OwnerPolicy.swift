extension X11Clipboard {
    /// How this backend serves copies: the detached owner process, its reuse, its hand-off to a
    /// clipboard manager. The defaults below are the product's and are written only here; the
    /// CLI overrides them from `clipboard.handOffAtOnce`, `clipboard.reuseOwner`, `--hand-off`
    /// and `--new-owner`.
    public struct OwnerPolicy: Sendable, Hashable {
        /// Hand the content to a running clipboard manager (SAVE_TARGETS) as soon as the owner
        /// serves, and stop serving once it is saved; with no manager, or one that does not save
        /// it, keep serving. CLIPBOARD only; never for secrets.
        public var handOffAtOnce: Bool
        /// How long a leaving owner waits for a clipboard manager to save the content.
        public var handOffTimeout: Double
        /// If a serving process of ours already owns the selection on this display (one started
        /// with `reuseOwner`), hand it the content over a local socket instead of connecting and
        /// forking; it takes the selection again and confirms before the copy returns. Payloads
        /// up to 4 MiB, not with `handOffAtOnce`; anything else, or no such process, owns as
        /// usual, and the new owner listens for the next copies.
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
}
