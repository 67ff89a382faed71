// TestSupport is a plain target, so `swift build -c release` (install.sh, demo.sh) builds it too,
// where the Testing module is not there: the trait exists only where it can.
#if canImport(Testing)
    import Foundation
    public import Testing

    /// A deadline on each test it is applied to (on a suite: on each of its tests). A test still
    /// running at its deadline cannot be cancelled (it may be blocked in a system call or in C), so
    /// the watchdog names it on stderr and ends the whole test process with status 124, as
    /// `timeout` would: the run fails instead of hanging, and `Scripts/test.sh`'s reaper kills what
    /// the test had started. It never asserts a time: it only bounds a hang, so give generous
    /// seconds.
    public struct ProcessDeadline: TestTrait, SuiteTrait, TestScoping {
        /// How long each test may run.
        public let seconds: Double

        /// Applies to every test of a suite.
        public var isRecursive: Bool { true }

        /// A scope per test case (a test function without arguments has one); none for a suite.
        public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
            testCase == nil ? nil : self
        }

        /// Runs the test with the watchdog armed, and disarms it when the test ends.
        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            let done = DispatchSemaphore(value: 0)
            let name = "\(test.sourceLocation.fileName):\(test.sourceLocation.line) \(test.name)"
            let seconds = seconds
            Thread.detachNewThread {
                guard done.wait(timeout: .now() + seconds) == .timedOut else { return }
                let message =
                    "ProcessDeadline: \(name) still runs after its deadline of \(seconds) s; ending the test process\n"
                _ = message.withCString { write(2, $0, strlen($0)) }
                _exit(124)
            }
            defer { done.signal() }
            try await function()
        }
    }

    extension Trait where Self == ProcessDeadline {
        /// Ends the test process if a test runs longer than `seconds` (see `ProcessDeadline`).
        public static func processDeadline(_ seconds: Double) -> Self { ProcessDeadline(seconds: seconds) }
    }
#endif
