import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCheck
@testable import ProResCore
@testable import ProResPipeline
@testable import TestSupport

/// `prores-decode merge`: shard reports joined into what one unsharded
/// check says, and every way a set of reports can fail to be one run's.
final class MergeCLITests: XCTestCase {
    /// Runs `check` on the mixed directory: unsharded, then as `count`
    /// shards, each in a folder of its own; returns the shard reports.
    private func shardReports(_ dir: URL, _ out: URL, count: Int, extra: [String] = []) throws -> [String] {
        try (1...count).map { index in
            let folder = out.appendingPathComponent("shard-\(index)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let report = folder.appendingPathComponent("report.json").path
            let result = try runTool(
                [
                    "check", dir.path, "--shard", "\(index)/\(count)", "--threads", "1", "--report", report,
                    "--write-golden", folder.appendingPathComponent("shard.golden").path,
                ] + extra)
            XCTAssertTrue([0, 10, 11].contains(result.status), result.stderr)
            return report
        }
    }

    func testMergedShardsEqualTheUnshardedCheck() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let all = out.appendingPathComponent("all.json")
        let allGolden = out.appendingPathComponent("all.golden")
        let whole = try runTool([
            "check", dir.path, "--threads", "1", "--report", all.path, "--write-golden", allGolden.path,
        ])
        XCTAssertEqual(whole.status, 10, whole.stderr)
        for count in [3, 8] {
            let reports = try shardReports(dir, out.appendingPathComponent("n\(count)"), count: count)
            let merged = out.appendingPathComponent("merged-\(count).json")
            let golden = out.appendingPathComponent("merged-\(count).golden")
            let junit = out.appendingPathComponent("merged-\(count).xml")
            let html = out.appendingPathComponent("merged-\(count).html")
            let result = try runTool(
                ["merge"] + reports.reversed() + [
                    "--report", merged.path, "--write-golden", golden.path,
                    "--junit", junit.path, "--html", html.path,
                ])
            XCTAssertEqual(result.status, 10, "as check's: a file failed; stderr:\n\(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("TOTAL 12 files: 5 passed, 0 warned, 3 failed, 4 errors (\(count) shards)"),
                result.stderr)
            try CheckFixtures.assertSameCheck(
                merged: merged, unsharded: all, mergedGolden: golden, unshardedGolden: allGolden)
            let cases = try String(contentsOf: junit, encoding: .utf8).components(separatedBy: "<testcase ").count - 1
            XCTAssertEqual(cases, 12)
            let page = try String(contentsOf: html, encoding: .utf8)
            XCTAssertEqual(page.components(separatedBy: "<section class=\"file ").count - 1, 12)
        }
    }

