import Foundation
import XCTest

@testable import ProResCheck
@testable import ProResPipeline
@testable import TestSupport

/// A file the golden file lists but the run does not find fails, named in
/// every report and on stderr, when the run covers the golden file's scope.
final class GoldenCoverageTests: XCTestCase {
    /// Three good clips, their golden file, then one deleted.
    private func folderWithOneDeleted() throws -> (dir: URL, golden: URL, out: URL) {
        let dir = try makeTemporaryDirectory(self)
        let out = try makeTemporaryDirectory(self)
        for name in ["hq.mov", "4444.mov", "pq.mov"] {
            try FileManager.default.copyItem(atPath: Repo.fixture(name), toPath: dir.appendingPathComponent(name).path)
        }
        let golden = out.appendingPathComponent("clips.golden")
        let written = try runTool(["check", ".", "--write-golden", golden.path], in: dir)
        XCTAssertEqual(written.status, 0, written.stderr)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("4444.mov"))
        return (dir, golden, out)
    }

    func testADeletedFileTheGoldenFileListsFails() throws {
        let (dir, golden, out) = try folderWithOneDeleted()
        let report = out.appendingPathComponent("r.json")
        let junit = out.appendingPathComponent("r.xml")
        let result = try runTool(
            ["check", ".", "--golden", golden.path, "--report", report.path, "--junit", junit.path], in: dir)
        XCTAssertEqual(result.status, 10, result.stderr)
        let missing = "./4444.mov"
        XCTAssertTrue(result.stderr.contains("FAIL \(missing): listed in the golden file, not found"), result.stderr)
        XCTAssertTrue(result.stderr.contains("TOTAL 3 files: 2 passed, 0 warned, 1 failed"), result.stderr)
        let files = try CheckFixtures.files(Data(contentsOf: report))
        let entry = try XCTUnwrap(
            files.first { $0["key"] as? String == "4444.mov" }, "the report names the missing file")
        XCTAssertEqual(entry["status"] as? String, "fail")
        XCTAssertEqual(entry["reason"] as? String, "listed in the golden file, not found")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("4444.mov") && xml.contains("listed in the golden file, not found"), xml)

        // A run naming one file checks that file only.
        let one = try runTool(["check", "hq.mov", "--golden", golden.path], in: dir)
        XCTAssertEqual(one.status, 0, one.stderr)
        // --exclude leaves the key out as it would leave out the file.
        let excluded = try runTool(["check", ".", "--golden", golden.path, "--exclude", "4444.*"], in: dir)
        XCTAssertEqual(excluded.status, 0, excluded.stderr)
    }

    /// Sharded, the missing file is the one shard's its key belongs to, and the merge fails it.
    func testTheShardOwningTheKeyReportsIt() throws {
        let (dir, golden, out) = try folderWithOneDeleted()
        let owner = CheckShard.shard(ofKey: "4444.mov", count: 2)
        var reports: [String] = []
        for index in 1...2 {
            let report = out.appendingPathComponent("s\(index).json").path
            let result = try runTool(
                ["check", ".", "--golden", golden.path, "--shard", "\(index)/2", "--report", report], in: dir)
            XCTAssertEqual(
                result.stderr.contains("listed in the golden file, not found"), index == owner,
                "shard \(index): \(result.stderr)")
            reports.append(report)
        }
        let merged = try runTool(["merge"] + reports + ["--report", "-"])
        let texts = try reports.map { try String(contentsOfFile: $0, encoding: .utf8) }.joined()
        XCTAssertEqual(merged.status, 10, merged.stderr + texts)
        let files = try CheckFixtures.files(merged.stdout)
        XCTAssertEqual(files.count, 3)
        XCTAssertEqual(files.first { $0["key"] as? String == "4444.mov" }?["status"] as? String, "fail")
    }
}
