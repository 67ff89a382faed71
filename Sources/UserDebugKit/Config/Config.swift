/// The user's settings from `config.json` (`$XDG_CONFIG_HOME/userdebug/config.json`), every
/// value defaulted so that no file at all is a valid configuration.
///
/// The file is JSON with `//` and `#` line comments. Unknown keys are errors, so a typo
/// (`maxResponse`) is reported instead of silently doing nothing.
public struct Config: Sendable, Equatable {
    /// How much of the response log is kept; the oldest entries go first.
    public struct Retention: Sendable, Equatable {
        /// Most responses kept; nil keeps every one.
        public var maxResponses: Int?
        /// Most body bytes kept in total; nil keeps every byte.
        public var maxBytes: Int?

        /// Retention limits.
        public init(maxResponses: Int? = 10_000, maxBytes: Int? = 268_435_456) {
            self.maxResponses = maxResponses
            self.maxBytes = maxBytes
        }
    }

    /// Names redacted on top of `RedactionPolicy.default` (which cannot be reduced).
    public struct Redaction: Sendable, Equatable {
        /// More header names, matched case-insensitively.
        public var headers: [String]
        /// More JSON/form field names, matched as whole names (see `RedactionPolicy`).
        public var fields: [String]
        /// More substrings that make a field name secret.
        public var fieldPatterns: [String]
        /// More URL query parameter names.
        public var queryParameters: [String]

        /// Extra redaction names.
        public init(
            headers: [String] = [], fields: [String] = [], fieldPatterns: [String] = [], queryParameters: [String] = []
        ) {
            self.headers = headers
            self.fields = fields
            self.fieldPatterns = fieldPatterns
            self.queryParameters = queryParameters
        }
    }

    /// Where output goes when the command line does not say.
    public struct Output: Sendable, Equatable {
        /// A default destination, as `--to` spells it.
        public enum Target: String, Sendable, Equatable, CaseIterable {
            /// stdout when it is a pipe or a file, else the clipboard when a display answers.
            case auto
            /// Always standard output.
            case stdout
            /// The CLIPBOARD selection (Ctrl+V).
            case clipboard
            /// The PRIMARY selection (middle click).
            case primary
            /// CLIPBOARD and PRIMARY.
            case both
        }

        /// Which X selection `auto` uses when it picks the clipboard.
        public enum Selection: String, Sendable, Equatable, CaseIterable {
            /// CLIPBOARD (Ctrl+V).
            case clipboard
            /// PRIMARY (middle click).
            case primary
            /// Both selections.
            case both
        }

        /// The destination without `--to`.
        public var defaultTarget: Target
        /// The selection `auto` writes.
        public var selection: Selection

        /// Output defaults.
        public init(defaultTarget: Target = .auto, selection: Selection = .clipboard) {
            self.defaultTarget = defaultTarget
            self.selection = selection
        }
    }

    /// How the clipboard owner behaves.
    public struct Clipboard: Sendable, Equatable {
        /// Seconds after which a secret is cleared (if we still own the selection); nil never clears.
        public var secretClearSeconds: Double?
        /// Seconds the owner keeps serving ordinary content; nil serves until replaced.
        public var lifetimeSeconds: Double?
        /// Seconds one reader may take over one transfer before it is abandoned.
        public var transferTimeoutSeconds: Double
        /// Seconds to wait for the X server to answer before falling back to stdout.
        public var connectTimeoutSeconds: Double
        /// With a clipboard manager running, hand the content to it at once and stop serving.
        public var handOffAtOnce: Bool
        /// Hand new content to the owner process already serving the selection (no new
        /// connection, no fork) instead of starting another one.
        public var reuseOwner: Bool

        /// Clipboard timings.
        public init(
            secretClearSeconds: Double? = 30,
            lifetimeSeconds: Double? = nil,
            transferTimeoutSeconds: Double = 10,
            connectTimeoutSeconds: Double = 1,
            handOffAtOnce: Bool = false,
            reuseOwner: Bool = true
        ) {
            self.secretClearSeconds = secretClearSeconds
            self.lifetimeSeconds = lifetimeSeconds
            self.transferTimeoutSeconds = transferTimeoutSeconds
            self.connectTimeoutSeconds = connectTimeoutSeconds
            self.handOffAtOnce = handOffAtOnce
            self.reuseOwner = reuseOwner
        }
    }

    /// The deferred "From the backend" menu section: what it asks and how long it may take.
    public struct Backend: Sendable, Equatable {
        /// The path appended to the session's base URL for the GET (e.g. `/me`); nil leaves the
        /// section out, so no menu calls the network unless asked to.
        public var path: String?
        /// Seconds the request may take before the section shows "timed out".
        public var timeoutSeconds: Double
        /// The curl program that makes the request (a name looked up in PATH, or a path).
        public var curl: String

        /// Backend settings.
        public init(path: String? = nil, timeoutSeconds: Double = 5, curl: String = "curl") {
            self.path = path
            self.timeoutSeconds = timeoutSeconds
            self.curl = curl
        }
    }

    /// Response log limits.
    public var retention: Retention
    /// Extra redaction names.
    public var redaction: Redaction
    /// Output defaults.
    public var output: Output
    /// Clipboard timings.
    public var clipboard: Clipboard
    /// Actions defined in the config file, in menu order.
    public var actions: [ConfigAction]
    /// The "From the backend" section.
    public var backend: Backend

    /// A configuration; every part defaults.
    public init(
        retention: Retention = Retention(),
        redaction: Redaction = Redaction(),
        output: Output = Output(),
        clipboard: Clipboard = Clipboard(),
        actions: [ConfigAction] = [],
        backend: Backend = Backend()
    ) {
        self.retention = retention
        self.redaction = redaction
        self.output = output
        self.clipboard = clipboard
        self.actions = actions
        self.backend = backend
    }

    /// What applies without a config file.
    public static let defaults = Config()

    /// The default policy plus this file's additions.
    public var redactionPolicy: RedactionPolicy {
        RedactionPolicy.default.adding(
            headerNames: redaction.headers,
            fieldNames: redaction.fields,
            fieldPatterns: redaction.fieldPatterns,
            queryParameters: redaction.queryParameters
        )
    }
}
