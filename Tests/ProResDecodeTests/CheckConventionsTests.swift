import Foundation
import XCTest

/// `check` behaves as video QC tools are expected to: reports that do not
/// depend on how the run was spread over threads.
final class CheckConventionsTests: XCTestCase {
    /// A cut frame reads the same with one decoder thread, two, and several jobs.
    func testReasonsDoNotDependOnThreadsOrJobs() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        var reports: [String] = []
        for spread in [["--threads", "1"], ["--threads", "2"], ["--threads", "2", "--jobs", "2"]] {
            let result = try runTool(["check", dir.path, "--report", "-"] + spread)
            XCTAssertEqual(result.status, 10, result.stderr)
            reports.append(CheckFixtures.normalise(result.stdoutText, directory: dir))
        }
        XCTAssertEqual(reports[0], reports[1], "--threads 1 vs 2")
        XCTAssertEqual(reports[0], reports[2], "--threads 1 vs --jobs 2")
        XCTAssertTrue(reports[0].contains("frame 2: not decoded: the decoder produced no picture; truncated:"), reports[0])
    }
}
