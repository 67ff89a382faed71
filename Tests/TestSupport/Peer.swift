import Foundation

/// Other programs that use the clipboard, run as a user would (bounded by coreutils `timeout`).
public enum Peer {
    /// What a peer printed and how it exited.
    public struct Output: Sendable {
        /// Exit status (128 + signal when killed).
        public var status: Int32
        /// Its standard output.
        public var bytes: [UInt8]
    }

    /// Runs a reader and collects its standard output.
    public static func read(_ arguments: [String], environment: [String: String], limit: Int = 60) throws -> Output {
        let child = try Spawned.start(
            ["timeout", "-s", "KILL", String(limit)] + arguments, environment: environment, pipeOutput: true)
        let bytes = child.receiveAll()
        return Output(status: child.wait(), bytes: bytes)
    }

    /// Runs an owner (xclip -i, xsel -i) with `input` on standard input; its output goes to
    /// /dev/null, since these owners keep whatever they inherit open while they serve.
    @discardableResult
    public static func own(_ arguments: [String], input: [UInt8], environment: [String: String]) throws -> Int32 {
        let child = try Spawned.start(
            ["timeout", "-s", "KILL", "60"] + arguments, environment: environment, pipeInput: true)
        child.send(input)
        return child.wait()
    }

    /// Starts a long-running helper (output piped); the caller kills and waits for it.
    public static func start(_ arguments: [String], environment: [String: String]) throws -> Spawned {
        try Spawned.start(arguments, environment: environment, pipeOutput: true)
    }
}

/// Copies an executable (the built userdebug, its popup, kwin_wayland without its file capability)
/// to `destination` with /bin/cp rather than in this process: a descriptor open for writing here is
/// inherited by any child another test forks meanwhile, and running the copy fails with ETXTBSY
/// for as long as that child lives.
public func copyExecutable(_ source: String, to destination: String) throws {
    let copied = try Peer.read(["/bin/cp", source, destination], environment: ["PATH": "/usr/bin:/bin"])
    guard copied.status == 0 else {
        throw FixtureError("/bin/cp \(source) \(destination) failed (status \(copied.status))")
    }
}
