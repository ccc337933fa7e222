import Foundation
import XCTest

/// The `b3sum` CLI (the BLAKE3 team's own implementation): the independent
/// reference for every BLAKE3 test. Messages are written to files and hashed
/// in one run of the tool.
enum B3Sum {
    static let path = "/usr/bin/b3sum"

    /// Lowercase hex digests of `messages`, in order.
    static func hexes(_ messages: [Data], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        guard !messages.isEmpty else { return [] }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("b3sum-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = messages.indices.map { directory.appendingPathComponent("\($0)").path }
        for (message, path) in zip(messages, files) { try message.write(to: URL(fileURLWithPath: path)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--no-names"] + files
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "b3sum failed", file: file, line: line)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, messages.count, "b3sum printed \(lines.count) lines for \(messages.count) files", file: file, line: line)
        return lines
    }
}

extension KernelRandom {
    /// `count` reproducible pseudo-random bytes, 8 from each draw, low byte first.
    mutating func bytes(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        var i = 0
        while i < count {
            let word = next()
            for b in 0..<min(8, count - i) { bytes[i + b] = UInt8(truncatingIfNeeded: word >> UInt64(8 * b)) }
            i += 8
        }
        return Data(bytes)
    }
}
