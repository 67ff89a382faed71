/// A program the config names (`backend.curl`, an action's `command[0]`), found the way it will be
/// executed and refused when someone else could change it: it runs with the session's token on
/// its stdin, so whoever may replace it gets the token. The path returned is the one checked,
/// and the one to execute, so that PATH is not searched a second time.
enum TrustedProgram {
    /// The path to execute for `name`; `name` itself when no program by that name is found (the
    /// start then fails and says so, as before).
    /// - Throws: `ActionError.unsafeConfig` naming `key` when the program, or a directory above
    ///   it, belongs to another user (not root) or may be written by group or others (a sticky
    ///   directory such as /tmp excepted).
    static func resolve(_ name: String, key: String) throws(ActionError) -> String {
        guard let path = FileTrust.locateProgram(name) else { return name }
        if let problem = FileTrust.programProblem(at: path) {
            throw ActionError.unsafeConfig(key: key, reason: "refusing to run \(name): \(problem)")
        }
        return path
    }
}
