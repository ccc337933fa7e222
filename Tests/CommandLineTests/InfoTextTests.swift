import Foundation
import XCTest

@testable import TestSupport

/// `info`'s text shows what `info --json` has, for a person: the display
/// size and aspect ratios, duration, time code (drop-frame or not), time
/// base, field order and the HDR side data; `check --html`'s format block
/// too. Every value is checked against ffprobe's reading of a clip the
/// ffmpeg CLI (and mkvpropedit, for the HDR side data) wrote.
final class InfoTextTests: XCTestCase {
    private func fields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for row in text.split(separator: "\n") {
            guard let colon = row.firstIndex(of: ":") else { continue }
            fields[row[..<colon].trimmingCharacters(in: .whitespaces)] = row[row.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// ffprobe's `key=value` lines for the video stream (and its tags, side data).
    private func ffprobe(_ path: String) throws -> [String: String] {
        let out = try FrameTools.runProcess(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-count_frames",
                "-show_streams", path,
            ])
        var values: [String: String] = [:]
        for line in String(decoding: out, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, values[parts[0]] == nil { values[parts[0]] = parts[1] }
        }
        return values
    }

    private func clip(_ name: String, size: String, rate: String, sar: String, timecode: String) throws -> String {
        let path = try makeTemporaryDirectory(self).appendingPathComponent(name).path
        let run = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)",
            "-frames:v", "3", "-vf", "setsar=\(sar)", "-c:v", "prores_ks", "-timecode", timecode, path,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        return path
    }

    func testAspectDurationAndTimecodeAreFFprobes() throws {
        let path = try clip("pal.mov", size: "720x576", rate: "25", sar: "16/15", timecode: "10:00:00:00")
        let probe = try ffprobe(path)
        let info = try runTool(["info", path])
        XCTAssertEqual(info.status, 0, info.stderr)
        let text = fields(info.stdoutText)
        XCTAssertEqual(probe["sample_aspect_ratio"], "16:15")
        XCTAssertEqual(probe["display_aspect_ratio"], "4:3")
        // 720 × 16/15 = 768 square pixels wide.
        XCTAssertEqual(
            text["display"], "768x576 (SAR \(probe["sample_aspect_ratio"]!), DAR \(probe["display_aspect_ratio"]!))")
        XCTAssertEqual(probe["nb_read_frames"], "3")
        let seconds = try XCTUnwrap(Double(probe["duration"] ?? ""))
        XCTAssertEqual(text["duration"], String(format: "00:00:%06.3f (%@ frames)", seconds, probe["nb_read_frames"]!))
        XCTAssertEqual(probe["TAG:timecode"], "10:00:00:00")
        XCTAssertEqual(text["timecode"], "10:00:00:00 (non-drop)")
        XCTAssertEqual(text["time base"], probe["time_base"])
        XCTAssertEqual(text["field order"], "progressive")
        XCTAssertEqual(text["mastering"], "none")
        XCTAssertEqual(text["light level"], "none")

        // The check page's format block shows the same.
        let page = try runTool(["check", path, "--html", "-"])
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(
            page.stdoutText.contains("<tr><th>display</th><td>768x576 (SAR 16:15, DAR 4:3)</td>"),
            "check --html: display row")
        XCTAssertTrue(
            page.stdoutText.contains("<tr><th>timecode</th><td>10:00:00:00 (non-drop)</td>"),
            "check --html: timecode row")
    }

    func testDropFrameTimecode() throws {
        let path = try clip("ntsc.mov", size: "64x48", rate: "30000/1001", sar: "1/1", timecode: "01:00:00;02")
        XCTAssertEqual(try ffprobe(path)["TAG:timecode"], "01:00:00;02")
        XCTAssertEqual(fields(try runTool(["info", path]).stdoutText)["timecode"], "01:00:00;02 (drop-frame)")
    }

    /// Mastering display and content light level, set by mkvpropedit on an
    /// ffmpeg-made MKV and read back by ffprobe as side data.
    func testHDRSideDataIsShown() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent("pq.mkv").path
        XCTAssertEqual(
            try runExternal(["ffmpeg", "-nostdin", "-v", "error", "-i", Repo.fixture("pq.mov"), "-c", "copy", path])
                .status, 0)
        let set =
            [
                "red-x": "0.708", "red-y": "0.292", "green-x": "0.17", "green-y": "0.797", "blue-x": "0.131",
                "blue-y": "0.046",
            ]
            .flatMap { ["--set", "chromaticity-coordinates-\($0.key)=\($0.value)"] }
            + [
                "--set", "white-coordinates-x=0.3127", "--set", "white-coordinates-y=0.329", "--set",
                "max-luminance=1000",
                "--set", "min-luminance=0.0001", "--set", "max-content-light=1000", "--set", "max-frame-light=400",
            ]
        let edit = try runExternal(["mkvpropedit", path, "--edit", "track:v1"] + set)
        XCTAssertEqual(edit.status, 0, edit.stderr)
        let probe = try ffprobe(path)
        func value(_ key: String) throws -> Double {
            let parts = try XCTUnwrap(probe[key], key).split(separator: "/").compactMap { Double($0) }
            return parts.count == 2 ? parts[0] / parts[1] : parts[0]
        }
        func xy(_ x: String, _ y: String, _ digits: Int) throws -> String {
            String(format: "%.\(digits)f,%.\(digits)f", try value(x), try value(y))
        }
        let expected =
            "R \(try xy("red_x", "red_y", 3)) G \(try xy("green_x", "green_y", 3)) B \(try xy("blue_x", "blue_y", 3)) "
            + "WP \(try xy("white_point_x", "white_point_y", 4)); "
            + "\(String(format: "%g", try value("min_luminance")))–\(String(format: "%g", try value("max_luminance"))) cd/m²"
        let text = fields(try runTool(["info", path]).stdoutText)
        XCTAssertEqual(text["mastering"], expected)
        XCTAssertEqual(
            text["light level"],
            "MaxCLL \(probe["max_content"] ?? "?") cd/m², MaxFALL \(probe["max_average"] ?? "?") cd/m²")
    }
}
