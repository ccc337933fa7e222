import Foundation
import XCTest

@testable import ProResCheck
@testable import ProResCore
@testable import ProResPipeline
@testable import TestSupport

/// What `merge` and `check --resume` read back is held to what `check`
/// wrote: status words their facts contradict, damaged lines, digests that
/// differ and schemes no one cuts by are refused, and a merged report is
/// valid JSON or not written.
final class ReportIntegrityTests: XCTestCase {
    /// Two shard reports of the mixed directory (each in its own folder).
    private func shardReports(_ dir: URL, _ out: URL) throws -> [URL] {
        try (1...2).map { index in
            let report = out.appendingPathComponent("shard-\(index).json")
            let result = try runTool([
                "check", dir.path, "--shard", "\(index)/2", "--threads", "1", "--report", report.path,
            ])
            XCTAssertTrue([10, 11].contains(result.status), result.stderr)
            return report
        }
    }

    /// The lines between `{"files":[` and `],` with their commas, as the file holds them.
    private func fileLineRange(_ text: String) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return Array(lines.dropFirst().prefix { !$0.hasPrefix("],") })
    }

    /// BLAKE3 of the file lines, each without its comma and with a line
    /// feed, as docs/check.md defines `files_digest`, by b3sum.
    private func b3sumDigest(_ text: String) throws -> String {
        let lines = fileLineRange(text).map { $0.hasSuffix(",") ? $0.dropLast() : $0 }
        let input = lines.map { $0 + "\n" }.joined()
        let temporary = try makeTemporaryDirectory(self).appendingPathComponent("lines")
        try Data(input.utf8).write(to: temporary)
        let result = try runProgram("/usr/bin/b3sum", ["--no-names", temporary.path])
        return "blake3:" + result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `"status":"fail"` (or `"error"`) made `"pass"` on the first such line of each
    /// report, with its digest recomputed by b3sum as anyone could, and
    /// without: merge refuses both (exit 3, one line naming the report and
    /// the file) and writes nothing; `--resume` from such a report too.
    func testEditedStatusWordsAreRefused() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let reports = try shardReports(dir, out)
        for recompute in [false, true] {
            var edited: [(URL, String)] = []
            for report in reports {
                var text = try String(contentsOf: report, encoding: .utf8)
                let line = try XCTUnwrap(
                    fileLineRange(text).first {
                        $0.contains("\"status\":\"fail\"") || $0.contains("\"status\":\"error\"")
                    })
                let path = try XCTUnwrap(
                    (try JSONSerialization.jsonObject(with: Data(line.trimmingCharacters(in: [","]).utf8))
                        as? [String: Any])?["path"] as? String)
                text = text.replacingOccurrences(
                    of: String(line),
                    with: line.replacingOccurrences(of: "\"status\":\"fail\"", with: "\"status\":\"pass\"")
                        .replacingOccurrences(of: "\"status\":\"error\"", with: "\"status\":\"pass\""))
                if recompute {
                    let digest = try b3sumDigest(text)
                    text = try text.replacingOccurrences(
                        of: "\"files_digest\":\"blake3:[0-9a-f]{64}\"", with: "\"files_digest\":\"\(digest)\"",
                        options: .regularExpression)
                    XCTAssertTrue(text.contains(digest))
                }
                let target = out.appendingPathComponent("edited-\(recompute)-\(report.lastPathComponent)")
                try text.write(to: target, atomically: true, encoding: .utf8)
                edited.append((target, path))
            }
            let merged = out.appendingPathComponent("merged-\(recompute).json")
            let junit = out.appendingPathComponent("merged-\(recompute).xml")
            let result = try runTool(
                ["merge"] + edited.map(\.0.path) + ["--report", merged.path, "--junit", junit.path])
            XCTAssertEqual(result.status, 3, "recomputed digest: \(recompute); \(result.stderr)")
            assertSingleError(
                result, mentions: [edited[0].0.path, edited[0].1, recompute ? "status" : "edited"],
                "merge of edited reports")
            XCTAssertFalse(FileManager.default.fileExists(atPath: merged.path))
            XCTAssertFalse(FileManager.default.fileExists(atPath: junit.path))

            let resumed = try runTool([
                "check", dir.path, "--shard", "1/2", "--resume", edited[0].0.path, "--report", "-",
            ])
            XCTAssertEqual(resumed.status, 3, resumed.stderr)
            assertSingleError(resumed, mentions: [edited[0].0.path, edited[0].1], "--resume from an edited report")
            XCTAssertTrue(resumed.stdout.isEmpty)
        }
    }

    /// A byte in the middle of a middle line damaged: merge refuses (exit 3), writes nothing.
    func testADamagedMiddleLineIsRefused() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let reports = try shardReports(dir, out)
        var bytes = try [UInt8](Data(contentsOf: reports[0]))
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = fileLineRange(text)
        XCTAssertGreaterThanOrEqual(lines.count, 3)
        let middle = lines[lines.count / 2]
        let at = text.utf8.distance(from: text.startIndex, to: middle.startIndex) + middle.utf8.count / 2
        bytes[at] = UInt8(ascii: "\"")
        try Data(bytes).write(to: reports[0])
        let merged = out.appendingPathComponent("merged.json")
        let result = try runTool(["merge"] + reports.map(\.path) + ["--report", merged.path])
        XCTAssertEqual(result.status, 3, result.stderr)
        assertSingleError(result, mentions: [reports[0].path], "a damaged line")
        XCTAssertFalse(FileManager.default.fileExists(atPath: merged.path))
    }

    /// A scheme this prores-decode does not cut shards by is refused, in both reports alike.
    func testAnUnknownShardSchemeIsRefused() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let reports = try shardReports(dir, out)
        for report in reports {
            let text = try String(contentsOf: report, encoding: .utf8)
                .replacingOccurrences(
                    of: "\"shard_scheme\":\"sha256-key-mod-n\"", with: "\"shard_scheme\":\"md5-key-mod-n\"")
            try text.write(to: report, atomically: true, encoding: .utf8)
        }
        let result = try runTool(
            ["merge"] + reports.map(\.path) + ["--report", out.appendingPathComponent("m.json").path])
        XCTAssertEqual(result.status, 3, result.stderr)
        assertSingleError(result, mentions: ["md5-key-mod-n"], "an unknown scheme")
    }

    /// Each mutation of a shard report (a byte changed, removed or added at
    /// a drawn place) is refused as merge refuses it (the problems that
    /// exit 3 or 2), or merges into valid JSON whose every status is the
    /// one its facts give, re-derived here.
    func testMutatedReportsAreRefusedOrMergeTrue() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let originals = try shardReports(dir, out).map { try [UInt8](Data(contentsOf: $0)) }
        let seed = UInt64(0x5EED_2026_1207)
        var state = seed
        func draw(_ bound: Int) -> Int {
            // SplitMix64, written out: the draws are the seed's alone.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        let alphabet = Array("\"{}[],:0123456789.-aeflnrstu\\ \n".utf8) + [0x00, 0xFF]
        var outcomes: [String: Int] = [:]
        for round in 0..<400 {
            var reports = originals
            let which = draw(2)
            let at = draw(reports[which].count)
            switch draw(3) {
            case 0: reports[which][at] = alphabet[draw(alphabet.count)]
            case 1: reports[which].remove(at: at)
            default: reports[which].insert(alphabet[draw(alphabet.count)], at: at)
            }
            guard reports[which] != originals[which] else { continue }
            let context = "seed \(seed), round \(round): report \(which + 1), byte \(at)"
            let parsed: [(name: String, report: ShardReport)]
            do {
                parsed = try reports.enumerated().map { ("r\($0.offset)", try ShardReport(parsing: $0.element)) }
            } catch is ShardReport.Problem {
                outcomes["refused, exit 3", default: 0] += 1
                continue
            }
            let merge: ShardMerge
            do { merge = try ShardMerge(parsed) } catch is ShardMerge.Problems {
                outcomes["refused, exit 2", default: 0] += 1
                continue
            }
            outcomes["merged", default: 0] += 1
            let object = try XCTUnwrap(
                try? JSONSerialization.jsonObject(with: Data(merge.json(goldenPath: nil).utf8)) as? [String: Any],
                "\(context): the merged report is not JSON")
            for file in try XCTUnwrap(object["files"] as? [[String: Any]], context) {
                XCTAssertEqual(
                    file["status"] as? String, Self.derivedStatus(file), "\(context): \(file["path"] ?? "?")")
            }
        }
        XCTAssertGreaterThan(outcomes["refused, exit 3", default: 0], 300, "\(outcomes)")
        XCTAssertGreaterThan(
            outcomes["merged", default: 0], 0, "the reports' tails hold bytes whose change still merges: \(outcomes)")
    }

    /// Pass with no errors, failed rules or golden differences; fail or error
    /// (the line's own word, either) otherwise.
    private static func derivedStatus(_ file: [String: Any]) -> String {
        let errors = (file["errors"] as? [Any])?.count ?? 0
        let rules = (file["failed_rules"] as? [Any])?.count ?? 0
        let goldenDiffers = ((file["golden"] as? [String: Any])?["result"] as? String).map { $0 != "match" } ?? false
        let word = file["status"] as? String ?? ""
        return errors + rules == 0 && !goldenDiffers
            ? "pass" : (["fail", "error"].contains(word) ? word : "fail or error")
    }
}
