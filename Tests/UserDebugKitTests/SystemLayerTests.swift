import Foundation
import Synchronization
import Testing

@testable import UserDebugKit

/// The POSIX layer (Sources/UserDebugKit/System) on real descriptors, files and child processes.
@Suite struct SystemLayerTests {
    /// How `sh -c script` ended.
    func shell(_ script: String) throws -> ChildProcess.Termination {
        var options = ChildProcess.Options()
        options.searchesPath = true
        options.input = .null
        options.output = .null
        return try ChildProcess.spawn(["sh", "-c", script], environment: ["PATH": "/usr/bin:/bin"], options: options)
            .wait()
    }

    /// An unlinked temporary file holding `bytes`, open for reading at its start.
    func file(_ bytes: [UInt8]) throws -> FileDescriptor {
        var template = Array("/tmp/userdebug-system-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(fd >= 0)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        try FileDescriptor(fd).writeAll(bytes)
        #expect(lseek(fd, 0, SEEK_SET) == 0)
        return FileDescriptor(fd)
    }

    @Test func anExitStatusAndASignalAreToldApart() throws {
        #expect(try shell("exit 0") == .exited(0))
        #expect(try shell("exit 137") == .exited(137))
        #expect(try shell("kill -KILL $$") == .signalled(SIGKILL))
        #expect(ChildProcess.Termination.exited(137).shellStatus == 137)
        #expect(ChildProcess.Termination.signalled(SIGKILL).shellStatus == 137)
    }

    /// A descriptor opened without close-on-exec after the first spawn (as another thread's pipe
    /// is, while we spawn) is not held by a child: the child holding a pipe's write end kept its
    /// reader waiting for the end as long as the child lived (a test runner's read of a
    /// `copy-token` run waited 14 s for a clipboard manager another test had started, and the
    /// token's 2 s clear came first).
    @Test func aChildHoldsNoDescriptorOpenedAfterTheFirstSpawn() throws {
        #expect(try shell("exit 0") == .exited(0))  // a spawn before the pipe exists: nothing done once covers it
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var options = ChildProcess.Options()
        options.input = .null
        options.output = .null
        let child = try ChildProcess.spawn(["/bin/sleep", "30"], environment: [:], options: options)
        defer {
            kill(child.pid, SIGKILL)
            _ = try? child.wait()
        }
        close(ends[1])
        // posix_spawn returns once the child has exec'ed: its descriptors are settled. With no
        // writer left, the read end hangs up at once.
        var reader = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        #expect(poll(&reader, 1, 0) == 1 && reader.revents & Int16(POLLHUP) != 0, "the child holds the write end")
    }

    @Test func aProgramThatCannotRunIsASpawnError() {
        #expect(throws: SystemError(ENOENT)) { try ChildProcess.spawn(["/nonexistent/program"], environment: [:]) }
    }

    @Test func readAllReadsEveryChunkToTheEnd() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let fd = try file(bytes)
        defer { close(fd.rawValue) }
        #expect(try fd.readAll() == bytes)
    }

    @Test(arguments: [0, 10, 65_535, 65_536, 100_000])
    func readAllRefusesOneByteMoreThanTheLimit(size: Int) throws {
        let bytes = [UInt8](repeating: 0x61, count: size)
        let exact = try file(bytes)
        defer { close(exact.rawValue) }
        #expect(try exact.readAll(limit: size) == bytes)
        let over = try file(bytes + [0x62])
        defer { close(over.rawValue) }
        #expect(throws: FileDescriptor.ReadAllError.tooLarge) { try over.readAll(limit: size) }
    }

    @Test func aFailedReadCarriesItsErrno() throws {
        let directory = open("/tmp", O_RDONLY | O_DIRECTORY)
        try #require(directory >= 0)
        defer { close(directory) }
        #expect(throws: FileDescriptor.ReadAllError.system(SystemError(EISDIR))) {
            try FileDescriptor(directory).readAll()
        }
        #expect(throws: SystemError(EBADF)) { try FileDescriptor(-1).writeAll([1]) }
    }

    /// A non-blocking pipe fills up long before 4 MiB: writeAll waits for the reader (`wc -c`)
    /// instead of failing with EAGAIN.
    @Test func writeAllWaitsWhileANonBlockingPipeIsFull() throws {
        let input = try FileDescriptor.pipe()
        let output = try FileDescriptor.pipe()
        var options = ChildProcess.Options()
        options.searchesPath = true
        options.input = .descriptor(input.read)
        options.output = .descriptor(output.write)
        let child = try ChildProcess.spawn(["wc", "-c"], environment: [:], options: options)
        close(input.read.rawValue)
        close(output.write.rawValue)
        _ = fcntl(input.write.rawValue, F_SETFL, fcntl(input.write.rawValue, F_GETFL) | O_NONBLOCK)
        try input.write.writeAll([UInt8](repeating: 0x78, count: 4 << 20))
        close(input.write.rawValue)
        let counted = try output.read.readAll()
        close(output.read.rawValue)
        #expect(try child.wait() == .exited(0))
        #expect(String(decoding: counted, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "4194304")
    }

    /// A wake sent before anyone waits is kept, and one sent from another thread ends a wait:
    /// without either, the test would wait until its time limit and fail there.
    @Test(.timeLimit(.minutes(1))) func aWakeIsNeverLost() throws {
        let wake = WakeSignal()
        wake.signal()
        wake.wait()
        let done = Mutex(false)
        let thread = Thread {
            usleep(20_000)
            done.withLock { $0 = true }
            wake.signal()
        }
        thread.start()
        while !done.withLock({ $0 }) { wake.wait() }
        #expect(done.withLock { $0 })
        // No wake left: a wait with a deadline ends at the deadline.
        wake.wait(until: monotonicSeconds() + 0.01)
    }

    /// The account's name and home from a passwd file, without the name service a static binary
    /// cannot load: the first line with the uid wins, short or empty lines are skipped.
    @Test func aPasswdFileGivesTheAccountsNameAndHome() throws {
        let text = """
            root:x:0:0:root:/root:/bin/bash
            broken line without fields
            :x:1000:1000::/nowhere:/bin/sh
            ana:x:1000:1000:Ana,,,:/home/ana:/bin/bash
            ana2:x:1000:1000::/home/ana2:/bin/bash
            bo:x:10000:10000::/home/bo:/bin/sh
            """
        let bytes = Array(text.utf8)
        #expect(PasswordFile.entry(uid: 1000, in: bytes) == PasswordFile.Entry(name: "ana", home: "/home/ana"))
        #expect(PasswordFile.entry(uid: 10000, in: bytes)?.name == "bo")
        #expect(PasswordFile.entry(uid: 100, in: bytes) == nil, "100 is not a prefix match of 1000 or 10000")
        #expect(PasswordFile.entry(uid: 4242, in: bytes) == nil)
        #expect(PasswordFile.entry(uid: 0)?.name == "root", "the real /etc/passwd")
        #expect(PasswordFile.entry(uid: 0, path: "/nonexistent/passwd") == nil)
    }
}
