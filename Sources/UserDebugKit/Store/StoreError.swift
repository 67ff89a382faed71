/// Why the session store could not do what was asked. Every case that concerns a file names it,
/// and `description` is one line that says what to do, so the CLI prints it as it is and maps
/// the case (not the text) to an exit status.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A read-only open of a store that does not exist yet (reading never creates one).
    case missing(path: String)
    /// The file exists but is not an SQLite database (e.g. a text file at the store's path).
    case notADatabase(path: String)
    /// SQLite reports the file as malformed (damaged pages, a truncated file, bad stored values).
    case corrupt(path: String, detail: String)
    /// The store's path names a directory.
    case isDirectory(path: String)
    /// A write was attempted on a read-only file, directory, file system or read-only store.
    case readOnly(path: String)
    /// The operating system refused access (EACCES / EPERM on open).
    case permissionDenied(path: String)
    /// Another writer still held the lock after the busy timeout and the retries.
    case busy(path: String)
    /// No session has this name.
    case noSuchSession(String)
    /// A session was needed but none is current.
    case noCurrentSession
    /// An operating-system I/O error, e.g. a full disk.
    case io(path: String, detail: String)
    /// An SQLite error with no better category; carries the result code, the message and the SQL.
    case sqlite(path: String, code: Int32, message: String, sql: String?)
    /// A valid SQLite database that this build cannot use: made by another program, or by a newer
    /// userdebug with a schema version this one does not know.
    case incompatible(path: String, detail: String)
    /// The store file, its directory or a directory above them may be changed by someone else
    /// (another owner, or writable by group or others): refused before anything is read from or
    /// written to it. `problem` names the path at fault and the fix.
    case untrusted(path: String, problem: String)
    /// A response that may not be recorded (its URL is not an absolute http(s) URL); `index` is
    /// its position in the batch, which was refused whole.
    case invalidResponse(index: Int, detail: String)
    /// One response is larger than `RetentionPolicy.maxBytes` by itself, so keeping it would
    /// break the cap whatever older responses were dropped; nothing of its batch is recorded.
    /// `request` is its method and URL without query or credentials.
    case recordTooLarge(request: String, bytes: Int64, limit: Int)

    /// One line that names the file and says what to do.
    public var description: String {
        switch self {
        case .missing(let path):
            return FirstHourState.noStore(path: path, sample: nil).message
        case .notADatabase(let path):
            return
                "\(path) is not an SQLite database; move it aside (the next write creates a new store) or set USERDEBUG_HOME"
        case .corrupt(let path, let detail):
            return
                "\(path) is corrupt (\(detail)); run userdebug doctor to see what is damaged, and userdebug doctor --salvage NEW.sqlite3 to keep what is readable"
        case .isDirectory(let path):
            return "\(path) is a directory, not a store file; remove or rename it"
        case .readOnly(let path):
            return
                "\(path) is read-only (the file, its directory or its file system); make it writable or set USERDEBUG_HOME to a writable directory"
        case .permissionDenied(let path):
            return
                "permission denied for \(path); it should belong to the current user with mode 0600 in a 0700 directory"
        case .busy(let path):
            return "\(path) is locked by another writer; try again when it has finished"
        case .noSuchSession(let name):
            return "no session named \"\(name)\"; list them with: userdebug session list"
        case .noCurrentSession:
            return "no current session; choose one with: userdebug session use NAME"
        case .io(let path, let detail):
            return "I/O error on \(path): \(detail)"
        case .sqlite(let path, let code, let message, let sql):
            // Migration SQL spans lines; the message must stay on one.
            let statement =
                sql.map { " (while running: \($0.split(whereSeparator: \.isNewline).joined(separator: " ")))" } ?? ""
            return "SQLite error \(code) on \(path): \(message)\(statement)"
        case .incompatible(let path, let detail):
            return "\(path) is not a store this userdebug can use: \(detail)"
        case .untrusted(let path, let problem):
            return "refusing to use the store \(path): \(problem)"
        case .invalidResponse(let index, let detail):
            return "response \(index + 1) of the batch cannot be recorded: \(detail); nothing was recorded"
        case .recordTooLarge(let request, let bytes, let limit):
            return
                "the response to \(request) is \(bytes) bytes, more than retention.maxBytes (\(limit) bytes); nothing was recorded. Raise retention.maxBytes in the config file (null for no limit) to keep it"
        }
    }
}
