#if canImport(Glibc)
    import Glibc
#endif

/// Whether a file and the directories above it are safe to read secrets from, write secrets to,
/// or run: the rule ssh applies to `~/.ssh` (StrictModes). Whoever may replace a file, or any
/// directory on its way from `/`, may put their own content there or take ours.
///
/// - A path's own levels (the store file and its directory, a config file, a private
///   directory) must belong to this user or root and be writable by neither group nor others.
/// - Every directory above them must belong to this user or root, and may be writable by group
///   or others only when it is sticky (`/tmp`): there nobody else may rename or remove our
///   entries.
/// - Symbolic links are followed as the kernel follows them, and the directory holding each
///   link is checked too (whoever may write it may point the link elsewhere).
package enum FileTrust {
    /// Why a path is not trusted: which path, what is wrong with it, and how to fix it.
    package struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The path at fault (links resolved), which may be a directory above the one asked about.
        package var path: String
        /// What is wrong, e.g. "is writable by group or others (mode 0777)".
        package var reason: String
        /// A command that fixes it, e.g. "chmod 700 /x".
        package var fix: String

        /// `PATH REASON; fix: FIX`.
        package var description: String { "\(path) \(reason); fix: \(fix)" }
    }

    /// The first problem with `path` and the directories above it, nil when there is none.
    ///
    /// `ownLevels` entries at the end of the resolved path are held to the strict rule: 1 for a
    /// directory or file of ours, 2 for a file in a directory of ours. When the path's last
    /// component is a symbolic link, the directory holding the link is held to it too (the
    /// store's copy of the current session lives beside the link). A path that does not (fully)
    /// exist yet is checked as far as it exists, by the rule for directories above: that is what
    /// decides whether it is safe to create the rest.
    package static func problem(at path: String, ownLevels: Int) -> Problem? {
        examine(path, ownLevels: ownLevels).problem
    }

    /// What `examine` found.
    struct Examination {
        /// The first problem (see `problem(at:ownLevels:)`).
        var problem: Problem?
        /// The permission bits of the path and of its directory, from the same look, when the
        /// path exists and its last component is not a link (so that they are the path's own).
        var modes: (path: mode_t, directory: mode_t)?
    }

    /// `problem(at:ownLevels:)`, and the modes it saw, so that a caller that also reports loose
    /// read bits needs no second look (the hotkey path).
    static func examine(_ path: String, ownLevels: Int) -> Examination {
        let walk = Walk(path)
        if let failure = walk.failure { return Examination(problem: failure) }
        var modes: (path: mode_t, directory: mode_t)?
        if walk.complete, walk.finalLinkDirectory == nil, walk.entries.count >= 2 {
            let last = walk.entries[walk.entries.count - 1]
            let above = walk.entries[walk.entries.count - 2]
            if last.path == walk.resolved, above.path == parent(of: walk.resolved) {
                modes = (last.status.st_mode & 0o7777, above.status.st_mode & 0o7777)
            }
        }
        return Examination(problem: firstProblem(walk, ownLevels: ownLevels), modes: modes)
    }

    private static func firstProblem(_ walk: Walk, ownLevels: Int) -> Problem? {
        if let failure = walk.failure { return failure }
        // A few paths, searched in order: a Set here was the hotkey path's first hashed
        // collection, whose type costs a scan of every protocol conformance in the binary.
        var own: [String] = []
        if walk.complete {
            var level = walk.resolved
            for _ in 0..<ownLevels {
                own.append(level)
                level = parent(of: level)
            }
            if let directory = walk.finalLinkDirectory { own.append(directory) }
        }
        let me = geteuid()
        for entry in walk.entries {
            let problem =
                own.contains(entry.path)
                ? ownProblem(entry.status, path: entry.path, me: me)
                : aboveProblem(entry.status, path: entry.path, me: me)
            if let problem { return problem }
        }
        return nil
    }

    /// The problem with a file of ours already open, from its `fstat`: it must belong to this
    /// user or root and be writable by neither group nor others.
    static func ownProblem(_ status: stat, path: String, me: uid_t = geteuid()) -> Problem? {
        if let problem = foreignOwnerProblem(status, path: path, me: me) { return problem }
        guard status.st_mode & 0o022 != 0 else { return nil }
        let isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
        return writable(status, path: path, fix: "chmod \(isDirectory ? "700" : "600") \(path)")
    }

    /// The rule for a directory above our own levels (and for a program file): this user's or
    /// root's, and not writable by group or others unless sticky.
    private static func aboveProblem(_ status: stat, path: String, me: uid_t) -> Problem? {
        if let problem = foreignOwnerProblem(status, path: path, me: me) { return problem }
        let isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
        guard status.st_mode & 0o022 != 0, !(isDirectory && status.st_mode & S_ISVTX != 0) else { return nil }
        return writable(status, path: path, fix: "chmod go-w \(path)")
    }

    /// The problem with a program about to be run (a file that may be shared, like /usr/bin/curl):
    /// the file and every directory above it by the rule for directories above our own levels.
    package static func programProblem(at path: String) -> Problem? {
        let walk = Walk(path)
        if let failure = walk.failure { return failure }
        let me = geteuid()
        for entry in walk.entries {
            if let problem = aboveProblem(entry.status, path: entry.path, me: me) { return problem }
        }
        return nil
    }

    /// Where `posix_spawnp` finds `name`: itself when it holds a `/`, else the first regular,
    /// executable `DIR/name` along this process's PATH (`/bin:/usr/bin` without one; an empty
    /// entry is the working directory). nil when there is none.
    package static func locateProgram(_ name: String) -> String? {
        func isProgram(_ path: String) -> Bool {
            var status = stat()
            return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
        }
        if name.contains("/") { return isProgram(name) ? name : nil }
        let search = getenv("PATH").map { String(cString: $0) } ?? "/bin:/usr/bin"
        for directory in search.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            if isProgram(candidate) { return candidate }
        }
        return nil
    }

    private static func foreignOwnerProblem(_ status: stat, path: String, me: uid_t) -> Problem? {
        let owner = status.st_uid
        guard owner != me, owner != 0 else { return nil }
        let name = userName(owner).map { " (\($0))" } ?? ""
        return Problem(
            path: path, reason: "is owned by uid \(owner)\(name), not by you (uid \(me)) or root",
            fix:
                "use files of your own (USERDEBUG_HOME, the XDG variables, the config), or have it made yours: chown \(me) \(path)"
        )
    }

    private static func writable(_ status: stat, path: String, fix: String) -> Problem {
        let digits = String(status.st_mode & 0o7777, radix: 8)
        let mode = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return Problem(path: path, reason: "is writable by group or others (mode \(mode))", fix: fix)
    }

    private static func userName(_ uid: uid_t) -> String? {
        PasswordFile.entry(uid: uid)?.name
    }

    /// "/a/b" → "/a"; "/a" → "/".
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The `lstat` of `/`, of every directory on the way to a path and of the path itself, links
    /// resolved one component at a time (the way the kernel does), so that each status is of
    /// exactly the directory that will be used. One `lstat` per component: this runs on the
    /// hotkey path.
    private struct Walk {
        var entries: [(path: String, status: stat)] = []
        /// The path with every link resolved (as far as it exists).
        var resolved = "/"
        /// Whether every component exists.
        var complete = false
        /// When the path's last component (as named, or as a link's target names it) is a link:
        /// the directory that holds that link.
        var finalLinkDirectory: String?
        /// Set when the path cannot be examined (a loop of links, a component that is not a
        /// directory): not trusted.
        var failure: Problem?

        init(_ path: String) {
            var pending = Self.components(path.hasPrefix("/") ? path : Self.workingDirectory() + "/" + path)
            var status = stat()
            guard lstat("/", &status) == 0 else { return }
            entries.append(("/", status))
            var current = ""
            var links = 0
            while let component = pending.popLast() {
                if component == "." { continue }
                if component == ".." {
                    current = current.isEmpty ? "" : FileTrust.parent(of: current)
                    if current == "/" { current = "" }
                    continue
                }
                let candidate = current + "/" + component
                // Missing, not a directory, not searchable: what is there is checked, and whatever
                // uses the path next fails with its own error.
                guard lstat(candidate, &status) == 0 else {
                    resolved = current.isEmpty ? "/" : current
                    return
                }
                guard (status.st_mode & S_IFMT) == S_IFLNK else {
                    entries.append((candidate, status))
                    current = candidate
                    continue
                }
                links += 1
                finalLinkDirectory = pending.isEmpty ? (current.isEmpty ? "/" : current) : nil
                guard links <= 40, let target = Self.linkTarget(candidate) else {
                    failure = Problem(
                        path: candidate, reason: "is a link that cannot be followed", fix: "check the link")
                    return
                }
                if target.hasPrefix("/") { current = "" }
                pending += Self.components(target)
            }
            resolved = current.isEmpty ? "/" : current
            complete = true
        }

        /// The components of `path`, last first (so `popLast` takes them in order).
        private static func components(_ path: String) -> [String] {
            path.split(separator: "/", omittingEmptySubsequences: true).reversed().map(String.init)
        }

        private static func linkTarget(_ path: String) -> String? {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &buffer, buffer.count - 1)
            guard count > 0 else { return nil }
            return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        private static func workingDirectory() -> String {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            guard getcwd(&buffer, buffer.count) != nil else { return "/" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
