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

extension CheckConventionsTests {
    /// `dir`, `dir/`, `./dir`, `dir/*` and `dir/*/*.mov`-style globs give the
    /// same golden keys, so a golden file written one way verifies another.
    func testGoldenKeysAreRelativeToTheArgumentsRoot() throws {
        let dir = try makeTemporaryDirectory(self)
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips.appendingPathComponent("day1"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: clips.appendingPathComponent("day1/hq.mov").path)
        try FileManager.default.copyItem(atPath: Repo.fixture("lt.mov"), toPath: clips.appendingPathComponent("lt.mov").path)
        let golden = dir.appendingPathComponent("golden.md5")
        XCTAssertEqual(try runTool(["check", "clips", "--write-golden", golden.path], in: dir).status, 0)
        let written = try String(contentsOf: golden, encoding: .utf8)
        for form in ["clips/", "./clips", "clips/*", dir.path + "/clips//"] {
            let result = try runTool(["check", form, "--golden", golden.path, "--report", "-"], in: dir)
            XCTAssertEqual(result.status, 0, "\(form): \(result.stderr)")
            let keys = try CheckFixtures.files(result.stdout).compactMap { $0["key"] as? String }
            XCTAssertEqual(keys, ["day1/hq.mov", "lt.mov"], form)
        }
        XCTAssertTrue(written.contains("day1/hq.mov") && !written.contains("clips/"), written)
    }
}