    /// The golden files beside the reports are inputs of the merge: an
    /// output may not replace one, even with -y. A report that is a
    /// directory or a device is one line, exit 3.
    func testTheShardsFilesAreInputs() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let reports = try shardReports(dir, out, count: 2)
        let golden = out.appendingPathComponent("shard-1/shard.golden")
        let before = try Data(contentsOf: golden)
        let result = try runTool(["merge"] + reports + ["--write-golden", golden.path, "-y"])
        XCTAssertEqual(result.status, 2, result.stderr)
        assertSingleError(result, mentions: ["--write-golden", "the golden file of", "shard.golden"], "golden")
        XCTAssertEqual(try Data(contentsOf: golden), before)
        for (path, words) in [
            (out.path, "a directory, not a report"), ("/dev/zero", "not a regular file, not a report"),
        ] {
            let refused = try runTool(
                ["merge", path, "--report", out.appendingPathComponent("m.json").path], timeout: 30)
            XCTAssertEqual(refused.status, 3, "\(path): \(refused.stderr)")
            assertSingleError(refused, mentions: [path, words], path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("m.json").path))
    }

    /// A shard's report missing: merge names the shard, and with --list
    /// every file of it (the files check itself puts in that shard), and
    /// writes nothing. A list that is not the run's names none.
    func testAMissingShardsFilesAreNamedFromTheList() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let list = out.appendingPathComponent("files.txt")
        // Relative names, so that the keys, and so the shards, are the same on every machine.
        let names = CheckFixtures.good.map { "good/" + $0 } + CheckFixtures.bad
        try names.map { $0 + "\n" }.joined().write(to: list, atomically: true, encoding: .utf8)
        var reports: [String] = []
        var third: [String] = []
        for index in 1...3 {
            let report = out.appendingPathComponent("s\(index).json").path
            let result = try runTool(
                ["check", "--list", list.path, "--shard", "\(index)/3", "--threads", "1", "--report", report], in: dir)
            XCTAssertTrue([0, 10, 11].contains(result.status), result.stderr)
            if index < 3 {
                reports.append(report)
            } else {
                third = try CheckFixtures.files(Data(contentsOf: URL(fileURLWithPath: report))).compactMap {
                    $0["key"] as? String
                }
            }
        }
        XCTAssertFalse(third.isEmpty, "shard 3 of 3 holds some of the \(names.count) files")
        let merged = out.appendingPathComponent("m.json")
        let result = try runTool(["merge"] + reports + ["--list", list.path, "--report", merged.path], in: dir)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("no report for shard 3 of 3"), result.stderr)
        let named = result.stderr.split(separator: "\n").filter { $0.contains("missing: '") }
            .map { String($0.split(separator: "'")[1]) }
        XCTAssertEqual(named.sorted(), third.sorted(), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: merged.path))

        let other = out.appendingPathComponent("other.txt")
        try (names.dropLast().map { $0 + "\n" }).joined().write(to: other, atomically: true, encoding: .utf8)
        let wrong = try runTool(["merge"] + reports + ["--list", other.path, "--report", merged.path], in: dir)
        XCTAssertEqual(wrong.status, 2, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("is not the list the shards checked"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("missing: '"), wrong.stderr)
    }

    /// The list digest is BLAKE3 of the sorted keys, each with a line feed,
    /// as b3sum computes it.
    func testTheListDigestIsBLAKE3OfTheSortedKeys() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let result = try runTool(["check", dir.path, "--threads", "1", "--shard", "2/3", "--report", "-"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let run = try XCTUnwrap(object["run"] as? [String: Any])
        let keys = [
            "bad/bad-header.mov", "bad/corrupt-slice.mov", "bad/empty.mov", "bad/h264.mp4", "bad/random.bin",
            "bad/text.mov",
            "bad/truncated-faststart.mov", "good/4444.mov", "good/hq.mov", "good/interlaced-tff.mov", "good/pq.mov",
            "sub/hq.prores",
        ]
        let expected = try B3Sum.hexes([Data(keys.sorted().map { $0 + "\n" }.joined().utf8)])
        XCTAssertEqual(run["inputs_digest"] as? String, "blake3:" + expected[0])
        XCTAssertEqual(run["inputs"] as? Int, 12)
    }

    func testReportsThatAreNotOneRunAreRefusedWithEveryProblemNamed() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let reports = try shardReports(dir, out, count: 3)
        let merged = out.appendingPathComponent("merged.json")
        func merge(_ paths: [String]) throws -> ToolResult {
            let result = try runTool(["merge"] + paths + ["--report", merged.path])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: merged.path), "nothing is written")
            return result
        }
        XCTAssertTrue(try merge([reports[0], reports[2]]).stderr.contains("no report for shard 2 of 3"))
        let twice = try merge(reports + [reports[1]])
        XCTAssertTrue(twice.stderr.contains("shard 2 is in more than one report"), twice.stderr)
        let shard2 = try CheckFixtures.files(Data(contentsOf: URL(fileURLWithPath: reports[1]))).map {
            $0["path"] as! String
        }
        for path in shard2 {
            XCTAssertTrue(
                twice.stderr.contains("'\(path)' is in more than one report"), "names \(path): \(twice.stderr)")
        }

        // Another run's shard: other options.
        let other = out.appendingPathComponent("other")
        let otherReports = try shardReports(dir, other, count: 3, extra: ["--expect", "profile=hq"])
        let mixed = try merge([reports[0], reports[1], otherReports[2]])
        XCTAssertTrue(
            mixed.stderr.contains("is another run's: its options is '--expect profile=hq --policy none'"), mixed.stderr)

        // A file moved into another shard's report.
        var first = try Self.parts(reports[0])
        var second = try Self.parts(reports[1])
        let moved = first.files.removeFirst()
        second.files.insert(moved, at: 0)
        let movedPath = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(moved.utf8)) as? [String: Any])?["path"] as? String)
        let t0 = out.appendingPathComponent("t0.json")
        let t1 = out.appendingPathComponent("t1.json")
        try CheckReport.json(fileLines: first.files, summary: first.summary, run: first.run).write(
            to: t0, atomically: true, encoding: .utf8)
        try CheckReport.json(fileLines: second.files, summary: second.summary, run: second.run).write(
            to: t1, atomically: true, encoding: .utf8)
        let wrong = try merge([t0.path, t1.path, reports[2]])
        XCTAssertTrue(
            wrong.stderr.contains("'\(movedPath)' is in '\(t1.path)' (shard 2) but its key belongs to shard 1"),
            wrong.stderr)

        // A file left out of its report.
        let t2 = out.appendingPathComponent("t2.json")
        try CheckReport.json(fileLines: Array(first.files.dropFirst()), summary: first.summary, run: first.run)
            .write(to: t2, atomically: true, encoding: .utf8)
        let short = try merge([t2.path, reports[1], reports[2]])
        XCTAssertTrue(short.stderr.contains("the reports hold 10 files but the run listed 12"), short.stderr)

        // A run that names no shard of its count is no report, not a crash.
        var zero = try Self.parts(reports[0])
        zero.run = zero.run.replacingOccurrences(of: "\"shard_count\":3", with: "\"shard_count\":0")
        let t3 = out.appendingPathComponent("t3.json")
        try CheckReport.json(fileLines: zero.files, summary: zero.summary, run: zero.run).write(
            to: t3, atomically: true, encoding: .utf8)
        let broken = try runTool(["merge", t3.path])
        XCTAssertEqual(broken.status, 3, broken.stderr)
        XCTAssertTrue(broken.stderr.contains("its run names shard 1 of 0"), broken.stderr)

        let notReport = out.appendingPathComponent("not.json")
        try Data("{}".utf8).write(to: notReport)
        let bad = try runTool(["merge", notReport.path])
        XCTAssertEqual(bad.status, 3, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("not a prores-decode check report"), bad.stderr)
    }

    /// A shard's preview paths, relative to where its check ran (its
    /// report's directory), are linked relative to the merged page; a path
    /// with a quote and a byte that is not UTF-8 survives the line reader.
    func testMergedPageLinksPreviewsRelativeToItself() throws {
        let key = "a\\\"b\\\\xFF.mov"  // JSON for: a"b\xFF.mov (the report text of a"b<FF>.mov)
        let line =
            "{\"path\":\"clips/\(key)\",\"key\":\"\(key)\",\"status\":\"fail\",\"reason\":\"frame 3: damaged: x\",\"frames\":1,\"sampled\":null,"
            + "\"errors\":[{\"frame\":3,\"reason\":\"damaged: x\"}],\"failed_rules\":[],\"golden\":null,\"format\":null,\"stats\":null,"
            + "\"previews\":{\"sheet\":\"prev/a.sheet.png\",\"frame\":\"prev/a.frame.png\",\"sheet_frames\":[0],\"sheet_damaged\":[],"
            + "\"frame_index\":0},\"source\":null,\"decoder\":\"cpu\",\"seconds\":0.25}"
        let plainKey = PathBytes.string(Array("a\"b".utf8) + [0xFF] + Array(".mov".utf8))
        let run =
            "{\"options\":\"\",\"inputs\":1,\"inputs_digest\":\"\(CheckRun.digest(keys: [PathBytes.reportText(plainKey)]))\","
            + "\"shard_count\":1,\"shard_index\":1,\"shard_scheme\":\"\(CheckShard.scheme)\",\"shard_source\":null,\"golden\":null}"
        let text = CheckReport.json(fileLines: [line], summary: "{\"sample\":null,\"seconds\":1}", run: run)
        let report = try ShardReport(parsing: Array(text.utf8), directory: "/runs/shard-1")
        XCTAssertEqual(report.files.first?.path, "clips/a\"b\\xFF.mov")
        XCTAssertEqual(report.files.first?.seconds, 0.25)
        XCTAssertEqual(report.files.first?.details().problems, ["frame 3: damaged: x"])
        let merge = try ShardMerge([("/runs/shard-1/report.json", report)])
        let page = MergedPage.html(merge, pageDirectory: "/runs/merged")
        XCTAssertTrue(page.contains("src=\"../shard-1/prev/a.sheet.png\""), page)
        XCTAssertTrue(page.contains("src=\"../shard-1/prev/a.frame.png\""), page)
        XCTAssertTrue(merge.json(goldenPath: nil).contains(line), "the line is carried byte for byte")
    }

    /// Sorting by bytes: shorter first on a common prefix, empty keys included.
    func testByteOrderSortsEmptyAndPrefixedKeys() {
        let keys = ["b", "", "a/b", "a", "\u{E9}", "a b"]
        XCTAssertEqual(ByteOrder.sorted(keys, by: { $0 }), ["", "a", "a b", "a/b", "b", "\u{E9}"])
    }

    /// A report's file lines, summary and run, as `CheckReport.json` takes them.
    static func parts(_ path: String) throws -> (files: [String], summary: String, run: String) {
        let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        let files = lines.dropFirst().prefix { !$0.hasPrefix("],") }.map {
            $0.hasSuffix(",") ? String($0.dropLast()) : $0
        }
        let summary = try XCTUnwrap(lines.first { $0.hasPrefix("\"summary\":") })
        let run = try XCTUnwrap(lines.first { $0.hasPrefix("\"run\":") })
        return (files, String(summary.dropFirst(10).dropLast()), String(run.dropFirst(6).dropLast()))
    }

    /// 64 shard reports of 200 files each, made up (every line a real
    /// file's, under another name): every file in the merged report once.
    func testSixtyFourShardsOfTwoHundredFiles() throws {
        let out = try makeTemporaryDirectory(self)
        let (reports, keys) = try Self.syntheticShards(in: out, shards: 64, filesEach: 200)
        let merged = out.appendingPathComponent("merged.json")
        let result = try runTool(
            ["merge"] + reports + ["--report", merged.path, "--junit", out.appendingPathComponent("m.xml").path],
            timeout: 120)
        // The template line (good/hq.mov of the mixed snapshot) is a WARN: exit 15.
        XCTAssertEqual(result.status, 15, result.stderr)
        let files = try CheckFixtures.files(Data(contentsOf: merged))
        XCTAssertEqual(files.count, 12_800)
        XCTAssertEqual(Set(files.map { $0["key"] as! String }), Set(keys))
    }

    /// Writes `shards` reports whose files are spread as `--shard` spreads
    /// their keys, `filesEach` a report; returns their paths and every key.
    static func syntheticShards(in out: URL, shards: Int, filesEach: Int) throws -> ([String], [String]) {
        let snapshot = try String(
            contentsOf: Repo.fixtures.appendingPathComponent("check/mixed.report.json"), encoding: .utf8)
        let template = try XCTUnwrap(snapshot.split(separator: "\n").first { $0.contains("\"key\":\"good/hq.mov\"") })
            .trimmingCharacters(in: [","])
        var byShard = [[String]](repeating: [], count: shards)
        var n = 0
        while byShard.contains(where: { $0.count < filesEach }) {
            let key = "archive/reel-\(n / 100)/clip-\(n).mov"
            n += 1
            let shard = CheckShard.shard(ofKey: key, count: shards) - 1
            if byShard[shard].count < filesEach { byShard[shard].append(key) }
        }
        let keys = byShard.flatMap { $0 }
        let run = { (index: Int) in
            "{\"options\":\"\",\"inputs\":\(keys.count),\"inputs_digest\":\"\(CheckRun.digest(keys: keys))\",\"shard_count\":\(shards),"
                + "\"shard_index\":\(index),\"shard_scheme\":\"\(CheckShard.scheme)\",\"shard_source\":null,\"golden\":null}"
        }
        var paths: [String] = []
        for (i, shardKeys) in byShard.enumerated() {
            let lines = shardKeys.map {
                template.replacingOccurrences(of: "\"key\":\"good/hq.mov\"", with: "\"key\":\"\($0)\"")
                    .replacingOccurrences(of: "\"path\":\"$DIR/good/hq.mov\"", with: "\"path\":\"/mnt/\($0)\"")
            }
            let summary =
                "{\"files\":\(lines.count),\"passed\":\(lines.count),\"failed\":0,\"errors\":0,\"shard\":\"\(i + 1)/\(shards)\",\"sample\":null,\"seconds\":1.5}"
            let path = out.appendingPathComponent("shard-\(i + 1).json").path
            try CheckReport.json(fileLines: lines, summary: summary, run: run(i + 1)).write(
                toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        return (paths, keys)
    }
}
