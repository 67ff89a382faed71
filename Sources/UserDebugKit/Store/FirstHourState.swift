/// The states a new user meets before a debug action works, each with the one hint that moves
/// past it: the command to run, with the arguments the state knows (the store's path, the
/// session's name and base URL, the sample file, the config file at fault), so that running it as
/// printed fixes the state or reaches the next one. Every "what now" of the store, the response
/// log, the backend section, the config and the popup comes from this table.
///
/// | state | hint |
/// |---|---|
/// | no store | `userdebug session import SAMPLE` (the installed sample session) |
/// | store, no current session | `userdebug session use NAME`, its first session (the import above when none) |
/// | session without responses | `userdebug capture --session S -- curl BASE_URL`, else `response record` |
/// | no response matching | `userdebug response list --session S` (what it has, by tag and URL) |
/// | backend down | start it at the URL tried, or `userdebug session set --session S --base-url URL` |
/// | config broken | `mv CONFIG CONFIG.broken` (the defaults apply), after reading FILE:LINE |
/// | popup not installed | `PREFIX=PREFIX Scripts/install.sh`, or `userdebug menu --dmenu` |
///
/// `message` is one line, "problem; what to do: command", so that a notification shows the
/// problem as its summary and the rest as its body.
public enum FirstHourState: Sendable, Equatable {
    /// No store file at `path` yet. `sample`: a session JSON to import (the installed sample).
    case noStore(path: String, sample: String?)
    /// A store whose current session is unset; `sessions`: its sessions' names, the first the
    /// one suggested. `sample` as for `noStore`, for a store that has none.
    case noCurrentSession(sessions: [String], sample: String?)
    /// The session has no recorded response at all; `baseURL`: its backend, when it has one.
    case noResponses(session: String, baseURL: String?)
    /// The session has responses, none matching `filters` ("tag 'login'", "status 4xx").
    case noMatch(session: String, filters: [String])
    /// Nothing answers at `url`, the session's backend (`reason`: curl's words).
    case backendDown(session: String, url: String, reason: String)
    /// The config file at `path` cannot be used (`problem`: where and why, FILE:LINE: …).
    case configBroken(path: String, problem: String)
    /// The popup program `program` is neither beside userdebug nor on PATH; `prefix`: the
    /// installation prefix of the running userdebug, when it is an installed one.
    case popupNotInstalled(program: String, prefix: String?)

    /// The state, without what to do.
    public var problem: String {
        switch self {
        case .noStore(let path, _): return "no store yet at \(path)"
        case .noCurrentSession(let sessions, _):
            return sessions.isEmpty ? "no current session: none is recorded yet" : "no current session"
        case .noResponses(let session, _): return "no recorded response matches (session '\(session)')"
        case .noMatch(let session, let filters):
            return "no recorded response matches (\((["session '\(session)'"] + filters).joined(separator: ", ")))"
        case .backendDown(_, let url, let reason): return "nothing answers at \(url) (\(reason))"
        case .configBroken(_, let problem): return problem
        case .popupNotInstalled(let program, _): return "\(program) is not installed beside userdebug nor on PATH"
        }
    }

    /// What to do, ending with `command`.
    public var hint: String {
        switch self {
        case .noStore(_, let sample), .noCurrentSession([], let sample):
            guard sample != nil else { return "record a session first: \(command) (a session JSON)" }
            return "record a session first, the sample one: \(command) (your app's: docs/recording.md)"
        case .noCurrentSession(let sessions, _):
            let others = sessions.dropFirst()
            return "choose one: \(command)" + (others.isEmpty ? "" : " (or: \(others.joined(separator: ", ")))")
        case .noResponses(_, let baseURL):
            return baseURL == nil ? "record one: \(command) (a response JSON)" : "record one: \(command)"
        case .noMatch: return "see what it has: \(command)"
        case .backendDown(let session, let url, _):
            return "start the backend at \(url), or point the session at it: userdebug session set --session "
                + ShellWord.quoted(session) + " --base-url URL; then: \(command)"
        case .configBroken: return "fix it, or move it aside (the defaults apply): \(command)"
        case .popupNotInstalled(_, let prefix):
            let install = prefix.map { "PREFIX=\(ShellWord.quoted($0)) Scripts/install.sh" } ?? "Scripts/install.sh"
            return "install both from the clone: \(install); or use a launcher: \(command)"
        }
    }

    /// The command of `hint`, with its real arguments: running it as printed fixes the state
    /// (for a backend down: shows whether it answers now).
    public var command: String {
        switch self {
        case .noStore(_, let sample), .noCurrentSession([], let sample):
            return "userdebug session import " + (sample.map(ShellWord.quoted) ?? "FILE")
        case .noCurrentSession(let sessions, _):
            return "userdebug session use " + ShellWord.quoted(sessions[0])
        case .noResponses(let session, let baseURL):
            guard let baseURL else { return "userdebug response record --session \(ShellWord.quoted(session)) FILE" }
            return "userdebug capture --session \(ShellWord.quoted(session)) -- curl -sS \(ShellWord.quoted(baseURL))"
        case .noMatch(let session, _):
            return "userdebug response list --session " + ShellWord.quoted(session)
        case .backendDown(_, let url, _): return "curl -sS " + ShellWord.quoted(url)
        case .configBroken(let path, _):
            return "mv \(ShellWord.quoted(path)) \(ShellWord.quoted(path + ".broken"))"
        case .popupNotInstalled: return "userdebug menu --dmenu"
        }
    }

    /// "problem; hint": one line.
    public var message: String { problem + "; " + hint }
}

/// A word as a POSIX shell reads it back: as it is when it is made of safe characters, else in
/// single quotes.
public enum ShellWord {
    /// `word`, quoted only when the shell would change it.
    public static func quoted(_ word: String) -> String {
        let safe =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                    || "-_./:@%+=,".unicodeScalars.contains(scalar)
            }
        return safe ? word : "'" + word.replacing("'", with: #"'\''"#) + "'"
    }
}
