import Foundation
import XCTest

/// A private X server (Xvfb, 1920×1080×24) on a display number no other
/// server uses, stopped when the test ends. A missing Xvfb fails the test.
final class XvfbServer {
    let display: String
    private let process: Process

    init(_ test: XCTestCase) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else {
            throw ExternalToolMissing(description: "Xvfb is not installed: run make test-deps (xvfb)")
        }
        // Xvfb picks a free display itself and writes its number to
        // -displayfd once it accepts connections; waiting for the socket file
        // instead let a client connect too early now and then (CI load).
        // -noreset: by default the server resets when its last client leaves,
        // and a client connecting during that reset is refused. The tests'
        // xdotool polls connect and leave while the player is still starting,
        // so without it the player's own connection failed now and then
        // (reproduced: 43 refusals in 1,200 connections; none with -noreset).
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = ["-displayfd", "1", "-screen", "0", "1920x1080x24", "-nolisten", "tcp", "-noreset"]
        let ready = Pipe()
        process.standardOutput = ready
        process.standardError = FileHandle.nullDevice
        try process.run()
        test.addTeardownBlock { [process] in
            process.terminate()
            process.waitUntilExit()
        }
        let line = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var written = Data()
        DispatchQueue.global().async {
            while !written.contains(UInt8(ascii: "\n")) {
                let chunk = ready.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                written += chunk
            }
            line.signal()
        }
        guard line.wait(timeout: .now() + 20) == .success,
            let number = String(decoding: written, as: UTF8.self).split(separator: "\n").first.flatMap({ Int($0) })
        else {
            throw ExternalToolMissing(description: "Xvfb did not start")
        }
        display = ":\(number)"
    }

    /// Stops the server now, under its clients (the display going away).
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Runs an X client (xdotool, xwd) against this server.
    func client(_ arguments: [String]) throws -> ExternalRun {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/\(arguments[0])") else {
            throw ExternalToolMissing(description: "\(arguments[0]) is not installed: run make test-deps")
        }
        return try runExternal(["env", "DISPLAY=\(display)"] + arguments)
    }
}
