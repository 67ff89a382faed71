import DesktopNotify
import UserDebugKit
import X11Clipboard

#if canImport(Glibc)
    import Glibc
#endif

/// The hotkeys' payloads, made ahead of the presses (issue 26): a press whose payload is prepared
/// and still fresh costs one poll of the store's watch, one `lstat` and `SetSelectionOwner`;
/// while the watch has seen a change not yet looked at, the store's fingerprint instead.
///
/// - Made when the daemon starts, when its config is reloaded, and when the store's files change
///   (`StoreWatch`: a `session use`, `session set`, a recorded response, the current-session copy
///   written), once the files have been left alone for `CurrentSessionCache.settleSeconds` (a
///   fingerprint taken sooner could match a later state in the same file-time tick); and after a
///   press that could not be served from here.
/// - Served only while the store's fingerprint (`CurrentSessionCache.fingerprint`, taken before
///   the payload was made and checked unchanged after) is the fingerprint at the press: a
///   `session use` just before a press changes it, and that press makes its payload as every
///   press did before (reading the store), so it copies what the store holds now. The press
///   skips computing the fingerprint when it cannot have changed: the store's inotify watch has
///   no event queued (the kernel queues it before the write returns), none was drained since the
///   entry was last found fresh (`generation`), and the database is the same file (`FileIdentity`:
///   a directory above renamed makes no event in the watched one).
/// - Only the built-in actions' payloads are prepared (`copy-id`, `copy-name`, `dump-json`,
///   `print-response…`): they depend on the store and the config alone. The config's own actions
///   and the backend section's (which may run commands or fetch) are made at the press.
/// - Secrets are never prepared: `copy-token`, any action or payload marked secret, and any
///   payload that holds the session's token or a JWT, or a secret member under `--reveal`
///   (`dump-json --reveal` with an `apiKey` field, marked secret when it is made) are made at the press and
///   held only as long as the clipboard serves them (cleared after `clipboard.clearSecretAfter`).
///   A prepared secret would sit in the daemon's memory for as long as it runs, for a key pressed
///   rarely, and be one more copy a memory dump or a core file shows; making it at the press
///   costs that press the store read, about what every press cost before.
/// - A payload larger than `maxBytes` (a big response body) is made at the press: keeping it
///   would double the daemon's memory for a key that may never be pressed.
/// - Only where the in-process owner serves CLIPBOARD and no Wayland compositor is involved (no
///   `WAYLAND_DISPLAY`, no socket of ours): there a copy needs the bridge checks of
///   `ClipboardRoute`, and every press goes the whole way.
///
/// The trust check (`SessionStore.checkTrust`) runs when a payload is made, not at the press:
/// the content served was read from a store that passed it, and any other file put in place, or
/// any write to it, changes the fingerprint, so such a press reads the store and is checked.
final class PreparedPayloads {
    struct Entry {
        /// The bytes to serve.
        let payload: Payload
        /// How the clipboard serves them: the config's `clipboard` section and owner policy.
        let options: CopyOptions
        let policy: OwnerPolicy
        /// The store's fingerprint the payload was made under.
        let stamp: String
        /// `PreparedPayloads.generation` when `stamp` was last found to be the store's, and the
        /// database file (device, inode) then: while both still hold and the store's watch is
        /// quiet, nothing in the store's directory changed since, and the press needs no
        /// fingerprint.
        var generation: Int
        let file: FileIdentity?
        /// The success notification, made when the payload was (nil: notifications are off).
        let notification: DesktopNotification?
        /// Who sends it (made without the token: the text is made already).
        let notifier: Notifier
    }

    /// The largest payload kept.
    static let maxBytes = 1 << 20

    /// By action id.
    private(set) var entries: [String: Entry] = [:]
    /// How many times the store's watch reported a change of its files (`StoreWatch.drain`), or was
    /// set up again: an entry checked under an older count must be checked by its fingerprint.
    var generation = 0

    /// When the next preparation is due (`monotonicSeconds`); nil: none is.
    private(set) var due: Double?

    /// Asks for a preparation at `time` at the latest.
    func schedule(at time: Double) { due = min(due ?? time, time) }

    /// Forgets every entry (the config changed, or the store is gone).
    func clear() { entries = [:] }

    func set(_ entry: Entry?, for id: String) { entries[id] = entry }

    /// The entry of `id` was found fresh again by its fingerprint under `generation`.
    func confirm(_ id: String, generation: Int) { entries[id]?.generation = generation }

    func taken() { due = nil }
}

extension Daemon {
    /// The built-in ids whose payloads may be prepared (secrets are refused when made).
    static func preparable(_ action: String) -> Bool {
        action != "copy-token" && ActionRun.builtinIDs.contains(action)
    }

