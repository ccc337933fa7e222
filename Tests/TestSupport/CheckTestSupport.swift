import Foundation
import XCTest

/// Helpers shared by the `check` tests: a mixed directory of good and bad
/// clips, report normalisation, snapshots in `Fixtures/check/`.
enum CheckFixtures {
    static let good = ["hq.mov", "4444.mov", "pq.mov", "interlaced-tff.mov"]
    static let bad = [
        "bad/corrupt-slice.mov", "bad/bad-header.mov", "bad/truncated-faststart.mov", "bad/empty.mov",
        "bad/random.bin", "bad/h264.mp4", "bad/text.mov",
    ]

    /// good/ and bad/ copies, sub/hq.prores, a hidden file that must be
    /// skipped, and nothing else.
    static func mixedDirectory(_ test: XCTestCase) throws -> URL {
        let dir = try makeTemporaryDirectory(test)
        let fm = FileManager.default
        for name in good + bad {
            let target = dir.appendingPathComponent(name.hasPrefix("bad/") ? name : "good/" + name)
            try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(atPath: Repo.fixture(name), toPath: target.path)
        }
        try fm.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: Repo.fixture("hq.prores"), toPath: dir.appendingPathComponent("sub/hq.prores").path)
        try Data("not a clip".utf8).write(to: dir.appendingPathComponent("good/.hidden.mov"))
        return dir
    }

    /// A golden file without its `#@decoder` lines: its hashes and flagged
    /// frames, whichever decoder wrote them.
    static func goldenHashes(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#@decoder ") }.joined(
            separator: "\n")
    }

    /// Timings and modification times become 0, the temporary directory
    /// `$DIR`, the golden file a run wrote `$GOLDEN` and the files digest
    /// (which covers times and paths) `$DIGEST`, so two runs (or a
    /// run and a snapshot) compare byte for byte.
    static func normalise(_ text: String, directory: URL) -> String {
        var text = text.replacingOccurrences(of: directory.path, with: "$DIR")
        for (pattern, replacement) in [
            ("\"seconds\":[0-9.e+-]+", "\"seconds\":0"), ("\"mtime_ns\":[0-9]+", "\"mtime_ns\":0"),
            ("(\"run\":\\{.*\"golden\":)\"[^\"]*\"", "$1\"$GOLDEN\""), ("time=\"[0-9.e+-]+\"", "time=\"0\""),
            ("\"files_digest\":\"blake3:[0-9a-f]{64}\"", "\"files_digest\":\"$DIGEST\""),
            (" in [0-9.e+-]+ s\n", " in 0 s\n"),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    /// Compares with `Fixtures/check/NAME`; PRORES_DECODE_UPDATE_SNAPSHOTS=1
    /// rewrites a snapshot that differs instead (review the diff before
    /// committing), and fails the test that did: a run that rewrote
    /// snapshots has compared nothing.
    static func assertSnapshot(_ actual: String, _ name: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let url = Repo.fixtures.appendingPathComponent("check").appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["PRORES_DECODE_UPDATE_SNAPSHOTS"] == "1",
            (try? String(contentsOf: url, encoding: .utf8)) != actual
        {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            XCTFail(
                "snapshot \(name) rewritten: review its diff, then run the tests again without PRORES_DECODE_UPDATE_SNAPSHOTS",
                file: file, line: line)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        if actual != expected {
            let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = (0..<min(a.count, e.count)).first { a[$0] != e[$0] } ?? min(a.count, e.count)
            XCTFail(
                "\(name) differs from the snapshot at line \(first + 1):\n  expected: \(first < e.count ? String(e[first]) : "<end>")\n"
                    + "  actual:   \(first < a.count ? String(a[first]) : "<end>")", file: file, line: line)
        }
    }

    /// The report's `files` array, parsed.
    static func files(_ report: Data) throws -> [[String: Any]] {
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: report) as? [String: Any], "the report is not a JSON object")
        return try XCTUnwrap(object["files"] as? [[String: Any]], "the report has no files array")
    }

    /// The ProRes frames of hq.prores (4-byte big-endian size + 'icpf' each).
    static func elementaryFrames() throws -> [Data] {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))
        var frames: [Data] = []
        var offset = bytes.startIndex
        while offset + 8 <= bytes.endIndex {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= bytes.endIndex else { break }
            frames.append(bytes[offset..<offset + size])
            offset += size
        }
        return frames
    }

    /// A merged report says what the unsharded check of the same list says:
    /// the same files with the same verdicts, reasons, formats and
    /// statistics (timings, preview paths, file times and `--resume`'s carried marks
    /// aside), the same totals, in
    /// any order; and, given both, the same golden lines.
    static func assertSameCheck(
        merged: URL, unsharded: URL, mergedGolden: URL? = nil, unshardedGolden: URL? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        func verdicts(_ url: URL) throws -> ([String: NSDictionary], [String: Int]) {
            let object = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any], file: file, line: line)
            var byPath: [String: NSDictionary] = [:]
            for entry in try XCTUnwrap(object["files"] as? [[String: Any]], file: file, line: line) {
                let kept = entry.filter { !["seconds", "previews", "carried", "source"].contains($0.key) }
                XCTAssertNil(
                    byPath.updateValue(kept as NSDictionary, forKey: entry["path"] as? String ?? ""), "a path twice",
                    file: file, line: line)
            }
            let summary = try XCTUnwrap(object["summary"] as? [String: Any], file: file, line: line)
            return (
                byPath,
                summary.compactMapValues { $0 as? Int }.filter {
                    ["files", "passed", "failed", "errors"].contains($0.key)
                }
            )
        }
        let (m, mTotals) = try verdicts(merged)
        let (u, uTotals) = try verdicts(unsharded)
        XCTAssertEqual(Set(m.keys), Set(u.keys), "the merged report holds other files", file: file, line: line)
        for (path, entry) in u where m[path] != entry {
            XCTFail(
                "\(path): merged \(m[path].map { "\($0)" } ?? "missing") but unsharded \(entry)", file: file, line: line
            )
        }
        XCTAssertEqual(mTotals, uTotals, "totals", file: file, line: line)
        XCTAssertEqual(mTotals.count, 4, file: file, line: line)
        if let mergedGolden, let unshardedGolden {
            let lines = { (url: URL) in Set(try String(contentsOf: url, encoding: .utf8).split(separator: "\n")) }
            XCTAssertEqual(try lines(mergedGolden), try lines(unshardedGolden), "golden lines", file: file, line: line)
            XCTAssertGreaterThan(
                try lines(unshardedGolden).count, 1, "a golden file with frames", file: file, line: line)
        }
    }
}
