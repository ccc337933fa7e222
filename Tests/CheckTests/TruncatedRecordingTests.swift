import Foundation
import XCTest

@testable import TestSupport

/// A MOV recorded with its movie index at the end (FFmpeg's default, and
/// most recorders'), cut short before the index was written: `check` FAILs
/// it naming a truncated recording — before, an ERROR "not a recognised
/// media file" — and decoding says the same with exit 3.
final class TruncatedRecordingTests: XCTestCase {
    func testMoovAtEndCutShortIsATruncatedRecording() throws {
        let dir = try makeTemporaryDirectory(self)
        let whole = dir.appendingPathComponent("whole.mov")
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-i", Repo.fixture("hq.mov"), "-c", "copy",
                whole.path,
            ])
        let bytes = try Data(contentsOf: whole)
        let moov = try XCTUnwrap(bytes.range(of: Data("moov".utf8)), "ffmpeg wrote no moov")
        let mdat = try XCTUnwrap(bytes.range(of: Data("mdat".utf8)))
        XCTAssertLessThan(mdat.lowerBound, moov.lowerBound, "the index comes after the media data")
        let cut = dir.appendingPathComponent("recording.mov")
        try bytes.prefix(mdat.lowerBound + (moov.lowerBound - mdat.lowerBound) * 2 / 3).write(to: cut)

        let check = try runTool(["check", cut.path, "--report", "-"])
        XCTAssertEqual(check.status, 10, "a failed file: exit 10; stderr:\n\(check.stderr)")
        XCTAssertTrue(check.stderr.contains("FAIL \(cut.path): truncated recording (no movie index)"), check.stderr)
        let file = try XCTUnwrap(try CheckFixtures.files(check.stdout).first)
        XCTAssertEqual(file["status"] as? String, "fail")

        let decode = try runTool([cut.path, "--quiet"])
        XCTAssertEqual(decode.status, 3, decode.stderr)
        XCTAssertTrue(decode.stderr.contains("truncated recording (no movie index)"), decode.stderr)

        // A file that is not QuickTime at all is still an ERROR.
        let text = dir.appendingPathComponent("notes.mov")
        try Data("just words\n".utf8).write(to: text)
        let other = try runTool(["check", text.path])
        XCTAssertEqual(other.status, 11, other.stderr)
    }
}
