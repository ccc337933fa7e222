import Foundation
import XCTest

/// The `b3sum` CLI (the BLAKE3 team's own implementation): the independent
/// reference for every BLAKE3 test.
enum B3Sum {
    static let path = "/usr/bin/b3sum"

    /// Lowercase hex digests of `messages`, in order.
    static func hexes(_ messages: [Data], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try ChecksumTool.lines(path, options: ["--no-names"], messages: messages, file: file, line: line)
    }
}

/// GNU coreutils' `md5sum`: the independent reference for `MD5Batch`.
enum MD5Sum {
    static let path = "/usr/bin/md5sum"

    /// Lowercase hex digests of `messages`, in order.
    static func hexes(_ messages: [Data], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        // Each line: 32 hex digits, two spaces, the file's path.
        try ChecksumTool.lines(path, options: [], messages: messages, file: file, line: line).map {
            String($0.prefix(32))
        }
    }
}

/// GNU coreutils' `sha256sum`: the independent reference for shard assignment.
enum SHA256Sum {
    static let path = "/usr/bin/sha256sum"

    /// Lowercase hex digests of `messages`, in order.
    static func hexes(_ messages: [Data], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try ChecksumTool.lines(path, options: [], messages: messages, file: file, line: line).map {
            String($0.prefix(64))
        }
    }

    /// The shard (1-based) of `count` a key belongs to: 1 + (the digest's
    /// first 8 bytes, big-endian) mod count.
    static func shards(keys: [String], count: Int) throws -> [Int] {
        try hexes(keys.map { Data($0.utf8) }).map { Int(UInt64($0.prefix(16), radix: 16)! % UInt64(count)) + 1 }
    }
}

/// A checksum CLI run once over `messages`, each written to a file of its
/// own: its output lines, one a message, in order.
enum ChecksumTool {
    static func lines(_ tool: String, options: [String], messages: [Data], file: StaticString, line: UInt) throws
        -> [String]
    {
        guard !messages.isEmpty else { return [] }
        let name = URL(fileURLWithPath: tool).lastPathComponent
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = messages.indices.map { directory.appendingPathComponent("\($0)").path }
        for (message, path) in zip(messages, files) { try message.write(to: URL(fileURLWithPath: path)) }
        let run = try runExternal([tool] + options + files)
        XCTAssertEqual(run.status, 0, "\(name) failed: \(run.stderr)", file: file, line: line)
        let lines = run.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.count, messages.count, "\(name) printed \(lines.count) lines for \(messages.count) files", file: file,
            line: line)
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
