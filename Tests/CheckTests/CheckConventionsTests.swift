import Foundation
import XCTest

@testable import TestSupport

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
        XCTAssertTrue(
            reports[0].contains(
                "frame 2: not decoded: invalid picture: picture data size 12281 runs past the end of the frame; "
                    + "truncated:"), reports[0])
    }
}

extension CheckConventionsTests {
    /// `dir`, `dir/`, `./dir`, `dir/*` and `dir/*/*.mov`-style globs give the
    /// same golden keys, so a golden file written one way verifies another.
    func testGoldenKeysAreRelativeToTheArgumentsRoot() throws {
        let dir = try makeTemporaryDirectory(self)
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(
            at: clips.appendingPathComponent("day1"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("hq.mov"), toPath: clips.appendingPathComponent("day1/hq.mov").path)
        try FileManager.default.copyItem(
            atPath: Repo.fixture("lt.mov"), toPath: clips.appendingPathComponent("lt.mov").path)
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

extension CheckConventionsTests {
    /// A delivery folder: clips at two depths with their sidecars.
    private func delivery() throws -> URL {
        let dir = try makeTemporaryDirectory(self)
        let fm = FileManager.default
        for (name, source) in [("a/hq.mov", "hq.mov"), ("a/proxy/lt.mov", "lt.mov"), ("b/pq.mov", "pq.mov")] {
            let url = dir.appendingPathComponent(name)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(atPath: Repo.fixture(source), toPath: url.path)
        }
        for sidecar in ["a/hq.xml", "a/hq.md5", "b/notes.TXT", "manifest.json"] {
            try Data("not a clip".utf8).write(to: dir.appendingPathComponent(sidecar))
        }
        return dir
    }

    private func checkedKeys(_ arguments: [String], in dir: URL) throws -> (keys: [String], result: ToolResult) {
        let result = try runTool(["check"] + arguments + ["--report", "-"], in: dir)
        return (try CheckFixtures.files(result.stdout).compactMap { $0["key"] as? String }, result)
    }

    /// Sidecars are skipped with a note, not reported as ERRORs; one named
    /// on the command line is still checked (it was asked for).
    func testSidecarsAreSkippedWithANote() throws {
        let dir = try delivery()
        let (keys, result) = try checkedKeys(["."], in: dir)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(keys, ["a/hq.mov", "a/proxy/lt.mov", "b/pq.mov"])
        XCTAssertTrue(result.stderr.contains("skipped 4 sidecar files (not media)"), result.stderr)
        XCTAssertFalse(result.stderr.contains("ERROR"), result.stderr)
        let named = try checkedKeys(["a/hq.xml"], in: dir)
        XCTAssertEqual(named.result.status, 11, "a named sidecar is checked, and is not ProRes")
    }

    /// `--include`/`--exclude` are repeatable; `**` crosses directories; a
    /// pattern without '/' matches the file name at any depth.
    func testIncludeAndExclude() throws {
        let dir = try delivery()
        XCTAssertEqual(try checkedKeys([".", "--include", "a/**"], in: dir).keys, ["a/hq.mov", "a/proxy/lt.mov"])
        XCTAssertEqual(
            try checkedKeys([".", "--include", "a/*"], in: dir).keys, ["a/hq.mov"], "* stays in one directory")
        XCTAssertEqual(
            try checkedKeys([".", "--include", "**/lt.mov", "--include", "pq.*"], in: dir).keys,
            ["a/proxy/lt.mov", "b/pq.mov"])
        let excluded = try checkedKeys([".", "--exclude", "**/proxy/**", "--exclude", "b/*"], in: dir)
        XCTAssertEqual(excluded.keys, ["a/hq.mov"], "lt.mov, pq.mov and b/notes.TXT left out")
        XCTAssertTrue(
            excluded.result.stderr.contains("3 files left out by --include/--exclude"), excluded.result.stderr)
        let nothing = try runTool(["check", ".", "--include", "*.mxf"], in: dir)
        XCTAssertEqual(nothing.status, 2, "nothing left to check is an error, never a pass: \(nothing.stderr)")
    }
}
