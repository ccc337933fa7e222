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

    /// `check` with the twins against goldens from the `ffmpeg` CLI: passes,
    /// and fails on a changed md5 of a frame read after the device was made.
    /// On one device all frames but the first come from twins; on two
    /// (lavapipe twice) the second device ends the twins as it is made,
    /// before the files are decoded, so every frame is imported as without
    /// them (but for at most the prefetched first frame of each file, read
    /// while the devices are made, which could meet the first device's twins).
    func testCheckWithTwinsOnOneDeviceAndTwo() throws {
        let directory = try makeTemporaryDirectory(self)
        var lines: [String] = []
        var clips: [String] = []
        for (index, source) in ["testsrc2", "mandelbrot"].enumerated() {
            let clip = directory.appendingPathComponent("clip\(index).mov").path
            let made = try runExternal(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "\(source)=size=160x96:rate=25",
                                        "-vf", "noise=alls=25:allf=t", "-frames:v", "60", "-c:v", "prores_ks", "-profile:v", "3", clip])
            XCTAssertEqual(made.status, 0, made.stderr)
            let reference = try runExternal(["ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-f", "framemd5", "-"])
            XCTAssertEqual(reference.status, 0, reference.stderr)
            lines += md5Column(reference.text).enumerated().map { "\($0.offset) \($0.element) \(clip)" }
            clips.append(clip)
        }
        XCTAssertEqual(lines.count, 120)
        let header = "# prores-decode check golden v1: frame index, md5 of the native planar frame, path\n"
        var changed = lines
        changed[100] = changed[100].replacingOccurrences(of: changed[100].split(separator: " ")[1], with: String(repeating: "0", count: 32))
        for (devices, twinned) in [("0", 100...120), ("0,llvmpipe", 0...2)] {
            for (text, status) in [(lines, Int32(0)), (changed, 10)] {
                let golden = directory.appendingPathComponent("golden-\(status)")
                try (header + text.map { $0 + "\n" }.joined()).write(to: golden, atomically: true, encoding: .utf8)
                let trace = directory.appendingPathComponent("trace.json").path
                let run = try runTool(["check"] + clips + ["--decoder", "gpu", "--device", devices, "--golden", golden.path],
                                      environment: ["PRORES_DECODE_UPLOAD": "import", "PRORES_DECODE_SAMPLE_TWINS": "1",
                                                    "PRORES_DECODE_PREFETCH_FRAMES": "1", "PRORES_DECODE_VALIDATION": "1",
                                                    "PRORES_DECODE_TRACE": trace], timeout: 120)
                XCTAssertEqual(run.status, status, "\(devices): \(run.stderr)")
                XCTAssertFalse(run.stderr.contains("alidation"), run.stderr)
                if status == 10 { XCTAssertTrue(run.stderr.contains("golden mismatch at frame 40: md5"), run.stderr) }
                let fromTwins = try String(contentsOfFile: trace, encoding: .utf8).components(separatedBy: "upload from a twin in video memory").count - 1
                XCTAssertTrue(twinned.contains(fromTwins), "\(devices): \(fromTwins) frames from twins")
            }
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
