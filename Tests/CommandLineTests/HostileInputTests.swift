import Foundation
import XCTest

@testable import ProResCore
@testable import ProResPipeline
@testable import TestSupport

/// Inputs whose headers lie (Fixtures/hostile/, made by
/// scripts/make-hostile-fixtures.py): every claim is judged against what the
/// file can hold, so a lie gives one clear line and a documented exit code,
/// never a crash, a hang or memory that follows the claim.
final class HostileInputTests: XCTestCase {

    // MARK: - A container's frame count is a claim

    func testClaimedDurationsBeyondTheFileAreNotBelieved() throws {
        for name in ["duration-max.mxf", "duration-2p40.mxf", "duration-1e8.mxf"] {
            let path = Hostile.fixture(name)
            let info = try runTool(["info", path], timeout: 30)
            Hostile.assertExit(info, 0, "info \(name)")
            XCTAssertTrue(info.stdoutText.contains("frames:       unknown"), "info \(name):\n\(info.stdoutText)")
            XCTAssertTrue(
                info.stdoutText.contains("more than its 73785 bytes can hold"), "info \(name):\n\(info.stdoutText)")

            let check = try runTool(["check", path, "--report", "-"], timeout: 30)
            Hostile.assertExit(check, 10, "check \(name)")
            XCTAssertTrue(check.stderr.contains("FAIL"), "check \(name):\n\(check.stderr)")
            XCTAssertTrue(
                check.stdoutText.contains("\"status\":\"fail\""), "check \(name) report:\n\(check.stdoutText)")

            let dir = try makeTemporaryDirectory(self)
            let decode = try runTool([path, "-o", dir.appendingPathComponent("out.raw").path], timeout: 30)
            Hostile.assertExit(decode, 5, "decode \(name)")
            XCTAssertEqual(Hostile.errorLines(decode).count, 1, "decode \(name):\n\(decode.stderr)")
            XCTAssertTrue(decode.stderr.contains("the container claims"), "decode \(name):\n\(decode.stderr)")
        }
    }

    func testClaimedDurationDoesNotCostMemory() throws {
        let (status, bytes) = try Hostile.peakMemory(["check", Hostile.fixture("duration-1e8.mxf")])
        XCTAssertEqual(status, 10)
        XCTAssertLessThan(bytes, 200 << 20, "a 73 KB file claiming 1e8 frames peaked at \(bytes >> 20) MB")
    }

    /// One lying file among good ones changes only its own verdict.
    func testALyingFileDoesNotAffectOthers() throws {
        let result = try runTool(
            ["check", Repo.fixture("hq.mov"), Hostile.fixture("duration-max.mxf"), Repo.fixture("hq.mxf")], timeout: 60)
        Hostile.assertExit(result, 10, "check")
        XCTAssertTrue(result.stderr.contains("PASS \(Repo.fixture("hq.mov"))"), result.stderr)
        XCTAssertTrue(result.stderr.contains("PASS \(Repo.fixture("hq.mxf"))"), result.stderr)
        XCTAssertTrue(result.stderr.contains("3 files: 2 passed, 0 warned, 1 failed, 0 errors"), result.stderr)
    }

    /// Its Cues (the index) were at the end; the track's DURATION tag says 5 frames.
    func testTruncatedMatroskaFailsWhateverItsIndexSays() throws {
        let path = Hostile.fixture("truncated.mkv")
        let check = try runTool(["check", path], timeout: 30)
        Hostile.assertExit(check, 10, "check truncated.mkv")
        XCTAssertTrue(check.stderr.contains("FAIL"), check.stderr)

        let dir = try makeTemporaryDirectory(self)
        let raw = dir.appendingPathComponent("out.raw")
        let decode = try runTool([path, "-o", raw.path, "--format", "native"], timeout: 30)
        Hostile.assertExit(decode, 5, "decode truncated.mkv")
        XCTAssertTrue(decode.stderr.contains("frames 2–4 of 5 are missing"), decode.stderr)
        XCTAssertEqual(
            try Data(contentsOf: raw).count, 2 * BadInputTests.nativeFrameSize, "the two whole frames are kept")
    }

    func testCompleteMatroskaCountsItsFrames() throws {
        let dir = try makeTemporaryDirectory(self)
        let mkv = dir.appendingPathComponent("hq.mkv").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-nostdin", "-v", "error", "-i", Repo.fixture("hq.mov"), "-c", "copy", mkv]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        let info = try runTool(["info", mkv], timeout: 30)
        XCTAssertTrue(info.stdoutText.contains("frames:       5"), info.stdoutText)
        Hostile.assertExit(try runTool(["check", mkv], timeout: 30), 0, "check hq.mkv")
    }

    func testMissingFramesOfAHugeClaimAreOneRun() {
        let ranges = FrameRanges(wanted: 0..<Int.max, seen: [0, 1, 2, 7])
        XCTAssertEqual(ranges.runs, [3...6, 8...(Int.max - 1)])
        XCTAssertEqual(ranges.count, 4 + (Int.max - 8))
        XCTAssertEqual(FrameRanges(wanted: [0, 4, 8, 9], seen: [4]).runs, [0...0, 8...9])
    }

    func testDurationArithmeticCannotTrap() {
        XCTAssertNil(FrameCountClaim.frames(duration: .max, timeBase: (1, 25), rate: (25, 1)))
        XCTAssertNil(FrameCountClaim.frames(duration: -5, timeBase: (1, 25), rate: (25, 1)))
        XCTAssertEqual(FrameCountClaim.frames(duration: 2560, timeBase: (1, 12800), rate: (25, 1)), 5)
        XCTAssertEqual(FrameCountClaim.nanoseconds(durationTag: "00:00:00.200000000"), 200_000_000)
        XCTAssertEqual(FrameCountClaim.nanoseconds(durationTag: "01:00:00.5"), 3_600_500_000_000)
        XCTAssertNil(FrameCountClaim.nanoseconds(durationTag: "99999999999999999999:00:00"))
        XCTAssertEqual(FrameCountClaim.judge(10, fileBytes: 100).count, nil)
        XCTAssertEqual(FrameCountClaim.judge(5, fileBytes: 100).count, 5)
        XCTAssertEqual(FrameCountClaim.judge(5, fileBytes: nil).count, 5)
    }
}
