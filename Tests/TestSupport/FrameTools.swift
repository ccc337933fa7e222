import Foundation
import XCTest

/// The `ffmpeg` and `ffprobe` CLIs' outputs as the tests compare them:
/// frames cut from raw output, the start of each frame of an elementary
/// stream, and statistics equal within the precision the reports print.
enum FrameTools {
    /// Equal statistics: everything exactly, light levels within 1e-4 relative.
    static func statistics(_ a: Any?, equal b: Any?) throws -> Bool {
        switch (a, b) {
        case (let x as [String: Any], let y as [String: Any]):
            guard Set(x.keys) == Set(y.keys) else { return false }
            return try x.keys.allSatisfy { try statistics(x[$0], equal: y[$0]) }
        case (let x as [Any], let y as [Any]):
            return try x.count == y.count && zip(x, y).allSatisfy { try statistics($0, equal: $1) }
        case (let x as NSNumber, let y as NSNumber):
            let (p, q) = (x.doubleValue, y.doubleValue)
            return p == q || abs(p - q) <= 1e-4 * max(abs(p), abs(q)) + 0.05  // JSON prints light to 0.1 nit
        case (is NSNull, is NSNull):
            return true
        case (let x as String, let y as String):
            return x == y
        default:
            return false
        }
    }

    /// Splits raw output into frames of the clip's native planar (or packed) size.
    static func split(_ data: Data, clip: String, packed: Bool = false) throws -> [Data] {
        let probe = try runProcess(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=width,height,pix_fmt", "-of", "csv=p=0", Repo.fixture(clip),
            ])
        let fields = String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: ",")
        let width = Int(fields[0])!
        let height = Int(fields[1])!
        let pixFmt = String(fields[2])
        let size: Int
        if packed {
            size = (width + 1) / 2 * 8 * height  // v216
        } else {
            let chromaWidth = pixFmt.contains("422") ? (width + 1) / 2 : width
            size = (width + 2 * chromaWidth + (pixFmt.hasPrefix("yuva") ? width : 0)) * 2 * height
        }
        XCTAssertEqual(
            data.count % size, 0, "\(clip): \(data.count) bytes is not a whole number of \(size)-byte frames")
        return stride(from: 0, to: data.count, by: size).map { data.subdata(in: $0..<min($0 + size, data.count)) }
    }

    /// Where each frame of an elementary stream starts (4-byte size + 'icpf').
    static func frameOffsets(_ bytes: Data) -> [Int] {
        var offsets: [Int] = []
        var at = 0
        while at + 8 <= bytes.count {
            let size = bytes[bytes.startIndex + at..<bytes.startIndex + at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { break }
            offsets.append(at)
            at += size
        }
        return offsets
    }

    static func runProcess(_ path: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(path) \(arguments.joined(separator: " "))")
        return data
    }
}
