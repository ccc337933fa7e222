import Foundation
import XCTest

@testable import TestSupport

/// A real nginx (Debian's nginx-light), started by a test on a free
/// loopback port with its own configuration and prefix in a temporary
/// directory, serving `root` with byte ranges; stopped with the test.
/// Each request is logged (`requests`: status, Range header, request line).
final class NginxServer {
    let port: Int
    private let process: Process
    private let log: URL

    /// The requests served so far, one line each: `STATUS RANGE REQUEST`.
    var requests: [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    init(root: URL, test: XCTestCase) throws {
        let nginx = "/usr/sbin/nginx"
        guard FileManager.default.isExecutableFile(atPath: nginx) else {
            // Not a skip: a check that did not run has not passed.
            throw ExternalToolMissing(description: "nginx is not installed: make test-deps installs nginx-light")
        }
        let prefix = try makeTemporaryDirectory(test)
        log = prefix.appendingPathComponent("requests.log")
        var lastError = ""
        for _ in 0..<5 {
            let port = try freeLoopbackPort()
            let conf = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(prefix.path)/nginx.pid;
                error_log \(prefix.path)/error.log warn;
                events { worker_connections 256; }
                http {
                    log_format requests '$status $http_range $request';
                    access_log \(log.path) requests;
                    client_body_temp_path \(prefix.path)/body;
                    proxy_temp_path \(prefix.path)/proxy;
                    fastcgi_temp_path \(prefix.path)/fastcgi;
                    uwsgi_temp_path \(prefix.path)/uwsgi;
                    scgi_temp_path \(prefix.path)/scgi;
                    default_type application/octet-stream;
                    keepalive_requests 100000;
                    server {
                        listen 127.0.0.1:\(port);
                        root \(root.path);
                    }
                }
                """
            try conf.write(to: prefix.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = [
                "-p", prefix.path, "-c", prefix.appendingPathComponent("nginx.conf").path, "-e",
                prefix.path + "/error.log",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if waitForListener(port: port, while: process) {
                self.port = port
                self.process = process
                return
            }
            process.terminate()
            process.waitUntilExit()
            lastError = (try? String(contentsOf: prefix.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        }
        throw NSError(
            domain: "NginxServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(lastError)"])
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Fixtures/tools/flaky_http_server.py: ranges, and failures on purpose
/// (503 twice, a connection dropped mid-file, 404, 403, a redirect).
final class FlakyHTTPServer {
    let port: Int
    private let process: Process

    var base: String { "http://127.0.0.1:\(port)" }

    init(root: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Repo.fixtures.appendingPathComponent("tools/flaky_http_server.py").path, root.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { break }
            line += byte
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw NSError(
                domain: "FlakyHTTPServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "the server printed no port"])
        }
        self.port = port
        self.process = process
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}

/// A port nothing listens on now: bound to 127.0.0.1:0 and released.
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Waits up to 10 s for something to accept connections on the port.
private func waitForListener(port: Int, while process: Process) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline, process.isRunning {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        close(fd)
        if connected { return true }
        usleep(50_000)
    }
    return false
}

/// Python's `http.server`: every GET answered 200 with the whole file,
/// whatever its Range header says, and no `Accept-Ranges`: a server without
/// byte ranges. Stopped with the test.
final class NoRangeHTTPServer {
    let port: Int
    private let process: Process

    var base: String { "http://127.0.0.1:\(port)" }

    init(root: URL) throws {
        port = try freeLoopbackPort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", root.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard waitForListener(port: port, while: process) else {
            process.terminate()
            throw NSError(
                domain: "NoRangeHTTPServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "http.server did not start"]
            )
        }
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}
