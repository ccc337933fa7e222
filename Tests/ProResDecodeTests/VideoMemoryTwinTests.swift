import Foundation
import XCTest

/// `PRORES_DECODE_SAMPLE_TWINS=1` (samples written by the reader into video
/// memory beside host memory, and uploaded from there): frames equal the
/// `ffmpeg` CLI's, the validation layer stays silent, and the trace shows
/// the frames really came from the twins. On lavapipe, whose memory is
/// all host memory, the import path is forced (`PRORES_DECODE_UPLOAD=import`)
/// as the H200 would take it.
final class VideoMemoryTwinTests: XCTestCase {
    func testFramesFromTwinsEqualFFmpegs() throws {
        let directory = try makeTemporaryDirectory(self)
        // 4:4:4 with 16-bit alpha and grain: samples of different sizes, and
        // more frames than are read before the device exists (those have no
        // twin: their regions were mapped before it).
        let clip = directory.appendingPathComponent("grain.mov").path
        let made = try runExternal(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=200x120:rate=25",
                                    "-vf", "noise=alls=30:allf=t,format=yuva444p10le", "-frames:v", "90",
                                    "-c:v", "prores_ks", "-profile:v", "4444", "-alpha_bits", "16", clip])
        XCTAssertEqual(made.status, 0, made.stderr)
        let reference = try runExternal(["ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-f", "framemd5", "-"])
        XCTAssertEqual(reference.status, 0, reference.stderr)

        // By default 32 frames are read while the device is made (no twin
        // yet: at least the other 58 come from twins); with one, at least 89.
        // At least: a read that starts after the device is ready has its twin.
        for (prefetch, twinned) in [("32", 90 - 32), ("1", 89)] {
            let trace = directory.appendingPathComponent("trace-\(prefetch).json").path
            let run = try runTool([clip, "--decoder", "gpu", "--format", "native", "--framemd5", "-", "--quiet"],
                                  environment: ["PRORES_DECODE_UPLOAD": "import", "PRORES_DECODE_SAMPLE_TWINS": "1",
                                                "PRORES_DECODE_PREFETCH_FRAMES": prefetch,
                                                "PRORES_DECODE_TRACE": trace, "PRORES_DECODE_VALIDATION": "1"])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertFalse(run.stderr.contains("alidation"), run.stderr)
            XCTAssertEqual(md5Column(run.stdoutText), md5Column(reference.text), "prefetch \(prefetch)")
            XCTAssertEqual(md5Column(run.stdoutText).count, 90)
            let text = try String(contentsOfFile: trace, encoding: .utf8)
            let fromTwins = text.components(separatedBy: "upload from a twin in video memory").count - 1
            XCTAssertTrue((twinned...90).contains(fromTwins), "prefetch \(prefetch): \(fromTwins) frames from twins")
        }
    }

    /// Without the switch, no frame comes from a twin.
    func testOffByDefault() throws {
        let directory = try makeTemporaryDirectory(self)
        let trace = directory.appendingPathComponent("trace.json").path
        let run = try runTool([Repo.fixture("hq.mov"), "--decoder", "gpu", "--quiet"],
                              environment: ["PRORES_DECODE_UPLOAD": "import", "PRORES_DECODE_TRACE": trace, "PRORES_DECODE_SAMPLE_TWINS": ""])
        XCTAssertEqual(run.status, 0, run.stderr)
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        XCTAssertTrue(text.contains("read sample"), "the trace was written")
        XCTAssertFalse(text.contains("upload from a twin"))
    }
}
