/// The user's settings from `config.json` (`$XDG_CONFIG_HOME/userdebug/config.json`), every
/// value defaulted so that no file at all is a valid configuration.
///
/// The file is JSON with `//` and `#` line comments. Unknown keys are errors, so a typo
/// (`maxResponse`) is reported instead of silently doing nothing.
public struct Config: Sendable, Equatable {
    /// Names redacted on top of `RedactionPolicy.default` (which cannot be reduced).
    public struct Redaction: Sendable, Equatable {
        /// More header names, matched case-insensitively.
        public var headers: [String]
        /// More JSON/form field names, matched as whole names (see `RedactionPolicy`).
        public var fields: [String]
        /// More substrings that make a field name secret.
        public var fieldPatterns: [String]
        /// More URL query parameter (and form field) names, matched case-insensitively.
        public var queryParameters: [String]

        /// Additions to the default policy; the empty lists of the defaults add nothing.
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
        /// The destination without `--to`.
        public var defaultTarget: OutputTarget
        /// The selections `auto` and `both` write.
        public var selection: OutputSelection

        /// Output defaults: `auto`, writing CLIPBOARD.
        public init(defaultTarget: OutputTarget = .auto, selection: OutputSelection = .clipboard) {
            self.defaultTarget = defaultTarget
            self.selection = selection
        }
    }

    /// The `clipboard` section's choices about the process that serves a copy, exactly as the
    /// file makes them, for the `OwnerPolicy` of either backend, which holds their defaults: nil
    /// means the file is silent and that default applies.
    public struct ClipboardOwner: Sendable, Equatable {
        /// `clipboard.handOffAtOnce`: with a clipboard manager running, hand it the content at
        /// once and stop serving.
        public var handOffAtOnce: Bool?
        /// `clipboard.reuseOwner`: give a copy to the process of ours already serving the
        /// selection instead of starting another one.
        public var reuseOwner: Bool?

        /// The file's choices; nil for each one it leaves out.
        public init(handOffAtOnce: Bool? = nil, reuseOwner: Bool? = nil) {
            self.handOffAtOnce = handOffAtOnce
            self.reuseOwner = reuseOwner
        }
    }

    /// Response log limits (`retention.maxResponses`, `retention.maxBytes`).
    public var retention: RetentionPolicy
    /// The `redaction` section: names added to `RedactionPolicy.default` (see `redactionPolicy`).
    public var redaction: Redaction
    /// The `output` section: where results go when the command line does not say.
    public var output: Output
    /// How copies behave: the timings of the `clipboard` section.
    public var clipboard: CopyOptions
    /// The owner-process choices of the `clipboard` section, for the backend to apply.
    public var clipboardOwner: ClipboardOwner
    /// `clipboard.backend`: which clipboard backend copies and pastes use (`auto` by default).
    public var clipboardBackend: ClipboardBackendPreference = .auto
    /// Actions defined in the config file, in menu order.
    public var actions: [ConfigAction]
    /// The `backend` section: what the "From the backend" menu section asks; off while its
    /// `path` is nil.
    public var backend: BackendProvider.Settings
    /// `backend.sections`: more deferred sections, each its own request (`backend.NAME`), shown
    /// after the "From the backend" one and resolved independently of it.
    public var backendSections: [BackendProvider.Settings] = []
    /// `notifications`: when an action's outcome is shown as a desktop notification.
    public var notifications: NotificationMode = .auto
    /// `notifications.failureTimeoutSeconds`: how long a failure's (critical) notification
    /// stays; nil: until it is dismissed. Notification daemons keep critical ones forever by
    /// default (dunst), so a morning of mistakes would stack up.
    public var failureNotificationSeconds: Double? = 30
    /// The `menu` section: the launcher of `menu --dmenu`.
    public var menu: Menu = Menu()
    /// The `hotkeys` section: the keys `userdebug daemon` grabs and what each runs (none by default).
    public var hotkeys: [HotkeyBinding] = []
    /// The `menu.popup` section: the popup menu's theme, font and colours.
    public var popup = Popup()
    /// The `login` section: which responses are logins that record the session (none by default).
    public var login: [LoginRule] = []

    /// A configuration; every part defaults.
    public init(
        retention: RetentionPolicy = RetentionPolicy(),
        redaction: Redaction = Redaction(),
        output: Output = Output(),
        clipboard: CopyOptions = CopyOptions(),
        clipboardOwner: ClipboardOwner = ClipboardOwner(),
        actions: [ConfigAction] = [],
        backend: BackendProvider.Settings = BackendProvider.Settings()
    ) {
        self.retention = retention
        self.redaction = redaction
        self.output = output
        self.clipboard = clipboard
        self.clipboardOwner = clipboardOwner
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
