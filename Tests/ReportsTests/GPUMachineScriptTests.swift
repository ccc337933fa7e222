import Foundation
import XCTest

@testable import TestSupport

/// scripts/gpu-machine.sh, the benchmark set, end to end on this machine's
/// lavapipe with tiny clips and the checkout's build (PD, FF): every step
/// runs and reports, so a change that breaks it shows here, not on the GPU
/// machine.
final class GPUMachineScriptTests: XCTestCase {
    func testTheSetRunsEveryStepOnTinyClips() throws {
        let directory = try makeTemporaryDirectory(self)
        let out = directory.appendingPathComponent("out")
        let run = try runExternal([
            "env",
            "PD=\(Repo.executable.path)", "FF=ffmpeg", "SIZE=96x64", "FRAMES=2", "ROUNDS=1", "LOOPS=1",
            "BENCH_FRAMES=4",
            "PROFILES=hq 4444", "FIXTURES=hq.mov", "SKIP_VARIANTS=1",
            "CLIPDIR=\(directory.appendingPathComponent("clips").path)",
            "bash", Repo.root.appendingPathComponent("scripts/gpu-machine.sh").path, out.path,
        ])
        let summary = (try? String(contentsOf: out.appendingPathComponent("summary.txt"), encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "stdout:\n\(run.text)\nstderr:\n\(run.stderr)")
        XCTAssertTrue(summary.contains("fixtures against Fixtures/ref: 1/1"), summary)
        // hq.mov and the two profiles' clips, each in three layouts, and FFmpeg's decoder in the native one.
        XCTAssertTrue(
            summary.contains("GPU decoder = our CPU decoder (native, v216, y416) = FFmpeg's (native): 3/3 clips"),
            summary)
        // The in-memory bench of both profiles with both ratios to FFmpeg's decoder, and four whole-process
        // comparisons with their ratio: --decoder gpu, the default and --decoder cpu against ffmpeg, then
        // check on the GPU against the CPU.
        XCTAssertEqual(summary.components(separatedBy: "ratio gpu/ffmpeg: ").count - 1, 2, summary)
        XCTAssertEqual(summary.components(separatedBy: "ratio cpu/ffmpeg: ").count - 1, 2, summary)
        XCTAssertEqual(summary.components(separatedBy: "ratio B/A of the medians: ").count - 1, 4, summary)
        XCTAssertTrue(summary.contains("done: 0 failure(s)"), summary)
        let check = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("check.json")))
                as? [String: Any])
        XCTAssertEqual((check["files"] as? [Any])?.count, 6, "two profiles, three copies each")
        for page in [
            "bench.html", "whole-gpu-ffmpeg-cpu.html", "whole-default-ffmpeg-cpu.html", "whole-cpu-ffmpeg-cpu.html",
            "whole-check.html",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent(page).path), page)
        }
    }
}
