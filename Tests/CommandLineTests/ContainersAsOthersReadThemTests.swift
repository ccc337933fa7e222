import Foundation
import XCTest

@testable import TestSupport

/// Files as other tools write them: a Matroska track muxed by mkvmerge
/// (codec V_QUICKTIME, no DefaultDuration), QuickTime edit lists from
/// ffmpeg's muxer, MXF with index tables only. Frame counts and rates are
/// `ffprobe -count_frames`'s frames and the packets' own timestamps, and
/// `check` never reports frames missing that were never there.
final class ContainersAsOthersReadThemTests: XCTestCase {
    private func ffprobe(_ path: String, _ entries: String, packets: Bool = false) throws -> [String] {
        let arguments =
            ["-v", "error", "-select_streams", "v:0"]
            + (packets
                ? ["-show_entries", "packet=\(entries)"]
                : ["-count_frames", "-show_entries", "stream=\(entries)"]) + ["-of", "csv=p=0", path]
        let out = try FrameTools.runProcess("/usr/bin/ffprobe", arguments)
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    private func info(_ path: String) throws -> [String: Any] {
        let result = try runTool(["info", "--json", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    private func assertAsFFprobeCounts(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let counted = try XCTUnwrap(Int(try ffprobe(path, "nb_read_frames").first ?? ""), file: file, line: line)
        XCTAssertEqual(
            try info(path)["frame_count"] as? Int, counted, "\(path): info's frame_count", file: file, line: line)
        let check = try runTool(["check", path])
        XCTAssertEqual(check.status, 0, "\(path): \(check.stderr)", file: file, line: line)
        XCTAssertFalse(check.stderr.contains("missing"), check.stderr, file: file, line: line)
        let ffmpeg = md5Column(
            String(
                decoding: try FrameTools.runProcess(
                    "/usr/bin/ffmpeg",
                    [
                        "-v", "error", "-i", path, "-f", "framemd5", "-",
                    ]), as: UTF8.self))
        let ours = try runTool([path, "--framemd5", "-", "--quiet"])
        XCTAssertEqual(md5Column(ours.stdoutText), ffmpeg, "\(path): the frames decoded", file: file, line: line)
        XCTAssertEqual(ffmpeg.count, counted, file: file, line: line)
    }

    func testMkvmergeMatroskaWithoutDefaultDuration() throws {
        let dir = try makeTemporaryDirectory(self)
        // mkvmerge knows ap4x (4444 XQ) by no Matroska codec of its own: V_QUICKTIME.
        for (clip, frames) in [("4444xq.mov", 2), ("4444xq.mov", 5)] {
            let cut = dir.appendingPathComponent("cut-\(frames)-\(clip)").path
            _ = try FrameTools.runProcess(
                "/usr/bin/ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", Repo.fixture(clip),
                    "-frames:v", "\(frames)", "-c", "copy", cut,
                ])
            let mkv = dir.appendingPathComponent("\(frames)-\(clip).mkv").path
            let muxed = try runExternal(["mkvmerge", "-q", "-o", mkv, cut])
            XCTAssertEqual(muxed.status, 0, muxed.stderr)
            let tracks = try runExternal(["mkvinfo", mkv]).text
            XCTAssertTrue(tracks.contains("Codec ID: V_QUICKTIME"), tracks)
            XCTAssertFalse(tracks.contains("Default duration"), tracks)
            try assertAsFFprobeCounts(mkv)
            // The rate is the packets' timestamps' (ffprobe's own guess is the time base, 1000/1).
            let pts = try ffprobe(mkv, "pts_time", packets: true).compactMap(Double.init)
            XCTAssertEqual(try info(mkv)["fps"] as? Double, (1 / (pts[1] - pts[0])).rounded(), mkv)
        }
    }

    func testQuickTimeEditListsAndMXFIndexTables() throws {
        let dir = try makeTemporaryDirectory(self)
        for (name, options) in [("offset.mov", ["-output_ts_offset", "1"]), ("trimmed.mov", ["-ss", "0.08"])] {
            let path = dir.appendingPathComponent(name).path
            let input = ["-i", Repo.fixture("hq.mov")]
            _ = try FrameTools.runProcess(
                "/usr/bin/ffmpeg",
                ["-nostdin", "-v", "error"]
                    + (name == "trimmed.mov" ? options + input : input + options) + ["-c", "copy", path])
            try assertAsFFprobeCounts(path)
        }
        try assertAsFFprobeCounts(Repo.fixture("hq.mxf"))
    }
}
