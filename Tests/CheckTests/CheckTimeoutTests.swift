import Foundation
import XCTest

@testable import TestSupport

/// `check --timeout` measures each file's own time, on either decoder and
/// with any `--jobs`: a short file after a long one is not charged for the
/// long one's frames still on the shared GPU session, and a file's deadline
/// gives its verdict within 10 % or 0.5 s (frames already on the GPU finish
/// in the background).
final class CheckTimeoutTests: XCTestCase {
    /// hq.mov's five frames looped 6,000 times by ffmpeg, without
    /// re-encoding: 30,000 frames, far more than the deadlines' seconds of
    /// decoding on either decoder however fast the machine (3,000 took 3.7 s
    /// on the CPU here); a deadline stops the decode, so the length costs
    /// only the copy.
    private func clips(in dir: URL) throws -> (long: String, short: String) {
        let long = dir.appendingPathComponent("a-long.mov").path
        let short = dir.appendingPathComponent("b-short.mov").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = [
            "-v", "error", "-y", "-stream_loop", "5999", "-i", Repo.fixture("hq.mov"), "-c", "copy", "-an", long,
        ]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        XCTAssertEqual(ffmpeg.terminationStatus, 0, "ffmpeg could not loop hq.mov")
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: short)
        return (long, short)
    }

    private func check(_ arguments: [String], timeout: String, cache: URL, report: URL) throws -> [[String: Any]] {
        let result = try runTool(
            ["check"] + arguments + ["--timeout", timeout, "--report", report.path],
            environment: ["XDG_CACHE_HOME": cache.path], timeout: 300)
        XCTAssertEqual(result.reason, .exit, result.stderr)
        return try CheckFixtures.files(try Data(contentsOf: report))
    }

    private func assertTimedOut(_ file: [String: Any]?, after limit: Double, _ what: String, line: UInt = #line) {
        XCTAssertEqual(file?["status"] as? String, "error", "\(what): \(file ?? [:])", line: line)
        XCTAssertTrue(
            (file?["reason"] as? String)?.hasPrefix("timed out after") == true, "\(what): \(file ?? [:])", line: line)
        let seconds = (file?["seconds"] as? NSNumber)?.doubleValue ?? .infinity
        XCTAssertLessThanOrEqual(seconds, limit + max(0.1 * limit, 0.5), "\(what): the deadline fired late", line: line)
    }

    func testEachFileIsTimedOnItsOwn() throws {
        let dir = try makeTemporaryDirectory(self)
        let (long, short) = try clips(in: dir)
        let cache = dir.appendingPathComponent("cache")
        let report = dir.appendingPathComponent("r.json")
        // Shaders compiled once, before any clock runs; 4 s: lavapipe on a
        // busy host takes over a second for its first batch.
        XCTAssertEqual(
            try check([short, "--decoder", "gpu"], timeout: "600", cache: cache, report: report).first?["status"]
                as? String, "pass")
        for decoder in ["cpu", "gpu"] {
            for jobs in ["1", "2"] {
                let what = "--decoder \(decoder) --jobs \(jobs)"
                let files = try check(
                    [long, short, "--decoder", decoder, "--jobs", jobs], timeout: "4", cache: cache, report: report)
                XCTAssertEqual(files.count, 2, what)
                assertTimedOut(files.first, after: 4, what)
                XCTAssertEqual(
                    files.last?["status"] as? String, "pass",
                    "\(what): the short file was charged for the long one: \(files.last ?? [:])")
            }
        }
    }

    func testAHalfSecondDeadlineFiresInTime() throws {
        let dir = try makeTemporaryDirectory(self)
        let (long, _) = try clips(in: dir)
        let cache = dir.appendingPathComponent("cache")
        let report = dir.appendingPathComponent("r.json")
        for decoder in ["cpu", "gpu"] {
            let files = try check([long, "--decoder", decoder], timeout: "0.5", cache: cache, report: report)
            assertTimedOut(files.first, after: 0.5, "--decoder \(decoder)")
        }
    }
}
