import Foundation
import XCTest

@testable import TestSupport

/// `--framemd5` is FFmpeg's framemd5 format: with `--format native` our
/// whole output, header included, equals `ffmpeg -i X -fflags +bitexact
/// -f framemd5 -` byte for byte (Fixtures/ref holds exactly that; hq.prores's
/// is hq.mov's, the same frames, as ffmpeg 5.1 cannot read raw ProRes).
final class FrameMD5FormatTests: XCTestCase {
    func testEveryFixtureMatchesFFmpegByteForByte() throws {
        for clip in try FixtureDecodeTests.clips() {
            let result = try runTool(
                [Repo.fixture(clip), "--format", "native", "--framemd5", "-", "--quiet"], timeout: 60)
            XCTAssertEqual(result.status, 0, "\(clip): \(result.stderr)")
            let expected = try String(contentsOfFile: Repo.reference("\(clip).framemd5"), encoding: .utf8)
            XCTAssertEqual(result.stdoutText, expected, "\(clip): --framemd5 differs from ffmpeg's framemd5")
        }
    }

    /// The references are what the installed ffmpeg writes today.
    func testReferenceIsTheLiveFFmpegOutput() throws {
        let live = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-i", Repo.fixture("hq.mxf"), "-fflags", "+bitexact", "-f", "framemd5", "-"])
        let ours = try runTool([Repo.fixture("hq.mxf"), "--format", "native", "--framemd5", "-", "--quiet"])
        XCTAssertEqual(ours.stdoutText, String(decoding: live, as: UTF8.self))
    }

    /// `--framehash` has the same shape, with `#hash: BLAKE3`.
    func testFrameHashHasTheSameShape() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--format", "native", "--framehash", "-", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[2], "#hash: BLAKE3")
        XCTAssertEqual(lines.count, 9 + 5)
        XCTAssertTrue(lines[9].hasPrefix("0,          0,          0,        1,    86016, "), lines[9])
        XCTAssertEqual(lines[9].count, "0,          0,          0,        1,    86016, ".count + 64)
    }
}
