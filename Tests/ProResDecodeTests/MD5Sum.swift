import Foundation
import XCTest

/// GNU coreutils' `md5sum`: the independent reference for `MD5Batch`.
/// Messages are written to files and hashed in one run of the tool.
enum MD5Sum {
    static let path = "/usr/bin/md5sum"

    /// Lowercase hex digests of `messages`, in order.
    static func hexes(_ messages: [Data], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        guard !messages.isEmpty else { return [] }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("md5sum-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = messages.indices.map { directory.appendingPathComponent("\($0)").path }
        for (message, path) in zip(messages, files) { try message.write(to: URL(fileURLWithPath: path)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = files
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "md5sum failed", file: file, line: line)
        // Each line: 32 hex digits, two spaces, the file's path.
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map { String($0.prefix(32)) }
        XCTAssertEqual(lines.count, messages.count, "md5sum printed \(lines.count) lines for \(messages.count) files", file: file, line: line)
        return lines
    }
}
