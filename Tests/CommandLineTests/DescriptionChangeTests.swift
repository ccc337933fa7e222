import Foundation
import XCTest

@testable import TestSupport

/// A clip whose frames change description mid-stream: bt709.mov's five
/// BT.709 frames, then pq.mov's five PQ (BT.2020) frames, joined by
/// ffmpeg's concat demuxer with `-c copy` (same size, profile and rate;
/// the container keeps bt709.mov's `colr`). Which frame is the first PQ one
/// comes from `ffprobe -show_frames`, not from us.
final class DescriptionChangeTests: XCTestCase {
    private func mixedClip() throws -> URL {
        let dir = try makeTemporaryDirectory(self)
        let list = dir.appendingPathComponent("list.txt")
        try "file '\(Repo.fixture("bt709.mov"))'\nfile '\(Repo.fixture("pq.mov"))'\n".write(
            to: list, atomically: true, encoding: .utf8)
        let mixed = dir.appendingPathComponent("mixed.mov")
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "concat", "-safe", "0", "-i", list.path,
                "-c", "copy", mixed.path,
            ])
        return mixed
    }

    /// Each frame's transfer as ffprobe reads it from the frame.
    private func ffprobeTransfers(_ clip: URL) throws -> [String] {
        let out = try FrameTools.runProcess(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_frames", "-show_entries",
                "frame=color_transfer", "-of", "csv=p=0", clip.path,
            ])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    private func firstPQFrame(_ clip: URL) throws -> Int {
        let transfers = try ffprobeTransfers(clip)
        XCTAssertEqual(transfers.first, "bt709")
        return try XCTUnwrap(transfers.firstIndex(of: "smpte2084"), "ffprobe sees no PQ frame: \(transfers)")
    }

    func testATransferRuleFailsNamingTheFirstPQFrameOnBothDecoders() throws {
        let mixed = try mixedClip()
        let first = try firstPQFrame(mixed)
        let last = try ffprobeTransfers(mixed).count - 1
        for decoder in ["cpu", "gpu"] {
            let result = try runTool(
                ["check", mixed.path, "--decoder", decoder, "--expect", "transfer=bt709"], timeout: 120)
            XCTAssertEqual(result.status, 10, "\(decoder): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains(
                    "FAIL \(mixed.path): expected transfer=bt709, got smpte2084 in frames \(first)–\(last)"),
                result.stderr)
        }
        // The rule holds on the frames that are PQ only where they all are.
        let pq = try runTool(["check", Repo.fixture("pq.mov"), "--expect", "transfer=pq"])
        XCTAssertEqual(pq.status, 0, pq.stderr)
        let half = try runTool(["check", mixed.path, "--expect", "transfer!=bt709"])
        XCTAssertEqual(half.status, 10, half.stderr)
        XCTAssertTrue(half.stderr.contains("got bt709 in frames 0–\(first - 1)"), half.stderr)
    }

    /// Without any rule the file passes, and every report names the change.
    func testEveryReportNamesTheChange() throws {
        let mixed = try mixedClip()
        let first = try firstPQFrame(mixed)
        let dir = mixed.deletingLastPathComponent()
        let json = dir.appendingPathComponent("r.json")
        let junit = dir.appendingPathComponent("r.xml")
        let html = dir.appendingPathComponent("r.html")
        let result = try runTool(
            ["check", mixed.path, "--report", json.path, "--junit", junit.path, "--html", html.path], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stdoutText + result.stderr)
        let change =
            "frame \(first): the description changes: primaries bt709 → bt2020, transfer bt709 → smpte2084, matrix bt709 → bt2020nc"
        XCTAssertTrue(result.stderr.contains("PASS \(mixed.path)\n  note: \(change)\n"), result.stderr)

        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        let file = try XCTUnwrap((report["files"] as? [[String: Any]])?.first)
        let changes = try XCTUnwrap(file["description_changes"] as? [[String: Any]], "\(file)")
        XCTAssertEqual(changes.count, 1)
        XCTAssertEqual(changes.first?["frame"] as? Int, first)
        XCTAssertEqual(
            changes.first?["changed"] as? String,
            "primaries bt709 → bt2020, transfer bt709 → smpte2084, matrix bt709 → bt2020nc")

        let xml = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<system-out>\(change)</system-out>"), xml)
        let page = try String(contentsOf: html, encoding: .utf8)
        XCTAssertTrue(page.contains("<li>\(change)</li>"), "the HTML page names the change")

        // A clip of one description carries no such key (the report is as it was).
        let plain = try runTool(["check", Repo.fixture("pq.mov"), "--report", "-"])
        XCTAssertFalse(plain.stdoutText.contains("description_changes"), plain.stdoutText)
    }

    func testConstantDescriptionFailsOnAnyChange() throws {
        let mixed = try mixedClip()
        let first = try firstPQFrame(mixed)
        for rule in ["constant-description", "constant-description=true"] {
            let result = try runTool(["check", mixed.path, "--expect", rule])
            XCTAssertEqual(result.status, 10, result.stderr)
            XCTAssertTrue(
                result.stderr.contains(
                    "expected constant-description=true, got frame \(first): primaries bt709 → bt2020"),
                result.stderr)
            for clip in ["pq.mov", "hq.mov", "interlaced-bff.mov"] {
                let steady = try runTool(["check", Repo.fixture(clip), "--expect", rule])
                XCTAssertEqual(steady.status, 0, "\(clip) \(rule): \(steady.stderr)")
            }
        }
        let inverse = try runTool(["check", Repo.fixture("hq.mov"), "--expect", "constant-description=false"])
        XCTAssertEqual(inverse.status, 10, inverse.stderr)
    }

    /// `info` reads frame headers spread over the stream and notes a change.
    func testInfoSaysWhenTheDescriptionChanges() throws {
        let mixed = try mixedClip()
        let first = try firstPQFrame(mixed)
        let note =
            "the description changes at frame \(first): primaries bt709 → bt2020, transfer bt709 → smpte2084, matrix bt709 → bt2020nc"
        let text = try runTool(["info", mixed.path])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdoutText.contains("note:         \(note)\n"), text.stdoutText)
        let json = try runTool(["info", "--json", mixed.path])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        XCTAssertEqual(object["notes"] as? [String], [note])
        let steady = try runTool(["info", Repo.fixture("pq.mov")])
        XCTAssertFalse(steady.stdoutText.contains("description changes"), steady.stdoutText)
    }
}
