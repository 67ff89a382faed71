/// Where an action's payload goes: stdout, a selection, several of them.
public protocol OutputSink: Sendable {
    /// Writes one payload.
    func write(_ payload: Payload) throws
}

/// Keeps payloads in memory, for tests and for composing output.
public final class MemorySink: OutputSink, @unchecked Sendable {
    private var stored: [Payload] = []
    private let lock = Lock()

    /// An empty sink.
    public init() {}

    /// Everything written so far.
    public var payloads: [Payload] { lock.withLock { stored } }

    /// Records the payload.
    public func write(_ payload: Payload) throws {
        lock.withLock { stored.append(payload) }
    }
}

/// Writes to each sink in turn; the first failure stops it.
public struct MultiplexSink: OutputSink {
    /// The sinks, in order.
    public var sinks: [any OutputSink]

    /// A sink writing to all of `sinks`.
    public init(_ sinks: [any OutputSink]) {
        self.sinks = sinks
    }

    /// Writes the payload to every sink.
    public func write(_ payload: Payload) throws {
        for sink in sinks { try sink.write(payload) }
    }
}
