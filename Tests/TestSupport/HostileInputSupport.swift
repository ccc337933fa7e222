import Foundation
import XCTest

/// Helpers for `HostileInputTests`: the crafted inputs of Fixtures/hostile/
/// (scripts/make-hostile-fixtures.py) run through the executable.
enum Hostile {
    static func fixture(_ name: String) -> String { Repo.fixture("hostile/\(name)") }

    /// Exited by itself (no signal, no time-out) with `status`.
    static func assertExit(
        _ result: ToolResult, _ status: Int32, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertFalse(result.timedOut, "\(what): hung", file: file, line: line)
        XCTAssertEqual(
            result.reason, .exit, "\(what): killed by signal \(result.status); stderr:\n\(result.stderr)", file: file,
            line: line)
        XCTAssertEqual(
            result.status, status, "\(what): wrong exit status; stderr:\n\(result.stderr)", file: file, line: line)
    }

    /// The `prores-decode: error:` lines of stderr.
    static func errorLines(_ result: ToolResult) -> [String] {
        result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("prores-decode: error:") }
    }

    /// Peak resident memory of one run, in bytes, measured by GNU time(1).
    /// `stdinFile` is redirected (a regular file); `pipeFrom` is written into a pipe.
    static func peakMemory(
        _ arguments: [String], stdinFile: String? = nil, pipeFrom: String? = nil,
        timeout: TimeInterval = 60
    ) throws -> (status: Int32, bytes: Int) {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("peak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", report.path, Repo.executable.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let pipe = Pipe()
        if pipeFrom != nil {
            process.standardInput = pipe
        } else {
            process.standardInput =
                try stdinFile.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) } ?? FileHandle.nullDevice
        }
        try process.run()
        if let pipeFrom {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: pipeFrom))
            DispatchQueue.global().async {
                try? pipe.fileHandleForWriting.write(contentsOf: bytes)
                try? pipe.fileHandleForWriting.close()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            XCTFail("\(arguments) hung")
        }
        process.waitUntilExit()
        let text = try String(contentsOf: report, encoding: .utf8)
        // No figure is a failure, not a peak of nothing (which every bound would let through).
        guard
            let kilobytes = text.split(separator: "\n").compactMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
                .last, kilobytes > 0
        else {
            throw NoPeakMemory(description: "time(1) reported no peak memory for \(arguments): \(text)")
        }
        return (process.terminationStatus, kilobytes * 1024)
    }
}

struct NoPeakMemory: Error, CustomStringConvertible {
    let description: String
}
