import Foundation
import XCTest

@testable import TestSupport

/// scripts/bench.sh (`make bench`) end to end on a tiny clip with the
/// checkout's build: each of its four whole-process comparisons and the
/// in-memory bench run and report, so a change that breaks it shows here.
final class BenchScriptTests: XCTestCase {
    func testEveryComparisonRunsAndReportsItsRatio() throws {
        let run = try runExternal([
            "env", "BIN=\(Repo.executable.path)", "SIZE=96x64", "SKIP_GPU=1",
            "bash", Repo.root.appendingPathComponent("scripts/bench.sh").path,
            "--frames", "2", "--runs", "1", "--threads", "1",
        ])
        XCTAssertEqual(run.status, 0, "stdout:\n\(run.text)\nstderr:\n\(run.stderr)")
        XCTAssertEqual(run.text.components(separatedBy: "ratio B/A of the medians: ").count - 1, 4, run.text)
        XCTAssertTrue(run.text.contains("ratio cpu/ffmpeg: "), run.text)
        try? FileManager.default.removeItem(at: Repo.root.appendingPathComponent("bench-cache/hq-grain-96x64-2.mov"))
    }
}
