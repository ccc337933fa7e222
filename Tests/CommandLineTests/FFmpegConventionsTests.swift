import Foundation
import XCTest

@testable import TestSupport

/// Conventions people bring from ffmpeg and mpv: `--start`/`--frames` as
/// frames, seconds or source time code; "did you mean" for a mistyped
/// command or option; the `--require-hardware` refusal says what to drop.
final class FFmpegConventionsTests: XCTestCase {
    /// 60 frames at 25 fps starting at time code 10:00:00:00 (ffmpeg-made).
    private func clip(rate: String = "25", frames: Int = 60, timecode: String = "10:00:00:00") throws -> String {
        let path = try makeTemporaryDirectory(self).appendingPathComponent("tc.mov").path
        let run = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=\(rate)",
            "-frames:v", "\(frames)", "-c:v", "prores_ks", "-profile:v", "0", "-timecode", timecode, path,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        return path
    }

    private func md5s(_ arguments: [String]) throws -> [String] {
        let result = try runTool(arguments + ["--framemd5", "-", "--quiet"])
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        return md5Column(result.stdoutText)
    }

    /// Seconds start where `ffmpeg -ss` starts and `--frames` in seconds
    /// keeps what `ffmpeg -t` keeps; a time code names the frame counted by
    /// hand from the clip's first (10:00:01:01 at 25 fps: 1 s + 1 = frame 26).
    func testStartAndFramesInSecondsAndTimeCode() throws {
        let path = try clip()
        let ffmpeg = md5Column(
            String(
                decoding: try FrameTools.runProcess(
                    "/usr/bin/ffmpeg",
                    [
                        "-v", "error", "-ss", "1.04", "-i", path, "-t", "0.5", "-fflags", "+bitexact", "-f", "framemd5",
                        "-",
                    ]), as: UTF8.self))
        XCTAssertEqual(ffmpeg.count, 13)
        for start in ["1.04s", "00:00:01.04", "0:01.04", "26", "10:00:01:01"] {
            for length in ["0.5s", "00:00:00.5", "13"] {
                XCTAssertEqual(
                    try md5s([path, "--start", start, "--frames", length]), ffmpeg,
                    "--start \(start) --frames \(length)")
            }
        }
    }

    /// Drop-frame counting skips ;00 and ;01 at each minute but every tenth:
    /// from 01:00:59;28, 01:01:00;02 is two frames on.
    func testDropFrameTimeCode() throws {
        let path = try clip(rate: "30000/1001", frames: 6, timecode: "01:00:59;28")
        let all = try md5s([path])
        XCTAssertEqual(try md5s([path, "--start", "01:01:00;02", "--frames", "1"]), [all[2]])
        let dropped = try runTool([path, "--start", "01:01:00;00", "--framemd5", "-"])
        XCTAssertEqual(dropped.status, 2, dropped.stderr)
        XCTAssertTrue(dropped.stdout.isEmpty)
    }

    func testPositionsThatCannotBeMet() throws {
        let path = try clip()
        for (arguments, words) in [
            ([path, "--start", "09:59:59:00"], "before the input's first frame"),
            ([Repo.fixture("hq.mov"), "--start", "10:00:00:00"], "has no time code"),
            ([path, "--frames", "10:00:00:00"], "not a time code"),
            ([path, "--start", "1:2:3:x"], "a frame number, seconds"),
            ([path, "--frames", "0s"], "less than one frame"),
            ([path, "--start", "99999999999999999999s"], "more frames than a stream can hold"),
        ] {
            let result = try runTool(arguments + ["--framemd5", "-"])
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stdout.isEmpty, "\(arguments)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
    }

    func testDidYouMean() throws {
        let dir = try makeTemporaryDirectory(self)
        for (arguments, words) in [
            (["chek", dir.path], "unknown command 'chek' (did you mean 'check'?)"),
            (["inf", Repo.fixture("hq.mov")], "(did you mean 'info'?)"),
            ([Repo.fixture("hq.mov"), "--framemd", "-"], "unknown option '--framemd' (did you mean '--framemd5'?)"),
            (["check", dir.path, "--exepct", "frames=1"], "unknown option '--exepct' (did you mean '--expect'?)"),
        ] {
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
        // Nothing near: no guess; a file of that name is decoded as ever.
        let far = try runTool([Repo.fixture("hq.mov"), "--zzzzzz"])
        XCTAssertFalse(far.stderr.contains("did you mean"), far.stderr)
        let named = dir.appendingPathComponent("chek")
        try FileManager.default.copyItem(atPath: Repo.fixture("hq.mov"), toPath: named.path)
        let decoded = try runTool(["chek", "--framemd5", "-", "--quiet"], in: dir)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
    }

    func testRequireHardwareOnLavapipeSaysToDropIt() throws {
        let result = try runTool([
            Repo.fixture("hq.mov"), "--decoder", "gpu", "--require-hardware", "-o", "/dev/null", "--overwrite",
        ])
        XCTAssertEqual(result.status, 13, result.stderr)
        XCTAssertTrue(result.stderr.contains("drop --require-hardware"), result.stderr)
    }
}
