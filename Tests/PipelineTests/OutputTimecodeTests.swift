import Foundation
import XCTest

@testable import ProResPipeline
@testable import TestSupport

/// The time code an output carries is its first frame's: `--start` shifts
/// it alike in MOV, NUT and EXR (read back by ffprobe and exrheader); a
/// source time code that is no time code is named on stderr and written
/// nowhere.
final class OutputTimecodeTests: XCTestCase {
    private func probedTimecode(_ path: String) throws -> String {
        let data = try FrameTools.runProcess(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries",
                "stream_tags=timecode:format_tags=timecode", "-of", "default=nw=1:nk=1", path,
            ])
        // QuickTime names it on the video stream and on its tmcd track: each must say the same.
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        return Set(lines).sorted().joined(separator: " | ")
    }

    /// 29.97 drop-frame from 00:00:59;28: frame 2 is 00:01:00;02 (labels 00
    /// and 01 of the minute are skipped).
    func testStartShiftsTheTimecodeOfEveryOutput() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = try makeTaggedClip(
            in: dir, sar: "1/1", rate: "30000/1001", timecode: "00:00:59;28", transfer: "bt709")
        for container in ["mov", "nut"] {
            let out = dir.appendingPathComponent("from2.\(container)").path
            let result = try runTool([clip, "--start", "2", "-o", out, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(try probedTimecode(out), "00:01:00;02", container)
            let whole = dir.appendingPathComponent("whole.\(container)").path
            XCTAssertEqual(try runTool([clip, "--frames", "2", "-o", whole, "--quiet"]).status, 0)
            XCTAssertEqual(try probedTimecode(whole), "00:00:59;28", "\(container) without --start")
        }
        let exr = dir.appendingPathComponent("exr").path
        let saved = try runTool([clip, "--start", "2", "--frames", "1", "--save", exr, "--quiet"])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let header = try runExternal(["exrheader", exr + "/" + FrameSaver.fileName(index: 2, format: .exr)])
        XCTAssertTrue(header.text.contains("time 00:01:00:02") && header.text.contains("drop frame 1"), header.text)
    }

    func testAnInvalidSourceTimecodeIsNamedAndNotWritten() throws {
        let dir = try makeTemporaryDirectory(self)
        // NUT keeps the metadata string as given (QuickTime's tmcd would wrap it).
        let clip = dir.appendingPathComponent("bad-timecode.nut").path
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", Repo.fixture("hq.mov"), "-c", "copy",
                "-metadata:s:v", "timecode=99:99:99:99", clip,
            ])
        XCTAssertEqual(try probedTimecode(clip), "99:99:99:99")
        for container in ["mov", "nut"] {
            let out = dir.appendingPathComponent("out.\(container)").path
            let result = try runTool([clip, "-o", out])
            XCTAssertEqual(result.status, 0, result.stderr)
            let warnings = result.stderr.split(separator: "\n").filter { $0.contains("99:99:99:99") }
            XCTAssertEqual(warnings.count, 1, result.stderr)
            XCTAssertTrue(warnings.first?.contains("not a valid SMPTE time code") == true, result.stderr)
            XCTAssertEqual(try probedTimecode(out), "", "\(container) carries a time code")
        }
        let exr = dir.appendingPathComponent("exr").path
        XCTAssertEqual(try runTool([clip, "--frames", "1", "--save", exr, "--quiet"]).status, 0)
        let header = try runExternal(["exrheader", exr + "/" + FrameSaver.fileName(index: 0, format: .exr)])
        XCTAssertEqual(header.status, 0, header.stderr)
        XCTAssertFalse(header.text.contains("timeCode"), header.text)
    }
}
