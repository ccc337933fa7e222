import Foundation
import XCTest

@testable import TestSupport

/// A private PulseAudio server with one null sink `t` (48 kHz stereo), on
/// a socket in its own directory, stopped when the test ends; `record`
/// captures the sink's monitor with parec, the server's own recorder. A
/// missing pulseaudio fails the test.
final class PulseAudioServer {
    /// The environment that points a client (play, parec) at this server alone.
    let environment: [String: String]
    /// The daemon's process id, as it writes it.
    private let pidFile: URL
    private let directory: URL

    init(_ test: XCTestCase) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio") else {
            throw ExternalToolMissing(description: "pulseaudio is not installed: run make test-deps (pulseaudio)")
        }
        directory = try makeTemporaryDirectory(test)
        let socket = directory.appendingPathComponent("native").path
        // Its own runtime, state and cookie places, so that no session's
        // server or settings take part; as root it needs --system=no said.
        let home: [String: String] = [
            "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path,
            "PULSE_RUNTIME_PATH": directory.appendingPathComponent("runtime").path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
        ]
        // It daemonizes: the server closes every descriptor it inherits,
        // which Foundation's Process takes for its exit and then waits on
        // for good. The parent returns once the server is up.
        let starter = Process()
        starter.executableURL = URL(fileURLWithPath: "/usr/bin/pulseaudio")
        starter.arguments = [
            "--daemonize=yes", "--system=no", "--exit-idle-time=-1", "-n", "--use-pid-file=yes", "--disallow-exit",
            "--log-target=stderr", "--load=module-null-sink sink_name=t rate=48000 channels=2",
            "--load=module-native-protocol-unix auth-anonymous=1 socket=\(socket)",
        ]
        starter.environment = ProcessInfo.processInfo.environment.merging(home) { $1 }
        starter.standardOutput = FileHandle.nullDevice
        starter.standardError = FileHandle.nullDevice
        try starter.run()
        starter.waitUntilExit()
        guard starter.terminationStatus == 0 else {
            throw ExternalToolMissing(description: "pulseaudio did not start (\(starter.terminationStatus))")
        }
        pidFile = URL(fileURLWithPath: home["PULSE_RUNTIME_PATH"]!).appendingPathComponent("pid")
        test.addTeardownBlock { [pidFile] in
            if let text = try? String(contentsOf: pidFile, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1
            {
                kill(pid, SIGTERM)
            }
        }
        environment = home.merging(["PULSE_SERVER": "unix:\(socket)"]) { $1 }
        try waitUntil("the PulseAudio server to accept clients") { try pactl(["info"]).status == 0 }
    }

    /// `pactl ARGUMENTS` against this server.
    func pactl(_ arguments: [String]) throws -> ExternalRun {
        try runExternal(["env"] + environment.map { "\($0.key)=\($0.value)" } + ["pactl"] + arguments)
    }

    /// Starts recording the sink's monitor as mono 32-bit float at 48 kHz
    /// into `file`; returns once parec's stream is connected.
    func record(to file: URL) throws -> Recording {
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let output = try FileHandle(forWritingTo: file)
        let parec = Process()
        parec.executableURL = URL(fileURLWithPath: "/usr/bin/parec")
        parec.arguments = [
            "-d", "t.monitor", "--format=float32le", "--channels=1", "--rate=48000", "--latency-msec=20",
        ]
        parec.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        parec.standardOutput = output
        parec.standardError = FileHandle.nullDevice
        try parec.run()
        try waitUntil("parec to record") {
            !(try pactl(["list", "short", "source-outputs"]).text.isEmpty)
        }
        return Recording(process: parec, output: output, file: file)
    }

    private func waitUntil(_ what: String, _ probe: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        repeat {
            if try probe() { return }
            usleep(100_000)
        } while Date() < deadline
        throw ExternalToolMissing(description: "timed out waiting for \(what)")
    }
}

/// parec at work; `stop` ends it and reads what it recorded.
struct Recording {
    let process: Process
    let output: FileHandle
    let file: URL

    /// Stops parec after `after` seconds more and returns the samples recorded.
    func stop(after seconds: Double = 0.3) throws -> [Float] {
        usleep(UInt32(seconds * 1e6))
        process.interrupt()
        process.waitUntilExit()
        try output.close()
        let data = try Data(contentsOf: file)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
