#if canImport(Glibc)
    import Glibc
#endif

/// A desktop notification for the freedesktop notification service
/// (`org.freedesktop.Notifications.Notify` on the session bus), sent by a minimal D-Bus client
/// of our own: no libdbus, so the static `userdebug` binary links nothing new, and a process
/// without a session bus pays one `getenv` and one `stat`.
package struct DesktopNotification: Sendable, Equatable {
    /// The urgency hint: critical notifications stay until dismissed on most servers.
    package enum Urgency: UInt8, Sendable {
        /// Background information.
        case low = 0
        /// The default.
        case normal = 1
        /// A failure the user must see.
        case critical = 2
    }

    /// The first line, e.g. "Copied user id usr_8f14e45f".
    package var summary: String
    /// More text (the server may show it smaller); empty for none.
    package var body: String
    /// How urgent it is.
    package var urgency: Urgency
    /// An icon name from the desktop's theme, e.g. `edit-copy` or `dialog-error`.
    package var icon: String
    /// Milliseconds before it expires; -1 lets the server decide.
    package var expireTimeout: Int32

    /// A notification; `appName` is always "userdebug".
    package init(
        summary: String, body: String = "", urgency: Urgency = .normal, icon: String = "", expireTimeout: Int32 = -1
    ) {
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.icon = icon
        self.expireTimeout = expireTimeout
    }

    /// The `Notify` call: signature `susssasa{sv}i`.
    func methodCall() -> DBusMethodCall {
        var body = DBusWriter()
        body.string("userdebug")  // app_name
        body.uint32(0)  // replaces_id
        body.string(icon)
        body.string(summary)
        body.string(self.body)
        body.array(elementAlignment: 4) { _ in }  // actions: none
        body.array(elementAlignment: 8) { hints in
            hints.align(8)
            hints.string("urgency")
            hints.variant(signature: "y") { $0.byte(urgency.rawValue) }
        }
        body.int32(expireTimeout)
        return DBusMethodCall(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", member: "Notify", signature: "susssasa{sv}i",
            body: body.bytes)
    }
}

/// Sends notifications to the session bus's notification service.
package enum NotificationService {
    /// The longest a notification may hold up its caller, connection to reply.
    package static let deadline = 0.2

    /// The session bus address: `$DBUS_SESSION_BUS_ADDRESS`, else `unix:path=$XDG_RUNTIME_DIR/bus`
    /// when that socket exists, else nil (no bus: nothing to try).
    package static func busAddress(_ variable: (String) -> String?) -> String? {
        if let address = variable("DBUS_SESSION_BUS_ADDRESS"), !address.isEmpty { return address }
        guard let runtime = variable("XDG_RUNTIME_DIR"), !runtime.isEmpty else { return nil }
        let path = runtime + "/bus"
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFSOCK else { return nil }
        return "unix:path=" + path
    }

    /// Sends `notification` to the bus at `address` (see `busAddress`) and waits for the
    /// service's answer, all within `deadline` seconds.
    /// - Throws: `DBusFailure` saying why it was not shown.
    package static func send(_ notification: DesktopNotification, address: String, deadline: Double = deadline)
        throws(DBusFailure)
    {
        var connection = try DBusConnection(address: address, deadline: monotonicNow() + deadline)
        try connection.authenticate()
        try connection.call(notification.methodCall())
    }

    /// Asks the notification service on the bus at `address` for its server information (the
    /// spec's `GetServerInformation`, which shows nothing), within `deadline` seconds: whether a
    /// notification would be shown, for `doctor`.
    /// - Throws: `DBusFailure` saying why not (no service on the bus: `errorReply`).
    package static func ping(address: String, deadline: Double = deadline) throws(DBusFailure) {
        var connection = try DBusConnection(address: address, deadline: monotonicNow() + deadline)
        try connection.authenticate()
        try connection.call(
            DBusMethodCall(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications", member: "GetServerInformation"))
    }
}
