import Foundation
import XCTest

@testable import TestSupport

/// `check --resume PREVIOUS.json`: unchanged files keep their verdicts
/// without being read, changed ones, errors and other options are checked.
final class CheckResumeTests: XCTestCase {
    /// Sets a file's modification time (nanoseconds since 1970).
    private func setModified(_ path: String, _ nanoseconds: Int64) {
        var times = [
            timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000)),
            timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000)),
        ]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
    }

    private func modified(_ path: String) -> Int64 {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    func testUnchangedFilesAreCarriedWithoutBeingRead() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let previous = out.appendingPathComponent("previous.json")
        let previousGolden = out.appendingPathComponent("previous.golden")
        let first = try runTool(["check", dir.path, "--report", previous.path, "--write-golden", previousGolden.path])
        XCTAssertEqual(first.status, 10, first.stderr)

        // hq.mov's bytes become garbage of the same size and time: carried, it still passes; read, it would not.
        let hq = dir.appendingPathComponent("good/hq.mov").path
        let hqTime = modified(hq)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: hq)[.size] as? Int)
        try Data(repeating: 0x5A, count: size).write(to: URL(fileURLWithPath: hq))
        setModified(hq, hqTime)
        // pq.mov is touched: checked again.
        let pq = dir.appendingPathComponent("good/pq.mov").path
        setModified(pq, modified(pq) + 1_000_000_000)

        let resumed = out.appendingPathComponent("resumed.json")
        let resumedGolden = out.appendingPathComponent("resumed.golden")
        let second = try runTool([
            "check", dir.path, "--resume", previous.path, "--report", resumed.path, "--write-golden",
            resumedGolden.path,
        ])
        XCTAssertEqual(second.status, 10, second.stderr)
        XCTAssertTrue(second.stderr.contains("PASS \(hq) (carried)"), second.stderr)
        XCTAssertFalse(second.stderr.contains("PASS \(pq) (carried)"), second.stderr)
        let files = try CheckFixtures.files(Data(contentsOf: resumed))
        let carried = Set(files.filter { $0["carried"] as? Bool == true }.map { $0["key"] as! String })
        let before = try CheckFixtures.files(Data(contentsOf: previous))
        let expected = Set(before.filter { $0["status"] as? String != "error" }.map { $0["key"] as! String })
            .subtracting(["good/pq.mov"])
        XCTAssertEqual(carried, expected, "every unchanged pass and fail, no error, not the touched file")
        XCTAssertEqual(files.first { $0["key"] as? String == "good/hq.mov" }?["status"] as? String, "pass")
        XCTAssertEqual(
            try String(contentsOf: resumedGolden, encoding: .utf8),
            try String(contentsOf: previousGolden, encoding: .utf8),
            "the carried files' golden lines come from the previous golden file")
        XCTAssertTrue(second.stderr.contains("files carried over"), second.stderr)

        // The resumed report reads as the first one, carried marks aside; a check of the garbage fails.
        try CheckFixtures.assertSameCheck(merged: resumed, unsharded: previous)
        let fresh = try runTool(["check", hq])
        XCTAssertNotEqual(fresh.status, 0, "the garbage is not a clip")

        // Other options: nothing carried.
        let other = try runTool(["check", dir.path, "--resume", previous.path, "--sample", "2", "--report", "-"])
        XCTAssertTrue(other.stderr.contains("was made with other options"), other.stderr)
        XCTAssertFalse(try CheckFixtures.files(other.stdout).contains { $0["carried"] != nil })
    }

    /// An http:// file is carried while its ETag and Last-Modified (nginx's,
    /// from the file's size and time) are unchanged.
    func testAURLIsCarriedWhileItsETagHolds() throws {
        let root = try makeTemporaryDirectory(self)
        for name in ["hq.mov", "4444.mov"] {
            try FileManager.default.copyItem(atPath: Repo.fixture(name), toPath: root.appendingPathComponent(name).path)
        }
        let nginx = try NginxServer(root: root, test: self)
        let out = try makeTemporaryDirectory(self)
        let urls = ["hq.mov", "4444.mov"].map { nginx.base + "/" + $0 }
        let previous = out.appendingPathComponent("previous.json")
        XCTAssertEqual(try runTool(["check"] + urls + ["--report", previous.path]).status, 0)
        let sources = try CheckFixtures.files(Data(contentsOf: previous)).compactMap { $0["source"] as? [String: Any] }
        XCTAssertEqual(sources.count, 2)
        XCTAssertTrue(
            sources.allSatisfy {
                ($0["etag"] as? String)?.isEmpty == false && ($0["last_modified"] as? String)?.isEmpty == false
            }, "\(sources)")
        let touched = root.appendingPathComponent("4444.mov").path
        setModified(touched, modified(touched) + 5_000_000_000)
        let again = try runTool(["check"] + urls + ["--resume", previous.path, "--report", "-"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let carried = try CheckFixtures.files(again.stdout).filter { $0["carried"] as? Bool == true }.map {
            $0["key"] as! String
        }
        XCTAssertEqual(carried, [urls[0]], "the untouched file only: \(again.stderr)")
    }

    func testResumeRefusesAPageAndAMissingReport() throws {
        let hq = Repo.fixture("hq.mov")
        let page = try runTool(["check", hq, "--resume", "x.json", "--html", "p.html"])
        XCTAssertEqual(page.status, 2, page.stderr)
        XCTAssertTrue(page.stderr.contains("merge REPORT --html"), page.stderr)
        let missing = try runTool(["check", hq, "--resume", "/nonexistent/previous.json"])
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--resume: no such file"), missing.stderr)
    }

    /// A directory or an endless device given as the earlier report is one
    /// line and exit 3, at once: nothing is read from it.
    func testResumeRefusesADirectoryAndADevice() throws {
        let folder = try makeTemporaryDirectory(self)
        for (path, words) in [
            (folder.path, "a directory, not a report"), ("/dev/zero", "not a regular file, not a report"),
        ] {
            let result = try runTool(["check", Repo.fixture("hq.mov"), "--resume", path], timeout: 30)
            XCTAssertEqual(result.status, 3, "\(path): \(result.stderr)")
            assertSingleError(result, mentions: ["--resume", words, path], path)
        }
    }

    /// The golden file an earlier report names is an input of the resumed
    /// run: --write-golden may not replace it, even with -y.
    func testTheEarlierGoldenFileIsAnInput() throws {
        let folder = try makeTemporaryDirectory(self)
        let clip = folder.appendingPathComponent("hq.mov").path
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: clip)
        let first = try runTool(["check", clip, "--report", "r.json", "--write-golden", "g.txt"], in: folder)
        XCTAssertEqual(first.status, 0, first.stderr)
        let golden = try Data(contentsOf: folder.appendingPathComponent("g.txt"))
        let again = try runTool(
            ["check", clip, "--resume", "r.json", "--report", "r2.json", "--write-golden", "./g.txt", "-y"], in: folder)
        XCTAssertEqual(again.status, 2, again.stderr)
        assertSingleError(again, mentions: ["--write-golden", "g.txt", "the golden file of --resume"], "resume")
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("g.txt")), golden)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("r2.json").path))
    }
}
