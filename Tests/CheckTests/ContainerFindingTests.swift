import Foundation
import XCTest

@testable import ProResCheck
@testable import ProResCore
@testable import ProResFFmpeg
@testable import TestSupport

/// Where a MOV's container and its frame headers disagree (field order,
/// colour, aspect ratio), a file cut short, and the rules that demand
/// agreement. Clips are made by the `ffmpeg` CLI and their boxes or frame
/// headers changed by hand here; ffprobe confirms what each file says.
final class ContainerFindingTests: XCTestCase {
    // nonisolated(unsafe): XCTest runs a class's tests one after another, on one thread.
    nonisolated(unsafe) private static var made: [String: String] = [:]

    private static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "container-findings-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A 6-frame clip: interlaced top field first (ffmpeg writes `fiel` 2, 9),
    /// BT.709 in frame headers and `colr`, SAR 16:15 (`pasp`), time code 10:00:00:00.
    private static func interlaced() throws -> Data {
        let path = try directory().appendingPathComponent("interlaced.mov").path
        if made["interlaced"] == nil {
            _ = try FrameTools.runProcess(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x96:rate=25", "-frames:v", "6", "-vf",
                    "setsar=16/15,setfield=tff", "-flags", "+ildct+ilme", "-pix_fmt", "yuv422p10le", "-c:v",
                    "prores_ks", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709",
                    "-timecode", "10:00:00:00", path,
                ])
            made["interlaced"] = path
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// `bytes` with the payload after the first `box` four-cc replaced from `offset`.
    private static func patched(_ bytes: Data, box: String, offset: Int, with new: [UInt8]) throws -> Data {
        var copy = bytes
        let at = try XCTUnwrap(copy.range(of: Data(box.utf8)), "no \(box) box").upperBound + offset
        copy.replaceSubrange(at..<at + new.count, with: new)
        return copy
    }

    private func write(_ bytes: Data, _ name: String) throws -> String {
        let path = try Self.directory().appendingPathComponent(name).path
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    private func ffprobe(_ path: String, _ entries: String) throws -> String {
        let out = try FrameTools.runProcess(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "default=nw=1:nk=1", path])
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func check(_ path: String, _ extra: [String] = []) throws -> ToolResult {
        try runTool(["check", path, "--decoder", "cpu"] + extra)
    }

    /// `fiel` rewritten to 2, 14 (interleaved, bottom field first): ffprobe
    /// reads the container as bottom first and the frames as top first.
    func testFieldOrderConflict() throws {
        let path = try write(
            try Self.patched(try Self.interlaced(), box: "fiel", offset: 0, with: [2, 14]), "bff-container.mov")
        XCTAssertEqual(try ffprobe(path, "stream=field_order"), "bt")
        XCTAssertEqual(try ffprobe(path, "frame=top_field_first").split(separator: "\n").first, "1")
        let words =
            "the container says bottom field first, the frame header says top field first; "
            + "decoding by the frame header"
        let result = try check(path)
        XCTAssertEqual(result.status, 15, "a WARN: " + result.stderr)
        XCTAssertTrue(result.stderr.contains("  warning: field order: " + words), result.stderr)
        let info = try runTool(["info", path])
        XCTAssertTrue(info.stdoutText.contains("note:         field order: " + words), info.stdoutText)

        let rule = try check(path, ["--expect", "field-order=tff"])
        XCTAssertEqual(rule.status, 10, rule.stderr)
        XCTAssertTrue(
            rule.stderr.contains(
                "expected field-order=tff, got top field first (frame header), bottom field first (container)"),
            rule.stderr)
        let consistent = try check(path, ["--expect", "consistent"])
        XCTAssertEqual(consistent.status, 10, consistent.stderr)
        XCTAssertTrue(consistent.stderr.contains("expected consistent=true, got field order: "), consistent.stderr)

        let agreeing = try write(try Self.interlaced(), "tff.mov")
        XCTAssertEqual(try ffprobe(agreeing, "stream=field_order"), "tb", "ffmpeg's own top-field-first writing")
        let holds = try check(agreeing, ["--expect", "field-order=tff,consistent,timecode=10:00:00:00"])
        XCTAssertEqual(holds.status, 0, holds.stderr)
        XCTAssertFalse(holds.stderr.contains("warning"), holds.stderr)
        let wrong = try check(agreeing, ["--expect", "field-order=bff,timecode=01:00:00:00", "--report", "-"])
        XCTAssertTrue(
            wrong.stdoutText.contains(
                #"{"rule":"field-order=bff","actual":"top field first (frame header), top field first (container)"}"#),
            wrong.stdoutText)
        XCTAssertTrue(
            wrong.stdoutText.contains(#"{"rule":"timecode=01:00:00:00","actual":"10:00:00:00"}"#), wrong.stdoutText)
    }

    /// Every frame header's byte at `offset` after its 'icpf' changed by `change`; the count of frames.
    private static func patchingFrameHeaders(_ bytes: inout Data, offset: Int, _ change: (UInt8) -> UInt8) -> Int {
        var from = bytes.startIndex
        var frames = 0
        while let found = bytes.range(of: Data("icpf".utf8), in: from..<bytes.endIndex) {
            bytes[found.upperBound + offset] = change(bytes[found.upperBound + offset])
            frames += 1
            from = found.upperBound
        }
        return frames
    }

    /// Every frame header's primaries set to BT.2020 (9); `colr` still says BT.709.
    func testColourConflict() throws {
        var bytes = try Self.interlaced()
        // After 'icpf': header size (2), version (2), creator (4), width (2), height (2), flags (1),
        // aspect ratio and frame rate (1), then primaries, transfer, matrix (RDD 36 §5.1).
        XCTAssertEqual(Self.patchingFrameHeaders(&bytes, offset: 14) { _ in 9 }, 6)
        let path = try write(bytes, "header-2020.mov")
        let colr = try XCTUnwrap(bytes.range(of: Data("colr".utf8))).upperBound
        XCTAssertEqual(Array(bytes[colr..<colr + 6]), Array("nclc".utf8) + [0, 1], "colr says bt709")
        let result = try check(path, ["--expect", "consistent", "--report", "-"])
        XCTAssertEqual(result.status, 10, result.stderr)
        let words = "colour: primaries: frame header says bt2020, container says bt709; using the frame header"
        XCTAssertTrue(result.stderr.contains("  warning: " + words), result.stderr)
        XCTAssertTrue(result.stderr.contains("expected consistent=true, got " + words), result.stderr)
    }

    /// Every frame header's aspect ratio code set to 3 (16:9) against `pasp` 16:15 (a 64:45 picture).
    func testAspectRatioConflict() throws {
        var bytes = try Self.interlaced()
        XCTAssertEqual(Self.patchingFrameHeaders(&bytes, offset: 13) { 3 << 4 | $0 & 0x0F }, 6)
        let path = try write(bytes, "aspect.mov")
        XCTAssertEqual(try ffprobe(path, "stream=sample_aspect_ratio"), "16:15")
        let result = try check(path)
        XCTAssertTrue(
            result.stderr.contains(
                "  warning: aspect ratio: the container says SAR 16:15 (a 64:45 picture), "
                    + "the frame header says a 16:9 picture; the container's is used"), result.stderr)
    }

    /// A faststart file cut inside its media: `info` notes it, `check` fails it and says why.
    func testTruncatedFaststartFile() throws {
        let whole = try Self.directory().appendingPathComponent("faststart.mov").path
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x96:rate=25", "-frames:v", "20",
                "-pix_fmt", "yuv422p10le", "-c:v", "prores_ks", "-movflags", "+faststart", whole,
            ])
        let path = try write(try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(100_000), "cut.mov")
        // The frames whose bytes end past 100,000, from ffprobe's packet positions and sizes.
        let packets = try ffprobe(whole, "packet=pos,size").split(separator: "\n").map { Int($0) ?? -1 }
        let ends = stride(from: 0, to: packets.count - 1, by: 2).map { packets[$0] + packets[$0 + 1] }
        let first = try XCTUnwrap(ends.firstIndex { $0 > 100_000 })
        let count = ends.filter { $0 > 100_000 }.count
        let words =
            "the file is cut short: the container's index lists \(count) frames, from frame \(first), "
            + "that end past its 100000 bytes"
        let info = try runTool(["info", path])
        XCTAssertTrue(info.stdoutText.contains("note:         " + words), info.stdoutText)
        let result = try check(path)
        XCTAssertEqual(result.status, 10, result.stderr)
        XCTAssertTrue(result.stderr.contains("  warning: truncation: " + words), result.stderr)
        let intact = try runTool(["info", whole])
        XCTAssertFalse(intact.stdoutText.contains("cut short"), intact.stdoutText)
    }

    /// `continuous` and `duration` on a clip with frames 9–11 dropped (made as TrackTimingTests makes it).
    func testContinuityAndDurationRules() throws {
        let path = try Self.directory().appendingPathComponent("gap.mov").path
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x96:rate=25", "-frames:v", "28", "-vf",
                "select='not(between(n\\,9\\,11))'", "-fps_mode", "passthrough", "-pix_fmt", "yuv422p10le", "-c:v",
                "prores_ks", path,
            ])
        // ffprobe: 28 frames over 1.24 s (31 frames' time at 25 fps).
        XCTAssertEqual(try ffprobe(path, "stream=duration"), "1.240000")
        let holds = try check(path, ["--expect", "duration=1.24,duration=1.24s,duration=28f,duration>=1.2"])
        XCTAssertEqual(holds.status, 15, "the rules hold; the gap is a warning: " + holds.stderr)
        let broken = try check(path, ["--expect", "continuous,duration=1.12,duration<28f", "--report", "-"])
        XCTAssertEqual(broken.status, 10, broken.stderr)
        // Every failed rule is in the report (stderr shows the first).
        let report = broken.stdoutText
        XCTAssertTrue(
            report.contains(
                #"{"rule":"continuous=true","actual":"timestamp gap: frame 9 at 0.480 s follows frame 8 at 0.320 s, "#
                    + #"3 frames' time missing"}"#), report)
        XCTAssertTrue(report.contains(#"{"rule":"duration=1.12","actual":"1.24s"}"#), report)
        XCTAssertTrue(report.contains(#"{"rule":"duration<28f","actual":"28f"}"#), report)
        for bad in ["duration=12x", "duration=1.5f", "field-order=top", "timecode=25:00:00:00", "timecode=soon"] {
            XCTAssertThrowsError(try ExpectRule(bad), bad)
        }
    }
}
