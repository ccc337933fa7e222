import Foundation
import XCTest

@testable import TestSupport

/// Bad input gets the documented exit codes of bad input, from every command.
final class DamagedInputExitTests: XCTestCase {
    /// Frames that do not decode are damaged input (exit 5), not a usage error (2).
    func testBenchOnDamagedFramesExitsFive() throws {
        for name in ["dimensions-8192.prores", "alpha-data-missing.mov"] {
            let result = try runTool(["bench", Hostile.fixture(name), "--frames", "5"], timeout: 120)
            Hostile.assertExit(result, 5, "bench \(name)")
            // bench names its input first; then one error line.
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error: ") }
            XCTAssertEqual(errors.count, 1, result.stderr)
            XCTAssertTrue(errors.first?.contains("did not decode cleanly") == true, result.stderr)
        }
    }

    /// A stage time no run measured (1e300 µs) is refused at its line; the
    /// largest accepted one still draws with finite coordinates only.
    func testPlotRefusesImpossibleStageTimes() throws {
        let dir = try makeTemporaryDirectory(self)
        let log = dir.appendingPathComponent("t.jsonl")
        let svg = dir.appendingPathComponent("t.svg")
        try
            "{\"frame\":0,\"status\":\"ok\",\"decode_us\":5}\n{\"frame\":1,\"status\":\"ok\",\"decode_us\":1e300,\"latency_us\":1e300}\n"
            .write(to: log, atomically: true, encoding: .utf8)
        let bad = try runTool(["plot", log.path, "-o", svg.path], timeout: 30)
        Hostile.assertExit(bad, 3, "plot 1e300")
        assertSingleError(bad, mentions: ["line 2", "decode_us"], "plot 1e300")
        XCTAssertFalse(FileManager.default.fileExists(atPath: svg.path))

        try
            "{\"frame\":0,\"status\":\"ok\",\"decode_us\":5,\"latency_us\":6}\n{\"frame\":1,\"status\":\"ok\",\"decode_us\":1e12,\"latency_us\":1e12}\n"
            .write(to: log, atomically: true, encoding: .utf8)
        let good = try runTool(["plot", log.path, "-o", "-"], timeout: 30)
        XCTAssertEqual(good.status, 0, good.stderr)
        let page = good.stdoutText
        for word in ["null", "nan", "inf"] {
            XCTAssertNil(
                page.range(of: "=\"[^\"]*\\b\(word)\\b", options: [.regularExpression, .caseInsensitive]),
                "\(word) in:\n\(page)")
        }
    }

    /// A picture-format change mid-stream (exit 7) after 40 good frames:
    /// stdout, which cannot be taken back, holds exactly those 40 frames,
    /// whole, with every decoder and thread count; a file output is not left.
    func testAFormatChangeLeavesExactlyTheFramesBeforeItOnStdout() throws {
        let dir = try makeTemporaryDirectory(self)
        let stream = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores"))))
        let size = Int(stream[0]) << 24 | Int(stream[1]) << 16 | Int(stream[2]) << 8 | Int(stream[3])
        let good = Array(stream[0..<size])
        var resized = good
        resized[16...19] = [0, 100, 0, 50]  // 100x50, big-endian width and height
        let clip = dir.appendingPathComponent("change.prores")
        try Data(
            Array([[UInt8]](repeating: good, count: 40).joined()) + resized
                + Array([[UInt8]](repeating: good, count: 5).joined())
        )
        .write(to: clip)
        // yuv422p10le, 192x112: luma 192*112 and two 96*112 chroma planes, 2 bytes each.
        let frameBytes = (192 * 112 + 2 * 96 * 112) * 2
        for decoder in ["cpu", "ffmpeg", "gpu"] {
            for threads in ["1", "2"] {
                let result = try runTool(
                    [clip.path, "-o", "-", "-q", "--decoder", decoder, "--threads", threads], timeout: 120)
                Hostile.assertExit(result, 7, "\(decoder) \(threads)")
                XCTAssertEqual(result.stdout.count, 40 * frameBytes, "\(decoder) --threads \(threads)")
            }
        }
        let file = try runTool([clip.path, "-o", dir.appendingPathComponent("out.raw").path, "-q"], timeout: 120)
        Hostile.assertExit(file, 7, "-o out.raw")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.raw").path))
    }
}