    /// Makes every grabbed binding's payload that is not fresh; when the store's files are busy
    /// or were changed too recently, tries again later.
    func prepareDue(now: Double) {
        guard let due = prepared.due, now >= due else { return }
        prepared.taken()
        let path = invocation.paths.databasePath
        let generation = prepared.generation
        guard let before = CurrentSessionCache.fingerprint(of: path) else {
            // No store (presses fail as they did, and the next one schedules), or a commit under way.
            prepared.clear()
            if access(path, F_OK) == 0 { prepared.schedule(at: now + CurrentSessionCache.settleSeconds) }
            return
        }
        guard before.settled else { return prepared.schedule(at: now + CurrentSessionCache.settleSeconds) }
        for entry in active where entry.grab != nil && Self.preparable(entry.binding.action) {
            let id = entry.binding.action
            if prepared.entries[id]?.stamp == before.text {
                prepared.confirm(id, generation: generation)
                if tracing { Daemon.log("trace: \(id) made ahead is still fresh") }
                continue
            }
            let made = try? makePayload(id, stamp: before.text, generation: generation)
            prepared.set(made, for: id)
            if tracing, let made { Daemon.log("trace: made \(id) ahead (\(made.payload.byteCount) bytes)") }
        }
        // A commit while they were made: what was made may be older than the files; made again.
        if CurrentSessionCache.fingerprint(of: path)?.text != before.text {
            prepared.clear()
            prepared.schedule(at: now + CurrentSessionCache.settleSeconds)
        }
    }

    /// The payload of `id` as a press would copy it now; nil where it must be made at the press.
    private func makePayload(_ id: String, stamp: String, generation: Int) throws -> PreparedPayloads.Entry? {
        guard let host, host.selection == .clipboard else { return nil }
        let run = try pressInvocation()
        let endpoint = run.waylandEndpoint
        guard endpoint.display == nil, endpoint.discovery?.sawSocket != true, try run.backendChoice().route == .x11
        else {
            return nil
        }
        let session = try MenuSession.request(
            providers: [UserActionProvider(), ResponseLogProvider()], context: { try MenuSources.context(run) },
            observers: [])
        try session.display()
        guard let action = session.elements.action(id: id), !action.isSecret else { return nil }
        var made: Payload?
        try session.perform(id) { made = $0 }
        let token = session.context.session.token
        guard let payload = made, !payload.isSecret, payload.byteCount <= PreparedPayloads.maxBytes else { return nil }
        // Settled already (`SecretPayloads.settle` marks a revealed secret); the token or a JWT
        // in it is checked once more here, as the notification's text is.
        if SecretPayloads.looksSecret(payload.bytes, token: token) { return nil }
        let options = try run.config().clipboard
        let notifier = Notifier.of(run, origin: .key, token: nil)
        let delivery = Delivery(
            actionID: id, title: action.title, payload: payload, selections: ["CLIPBOARD"],
            clearSecretAfter: options.clearSecretAfter)
        let notification =
            notifier.isActive
            ? NotificationText.notification(
                for: .delivered(delivery), token: token, failureSeconds: notifier.failureSeconds) : nil
        return PreparedPayloads.Entry(
            payload: payload, options: options, policy: try OutputRouter(invocation: run).ownerPolicy(),
            stamp: stamp, generation: generation, file: FileIdentity(invocation.paths.databasePath),
            notification: notification, notifier: notifier)
    }

    /// Whether `entry` is what a press would make now: nothing changed in the store's directory
    /// since its fingerprint was checked (the watch is quiet, no change was drained since, and
    /// the database is the same file: a directory above renamed is no inotify event), else its
    /// fingerprint is the store's now.
    private func isFresh(_ entry: PreparedPayloads.Entry) -> Bool {
        let path = invocation.paths.databasePath
        if let storeWatch, entry.generation == prepared.generation, storeWatch.quiet(), let file = entry.file,
            FileIdentity(path) == file
        {
            return true
        }
        return CurrentSessionCache.fingerprint(of: path)?.text == entry.stamp
    }

    /// Serves `binding`'s prepared payload when it is still fresh; false when the press must be
    /// made the whole way (nothing prepared, the store changed since, or the copy failed: the
    /// whole way then reports it).
    func servePrepared(_ binding: HotkeyBinding) -> Bool {
        guard let host, let entry = prepared.entries[binding.action], isFresh(entry) else { return false }
        do throws(ClipboardError) {
            try host.copy(entry.payload, options: entry.options, policy: entry.policy)
        } catch {
            return false
        }
        if tracing { Daemon.log("trace: \(binding.written) pressed → \(binding.action) (prepared)") }
        invocation.diagnostics.notice("copied \(entry.payload.byteCount) bytes to CLIPBOARD")
        if let notification = entry.notification { entry.notifier.notify(made: notification) }
        return true
    }
}

/// A file's device and inode, by `lstat` (not following a link): which file a path names.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    init?(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
