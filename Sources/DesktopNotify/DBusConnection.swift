#if canImport(Glibc)
    import Glibc
#endif

/// Why a message could not be delivered to the bus.
package enum DBusFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No session bus address and no `$XDG_RUNTIME_DIR/bus`: nothing was tried.
    case noBus
    /// The socket could not be reached; the reason is strerror's.
    case unreachable(String)
    /// The bus refused the EXTERNAL authentication.
    case authenticationRejected(String)
    /// Nothing came back within the deadline.
    case timedOut(String)
    /// The bus, or the service, answered with an error.
    case errorReply(String)
    /// The peer broke the wire format or the protocol.
    case protocolError(String)
    /// The socket is served by another user (neither us nor root): nothing was sent to it.
    case foreignPeer(socket: String, uid: UInt32)

    /// A line for stderr.
    package var description: String {
        switch self {
        case .noBus: return "no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)"
        case .unreachable(let reason): return "the session bus is unreachable: \(reason)"
        case .authenticationRejected(let line): return "the session bus refused authentication: \(line)"
        case .timedOut(let what): return "the session bus did not answer in time (\(what))"
        case .errorReply(let name): return Self.words(forErrorName: name)
        case .protocolError(let what): return "the session bus broke the protocol: \(what)"
        case .foreignPeer(let socket, let uid):
            return
                "refusing the session bus at \(socket): it is served by uid \(uid), not by you (uid \(geteuid())) or root; fix: set DBUS_SESSION_BUS_ADDRESS to your own bus, or XDG_RUNTIME_DIR to a directory of yours with mode 0700"
        }
    }
}

extension DBusFailure {
    /// What an error reply means for a notification, in words: a D-Bus error name such as
    /// `org.freedesktop.DBus.Error.ServiceUnknown` tells a user nothing. An unknown name is
    /// kept, in parentheses, after words that say who refused.
    static func words(forErrorName name: String) -> String {
        let prefix = "org.freedesktop.DBus.Error."
        let member = name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : ""
        if member.hasPrefix("Spawn.") { return "the session bus could not start the notification service" }
        switch member {
        case "ServiceUnknown", "NameHasNoOwner":
            return "no notification service is running on the session bus "
                + "(start one: dunst, mako, or the desktop's own)"
        case "NoReply", "Timeout", "TimedOut":
            return "the notification service did not answer in time"
        case "AccessDenied", "AuthFailed":
            return "the session bus did not let us reach the notification service (access denied)"
        case "UnknownMethod", "UnknownInterface", "UnknownObject", "UnknownProperty":
            return "the program that owns the notification service does not implement notifications"
        case "InvalidArgs", "InvalidSignature":
            return "the notification service refused the notification as malformed"
        case "LimitsExceeded", "NoMemory":
            return "the session bus is out of resources"
        default:
            return "the notification service refused it (\(name))"
        }
    }
}

/// One connection to the session bus, made for one method call and closed after it: the
/// socket, SASL `AUTH EXTERNAL` with our uid, `BEGIN`, `Hello` (the bus requires it first),
/// then the call, all within one deadline. A socket served by another user (`SO_PEERCRED`:
/// neither us nor root) is left before anything is sent: `$XDG_RUNTIME_DIR/bus` in a shared
/// directory (`XDG_RUNTIME_DIR=/tmp`) may be anyone's.
struct DBusConnection: ~Copyable {
    private let socket: Int32
    private let deadline: Double
    private var received: [UInt8] = []
    private var nextSerial: UInt32 = 1

