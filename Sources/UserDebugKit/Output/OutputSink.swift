import Synchronization

/// Where an action's payload goes: stdout, a selection, several of them.
public protocol OutputSink: Sendable {
    /// Writes one payload.
    func write(_ payload: Payload) throws
}

/// Keeps payloads in memory, for tests and for composing output.
public final class MemorySink: OutputSink, Sendable {
    private let stored = Mutex<[Payload]>([])

    /// An empty sink.
    public init() {}

    /// Everything written so far.
    public var payloads: [Payload] { stored.withLock { $0 } }

    /// Records the payload.
    public func write(_ payload: Payload) throws {
        stored.withLock { $0.append(payload) }
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
