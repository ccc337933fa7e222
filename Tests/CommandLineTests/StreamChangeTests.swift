import Foundation
import XCTest

@testable import TestSupport

/// A stream whose picture size or chroma format changes mid-way (spliced
/// material): both decoders stop with exit 7 and one line naming the frame
/// and both formats, and leave no output. Before, the CPU wrote frames of
/// two sizes into one raw file (exit 0) and the GPU failed them (exit 5).
final class StreamChangeTests: XCTestCase {
    func testSizeAndChromaChangesStopBothDecodersWithExit7() throws {
        let dir = try makeTemporaryDirectory(self)
        let head = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))  // 5 frames, 192x112 4:2:2
        for (clip, change) in [("odd-size.mov", "187x101 4:2:2"), ("4444.mov", "192x112 4:4:4 with alpha")] {
            // The clip's ProRes frames as they are in the file (ffmpeg copies the packets).
            let tail = dir.appendingPathComponent("\(clip).prores")
            _ = try FrameTools.runProcess(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-y", "-i", Repo.fixture(clip), "-c:v", "copy",
                    "-f", "rawvideo", tail.path,
                ])
            let spliced = dir.appendingPathComponent("spliced-\(clip).prores")
            try (head + Data(contentsOf: tail)).write(to: spliced)
            for decoder in ["cpu", "gpu"] {
                let out = dir.appendingPathComponent("out-\(decoder)-\(clip).raw")
                let result = try runTool([spliced.path, "--decoder", decoder, "-o", out.path, "--quiet"], timeout: 120)
                XCTAssertEqual(result.status, 7, "\(decoder), \(clip): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("frame 5 is \(change), the stream 192x112 4:2:2"), result.stderr)
                XCTAssertFalse(
                    FileManager.default.fileExists(atPath: out.path), "\(decoder): a partial output was left")
            }
        }
    }
}
