import Foundation
import TestSupport

/// A raw-socket HTTP server on 127.0.0.1 that answers every request the same hostile way, for
/// what `http.server` will not send: a header with a control character, or a body that never
/// ends. It exits on its own after two minutes, so a test that dies cannot leave it running.
final class HostileServer: @unchecked Sendable {
    /// How it answers.
    enum Mode: String {
        /// `200` with `X-Evil: a<ETX>b`.
        case controlHeader = "control-header"
        /// `200` announcing a megabyte, sending a kilobyte, then nothing, for an hour.
        case slow
        /// `200` with as many bytes as the path's last segment says (`/bytes/16777216`).
        case sized
    }

    static let script = #"""
        import os, socket, sys, threading, time
        mode = sys.argv[1]
        threading.Timer(120, lambda: os._exit(0)).start()
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        print(listener.getsockname()[1], flush=True)
        def serve(connection):
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                data += chunk
            if mode == "control-header":
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Evil: a\x03b\r\n\r\nok")
            elif mode == "sized":
                size = int(data.split(b" ")[1].rsplit(b"/", 1)[1])
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
                for start in range(0, size, 1 << 20):
                    connection.sendall(b"z" * min(1 << 20, size - start))
            else:
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n" + b"x" * 1000)
                time.sleep(3600)
            connection.close()
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """#

    let process: Spawned
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(_ mode: Mode) throws {
        process = try Spawned.start(
            ["/usr/bin/env", "python3", "-c", Self.script, mode.rawValue],
            environment: ProcessInfo.processInfo.environment, pipeOutput: true)
        guard let line = process.receiveLine(), let port = Int(line) else {
            process.kill()
            process.wait()
            throw FixtureError(message: "the hostile server did not start")
        }
        self.port = port
    }

    deinit {
        process.kill()
        process.wait()
    }
}