    /// Connects to `address` (the first usable `unix:path=` or `unix:abstract=` entry); every
    /// later step ends by `deadline` (CLOCK_MONOTONIC seconds).
    init(address: String, deadline: Double) throws(DBusFailure) {
        let candidates = DBusAddress.socketAddresses(address)
        guard !candidates.isEmpty else { throw .unreachable("no unix: entry in '\(address)'") }
        var failure = DBusFailure.unreachable("no address")
        var connected: Int32 = -1
        for candidate in candidates {
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw .unreachable(String(cString: strerror(errno))) }
            if candidate.connect(fd) {
                if let peer = Self.foreignPeer(fd) {
                    failure = .foreignPeer(socket: candidate.description, uid: peer)
                } else {
                    connected = fd
                    break
                }
            } else {
                failure = .unreachable(String(cString: strerror(errno)))
            }
            close(fd)
        }
        guard connected >= 0 else { throw failure }
        self.socket = connected
        self.deadline = deadline
    }

    deinit {
        close(socket)
    }

    /// The uid of the process serving connected socket `fd` when it is neither ours nor root's
    /// (or cannot be told), else nil.
    private static func foreignPeer(_ fd: Int32) -> UInt32? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Linux): Glibc's module shows it only
        // under _GNU_SOURCE, so its three 32-bit fields are read as such.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, length == 12 else {
            return UInt32.max
        }
        return credentials.uid == geteuid() || credentials.uid == 0 ? nil : credentials.uid
    }

    /// SASL: a nul byte, `AUTH EXTERNAL` with our uid in hex, and the bus's `OK`.
    mutating func authenticate() throws(DBusFailure) {
        let uid = String(getuid())
        let hex = uid.utf8.map { byte in String(byte, radix: 16) }.joined()
        try send([0] + Array("AUTH EXTERNAL \(hex)\r\n".utf8))
        let line = try readLine()
        guard line.hasPrefix("OK ") else {
            throw .authenticationRejected(String(line.prefix(80)))
        }
    }

    /// Sends `BEGIN`, `Hello` and `call` in one write and waits for the answer to `call`
    /// (skipping Hello's reply and the NameAcquired signal).
    mutating func call(_ call: DBusMethodCall) throws(DBusFailure) {
        let hello = DBusMethodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "Hello")
        let helloSerial = takeSerial()
        let callSerial = takeSerial()
        try send(Array("BEGIN\r\n".utf8) + hello.bytes(serial: helloSerial) + call.bytes(serial: callSerial))
        while true {
            let header = try readMessage()
            guard header.replySerial == callSerial || header.replySerial == helloSerial else { continue }
            if header.type == 3 { throw .errorReply(header.errorName ?? "an error") }
            if header.replySerial == callSerial { return }
        }
    }

    private mutating func takeSerial() -> UInt32 {
        defer { nextSerial += 1 }
        return nextSerial
    }

    private func send(_ bytes: [UInt8]) throws(DBusFailure) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreachable(String(cString: strerror(errno)))
            }
            sent += count
        }
    }

    /// Reads more bytes, waiting no later than the deadline.
    private mutating func fill(_ what: String) throws(DBusFailure) {
        while true {
            let left = deadline - monotonicNow()
            guard left > 0 else { throw .timedOut(what) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(left * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw .unreachable(count == 0 ? "the bus closed the connection" : String(cString: strerror(errno)))
            }
            received += chunk[0..<count]
            return
        }
    }

    private mutating func readLine() throws(DBusFailure) -> String {
        while true {
            if let end = received.firstIndex(of: 0x0A) {
                let line = String(decoding: received[..<end], as: UTF8.self)
                received.removeSubrange(...end)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            guard received.count < 4096 else { throw .protocolError("authentication line too long") }
            try fill("authentication")
        }
    }

    private mutating func readMessage() throws(DBusFailure) -> DBusHeader {
        while true {
            if let header = try DBusHeader.parse(received) {
                received.removeSubrange(..<header.totalLength)
                return header
            }
            try fill("reply")
        }
    }
}

/// The parts of a D-Bus server address a client can connect to.
enum DBusAddress {
    /// A Unix socket to try: a path, or a name in the abstract namespace.
    struct Socket: Equatable {
        var path: [UInt8]
        var abstract: Bool

        /// The path, or `@name` for an abstract one.
        var description: String { (abstract ? "@" : "") + String(decoding: path, as: UTF8.self) }

        /// Connects `fd`; false with errno set on failure.
        func connect(_ fd: Int32) -> Bool {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let capacity = MemoryLayout.size(ofValue: address.sun_path)
            let bytes = (abstract ? [0] : []) + path
            guard bytes.count < capacity else {
                errno = ENAMETOOLONG
                return false
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in bytes.enumerated() { raw[index] = byte }
            }
            // An abstract name's length is exact (no terminating nul); a path's includes it.
            let length = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(length)) == 0
                }
            }
        }
    }

    /// Every `unix:path=` and `unix:abstract=` entry of `address`, in order (entries are
    /// separated by `;`, keys by `,`, values percent-escaped).
    static func socketAddresses(_ address: String) -> [Socket] {
        var found: [Socket] = []
        for entry in address.split(separator: ";") {
            guard entry.hasPrefix("unix:") else { continue }
            for pair in entry.dropFirst(5).split(separator: ",") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let key = pair[..<equals]
                let value = unescape(pair[pair.index(after: equals)...])
                if key == "path" { found.append(Socket(path: value, abstract: false)) }
                if key == "abstract" { found.append(Socket(path: value, abstract: true)) }
            }
        }
        return found
    }

    private static func unescape(_ text: Substring) -> [UInt8] {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%"), bytes.count >= 2,
                let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
            {
                out.append(value)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(byte)
            }
        }
        return out
    }
}

/// CLOCK_MONOTONIC in seconds.
func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
