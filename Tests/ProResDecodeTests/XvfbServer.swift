import Foundation
import XCTest

/// A private X server (Xvfb, 1920×1080×24) on a display number no other
/// server uses, stopped when the test ends. A missing Xvfb fails the test.
final class XvfbServer {
    let display: String
    private let process = Process()

    init(_ test: XCTestCase) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else {
            throw ExternalToolMissing(description: "Xvfb is not installed: run make test-deps (xvfb)")
        }
        // The first number from a random start without a socket or lock file.
        let start = Int.random(in: 100...800)
        guard let number = (start..<start + 100).first(where: { n in
            !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)") && !FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock")
        }) else { throw ExternalToolMissing(description: "no free X display number") }
        display = ":\(number)"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = [display, "-screen", "0", "1920x1080x24", "-nolisten", "tcp"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let process = self.process
        test.addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") && Date() < deadline && process.isRunning {
            usleep(50_000)
        }
        guard FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") else {
            throw ExternalToolMissing(description: "Xvfb \(display) did not start")
        }
    }

    /// Runs an X client (xdotool, xwd) against this server.
    func client(_ arguments: [String]) throws -> ExternalRun {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/\(arguments[0])") else {
            throw ExternalToolMissing(description: "\(arguments[0]) is not installed: run make test-deps")
        }
        return try runExternal(["env", "DISPLAY=\(display)"] + arguments)
    }
}
