import Foundation
import XCTest

@testable import TestSupport

/// `check --decoder gpu` (on lavapipe here) against `--decoder cpu`: the same
/// verdicts, statistics and golden hashes for every file of the mixed
/// directory (good, damaged and foreign files); golden v2 lines that
/// `b3sum` confirms; v1 (md5) golden files made by the `ffmpeg` CLI still
/// verify on both decoders.
final class CheckGPUDecoderTests: XCTestCase {
    func testGPUDecoderGivesTheCPUDecodersReport() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        var reports: [[[String: Any]]] = []
        var goldens: [String] = []
        for decoder in ["ffmpeg", "gpu"] {
            let golden = out.appendingPathComponent("\(decoder).golden")
            let report = out.appendingPathComponent("\(decoder).json")
            let result = try runTool(
                [
                    "check", dir.path, "--decoder", decoder, "--threads", "1", "--write-golden", golden.path,
                    "--report", report.path,
                ], timeout: 300)
            XCTAssertEqual(result.status, 10, "\(decoder): some files fail; stderr:\n\(result.stderr)")
            reports.append(try CheckFixtures.files(Data(contentsOf: report)))
            goldens.append(CheckFixtures.goldenHashes(try String(contentsOf: golden, encoding: .utf8)))
        }
        XCTAssertEqual(goldens[1], goldens[0], "the GPU decoder's golden file differs from the CPU decoder's")
        XCTAssertTrue(goldens[0].hasPrefix("# prores-decode check golden v2"), goldens[0])
        XCTAssertGreaterThan(goldens[0].split(separator: "\n").count, 10)
        XCTAssertEqual(reports[0].count, reports[1].count)
        for (cpu, gpu) in zip(reports[0], reports[1]) {
            let path = cpu["key"] as! String
            XCTAssertEqual(gpu["key"] as? String, path)
            XCTAssertEqual(gpu["status"] as? String, cpu["status"] as? String, path)
            XCTAssertEqual(gpu["frames"] as? Int, cpu["frames"] as? Int, path)
            // Which frames had problems; the words differ between decoders
            // (FFmpeg's against ours) only for damaged frames.
            let frames = { (r: [String: Any]) in (r["errors"] as! [[String: Any]]).map { $0["frame"] as? Int } }
            XCTAssertEqual(frames(gpu), frames(cpu), path)
            XCTAssertTrue(
                try FrameTools.statistics(cpu["stats"], equal: gpu["stats"]),
                "\(path): \(String(describing: cpu["stats"])) vs \(String(describing: gpu["stats"]))")
            let decoder = gpu["decoder"] as? String
            if cpu["status"] as? String != "error" {
                XCTAssertEqual(cpu["decoder"] as? String, "ffmpeg", path)
                XCTAssertTrue(decoder?.hasPrefix("gpu (") == true, "\(path): \(String(describing: decoder))")
            }
        }
    }

    /// Every line of a v2 golden file is `b3sum` of that frame as the
    /// `ffmpeg` CLI decodes it to raw video (the native planar bytes,
    /// which `--format native -o -` writes).
    func testGoldenV2LinesAreB3sumsOfTheNativeFrames() throws {
        let out = try makeTemporaryDirectory(self)
        for clip in ["hq.mov", "4444.mov", "odd-size.mov"] {
            let expected = try ffmpegFrameBLAKE3s(clip)
            XCTAssertEqual(expected.count, 5, clip)
            for decoder in ["cpu", "gpu"] {
                let golden = out.appendingPathComponent("\(decoder)-\(clip).golden")
                let check = try runTool(
                    ["check", Repo.fixture(clip), "--decoder", decoder, "--write-golden", golden.path], timeout: 120)
                XCTAssertEqual(check.status, 0, check.stderr)
                let lines = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").filter {
                    !$0.hasPrefix("#")
                }
                XCTAssertEqual(lines.count, expected.count, clip)
                for (n, line) in lines.enumerated() {
                    let fields = line.split(separator: " ", maxSplits: 2)
                    XCTAssertEqual(fields[0], "\(n)")
                    XCTAssertEqual(String(fields[1]), expected[n], "\(decoder) \(clip) frame \(n)")
                }
            }
        }
    }

    /// A v1 golden file written from `ffmpeg -f framemd5` verifies on both
    /// decoders, and a changed md5 fails on both.
    func testGoldenV1FromFFmpegStillVerifies() throws {
        let out = try makeTemporaryDirectory(self)
        let clip = Repo.fixture("hq.mov")
        let framemd5 = try FrameTools.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", clip, "-f", "framemd5", "-"])
        let md5s = String(decoding: framemd5, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces) }
        XCTAssertFalse(md5s.isEmpty)
        let header = "# prores-decode check golden v1: frame index, md5 of the native planar frame, path\n"
        let good = header + md5s.enumerated().map { "\($0.offset) \($0.element) \(clip)\n" }.joined()
        var changed = md5s
        changed[1] = String(repeating: "0", count: 32)
        let bad = header + changed.enumerated().map { "\($0.offset) \($0.element) \(clip)\n" }.joined()
        for decoder in ["cpu", "gpu"] {
            for (text, status) in [(good, Int32(0)), (bad, 10)] {
                let file = out.appendingPathComponent("v1-\(decoder)-\(status)")
                try text.write(to: file, atomically: true, encoding: .utf8)
                let result = try runTool(["check", clip, "--decoder", decoder, "--golden", file.path], timeout: 120)
                XCTAssertEqual(result.status, status, "\(decoder): \(result.stderr)")
                if status == 10 {
                    XCTAssertTrue(result.stderr.contains("golden mismatch at frame 1: md5"), result.stderr)
                }
            }
        }
    }

    func testRequireHardwareWithoutHardwareStopsBeforeChecking() throws {
        let result = try runTool(["check", Repo.fixture("hq.mov"), "--require-hardware"])
        XCTAssertEqual(result.status, 13, result.stderr)
        XCTAssertFalse(result.stderr.contains("PASS"), result.stderr)
        let contradiction = try runTool(["check", Repo.fixture("hq.mov"), "--decoder", "cpu", "--device", "0"])
        XCTAssertEqual(contradiction.status, 2, contradiction.stderr)
    }

    /// `--device 0,llvmpipe`: one device per entry (the one lavapipe twice
    /// here), files spread over them, each device's thread placement said
    /// with `--verbose`; an empty or repeated entry is a usage error.
    func testADeviceListSpreadsFilesOverEachEntry() throws {
        let result = try runTool(
            [
                "check", Repo.fixture("hq.mov"), Repo.fixture("422.mov"), "--decoder", "gpu",
                "--device", "0,llvmpipe", "--verbose",
            ], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("check: device 0 (") && result.stderr.contains("check: device 1 ("), result.stderr)
        XCTAssertTrue(result.stderr.contains("threads not pinned"), result.stderr)
        for bad in ["0,0", "0,"] {
            let refused = try runTool(["check", Repo.fixture("hq.mov"), "--decoder", "gpu", "--device", bad])
            XCTAssertEqual(refused.status, 2, "\(bad): \(refused.stderr)")
        }
    }

    /// `--framehash` lines are b3sum's hashes of the frames `-o` writes, on
    /// both decoders, native (hashed on the device by the GPU decoder) and
    /// packed; `--framemd5` agrees across decoders.
    func testFramehashIsB3sumOfTheOutputFrames() throws {
        for format in ["native", "v216"] {
            var lines: [[Substring]] = []
            for decoder in ["cpu", "gpu"] {
                let result = try runTool(
                    [Repo.fixture("hq.mov"), "--decoder", decoder, "--format", format, "--framehash", "-", "--quiet"],
                    timeout: 120)
                XCTAssertEqual(result.status, 0, result.stderr)
                lines.append(result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") })
            }
            XCTAssertEqual(lines[1], lines[0], "\(format): the GPU decoder's framehash differs")
            let raw = try runTool(
                [Repo.fixture("hq.mov"), "--decoder", "cpu", "--format", format, "-o", "-", "--quiet"], timeout: 120)
            let frames = try FrameTools.split(raw.stdout, clip: "hq.mov", packed: format != "native")
            let expected = try B3Sum.hexes(frames)
            XCTAssertEqual(lines[0].count, frames.count)
            for (line, hex) in zip(lines[0], expected) {
                let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                XCTAssertEqual(fields.last, hex, String(line))
                XCTAssertEqual(Int(fields[4]), frames[0].count, String(line))
            }
        }
        var md5s: [String] = []
        for decoder in ["cpu", "gpu"] {
            let result = try runTool(
                [Repo.fixture("4444.mov"), "--decoder", decoder, "--format", "native", "--framemd5", "-", "--quiet"],
                timeout: 120)
            XCTAssertEqual(result.status, 0, result.stderr)
            md5s.append(result.stdoutText)
        }
        XCTAssertEqual(md5s[1], md5s[0])
        XCTAssertEqual(md5Column(md5s[0]), try ffmpegFrameMD5s("4444.mov"), "the frames are ffmpeg's own")
    }

    /// Hashed on the device (GPU decoder, native) or on the cores, the
    /// `--framehash` file is made final: the file and nothing else.
    func testFramehashFileIsCommitted() throws {
        for decoder in ["cpu", "gpu"] {
            let out = try makeTemporaryDirectory(self)
            let path = out.appendingPathComponent("frames.b3").path
            let result = try runTool(
                [Repo.fixture("hq.mov"), "--decoder", decoder, "--format", "native", "--framehash", path, "--quiet"],
                timeout: 120)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["frames.b3"], decoder)
            XCTAssertEqual(
                try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
                    .count, 5)
        }
    }
}
