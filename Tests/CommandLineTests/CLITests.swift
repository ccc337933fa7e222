import Foundation
import XCTest

@testable import TestSupport

/// End-to-end tests of the `prores-decode` command line: the built executable
/// runs as a child process and its exit status, stdout and stderr are checked
/// (swift-argument-parser style). Every expected checksum comes from
/// `Fixtures/ref/` (ffmpeg CLI / the independent python packer), and the
/// per-frame md5s of raw bytes are computed here with a self-contained MD5,
/// so nothing is checked against our own code.
final class CLITests: XCTestCase {

    // MARK: - Frame sizes, worked out by hand from the picture size

    /// hq.mov and the other 192x112 clips.
    static let width = 192, height = 112
    /// v216: one 8-byte group (Cb Y'0 Cr Y'1) per pixel pair: 96 * 8 * 112.
    static let v216FrameSize = (192 / 2) * 8 * 112  // 86016
    /// y416: 8 bytes (A Y' Cb Cr) per pixel: 192 * 8 * 112.
    static let y416FrameSize = 192 * 8 * 112  // 172032
    /// yuv422p10le: Y 192x112 + Cb, Cr 96x112 each, 2 bytes per sample.
    static let native422FrameSize = 192 * 112 * 2 + 2 * (96 * 112 * 2)  // 86016
    /// yuva444p12le: 4 full planes, 2 bytes per sample.
    static let native4444AlphaFrameSize = 4 * 192 * 112 * 2  // 172032

    // MARK: - Help and usage

    func testHelpExitsZeroAndListsEveryExitCode() throws {
        let result = try runTool(["--help"])
        XCTAssertEqual(result.status, 0, "--help must exit 0; stderr: \(result.stderr)")
        // Help is human text: the tool sends it to stderr; accept either stream.
        let text = result.stdoutText + result.stderr
        XCTAssertTrue(text.contains("USAGE") || text.lowercased().contains("usage"), "--help shows no usage:\n\(text)")
        let codes = exitCodeTable(text)
        for code in [0, 1, 2, 3, 4, 5, 6, 7, 9] {
            XCTAssertNotNil(
                codes[code], "--help does not list exit code \(code); listed: \(codes.keys.sorted())\n\(text)")
            XCTAssertFalse(codes[code]?.isEmpty ?? true, "--help lists exit code \(code) without saying what it means")
        }
        XCTAssertTrue(
            codes[9]?.lowercased().contains("interrupt") ?? false,
            "exit code 9 should be described as an interruption: \(codes[9] ?? "-")")
        XCTAssertTrue(
            codes[5]?.lowercased().contains("damaged") ?? false,
            "exit code 5 should mention damaged frames: \(codes[5] ?? "-")")
    }

    func testNoArgumentsPrintsUsageAndExitsTwo() throws {
        let result = try runTool([])
        XCTAssertEqual(result.status, 2, "no arguments is a usage error (exit 2); stderr: \(result.stderr)")
        XCTAssertTrue(result.stdout.isEmpty, "no arguments: nothing may go to stdout, got \(result.stdout.count) bytes")
        XCTAssertTrue(
            result.stderr.contains("USAGE") || result.stderr.lowercased().contains("usage"),
            "no arguments should print the usage on stderr, got:\n\(result.stderr)")
    }

    // MARK: - Strict parsing

    func testUnknownOption() throws {
        try assertUsageError(["--bogus", Repo.fixture("hq.mov")], naming: ["--bogus"])
        try assertUsageError([Repo.fixture("hq.mov"), "--bogus"], naming: ["--bogus"])
    }

    func testMissingValue() throws {
        try assertUsageError([Repo.fixture("hq.mov"), "--frames"], naming: ["--frames"])
        try assertUsageError([Repo.fixture("hq.mov"), "-o"], naming: ["-o"])
    }

    func testMalformedNumbers() throws {
        try assertUsageError([Repo.fixture("hq.mov"), "--frames", "abc"], naming: ["--frames", "abc"])
        try assertUsageError([Repo.fixture("hq.mov"), "--frames", "0"], naming: ["--frames", "0"])
        try assertUsageError([Repo.fixture("hq.mov"), "--threads", "-1"], naming: ["--threads", "-1"])
        try assertUsageError([Repo.fixture("hq.mov"), "--start", "1.5"], naming: ["--start", "1.5"])
        try assertUsageError([Repo.fixture("hq.mov"), "--frames=abc"], naming: ["--frames", "abc"])
    }

    /// As ffmpeg: a repeated single-value option takes its last value (a
    /// script appends an override), a repeated flag is simply set.
    func testRepeatedOptionLastOccurrenceWins() throws {
        let result = try runTool([
            Repo.fixture("hq.mov"), "--frames", "1", "--format", "y416", "--frames", "2",
            "--format", "native", "--framemd5", "-", "--quiet", "--quiet",
        ])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertEqual(result.stderr, "", "--quiet twice is still quiet")
        XCTAssertEqual(
            md5Column(result.stdoutText), Array(try ffmpegFrameMD5s("hq.mov").prefix(2)),
            "the last --frames (2) and --format (native) must win")
    }

    func testUnexpectedSecondPositional() throws {
        try assertUsageError([Repo.fixture("hq.mov"), Repo.fixture("lt.mov")], naming: [Repo.fixture("lt.mov")])
    }

    func testBadFormat() throws {
        try assertUsageError([Repo.fixture("hq.mov"), "--format", "xyz"], naming: ["--format", "xyz"])
    }

    func testTwoOutputsOnStdout() throws {
        try assertUsageError([Repo.fixture("hq.mov"), "-o", "-", "--framemd5", "-"], naming: ["-o", "--framemd5"])
        try assertUsageError(
            [Repo.fixture("hq.mov"), "--framemd5", "-", "--timing", "-"], naming: ["--framemd5", "--timing"])
    }

    func testTrackOutOfRange() throws {
        try assertUsageError([Repo.fixture("hq.mov"), "--track", "1"], naming: ["--track"])
        try assertUsageError(["info", Repo.fixture("hq.mov"), "--track", "1"], naming: ["--track"])
    }

    // MARK: - stdout carries only data: --framemd5 -

    func testFrameMD5ToStdoutNative() throws {
        try assertFrameMD5OnStdout(
            clip: "hq.mov", format: "native", frameSize: Self.native422FrameSize,
            expected: try ffmpegFrameMD5s("hq.mov"))
    }

    func testFrameMD5ToStdoutV216() throws {
        try assertFrameMD5OnStdout(
            clip: "hq.mov", format: "v216", frameSize: Self.v216FrameSize,
            expected: try packedReferenceMD5s("hq.mov", layout: "v216"))
    }

    func testFrameMD5ToStdoutY416() throws {
        try assertFrameMD5OnStdout(
            clip: "hq.mov", format: "y416", frameSize: Self.y416FrameSize,
            expected: try packedReferenceMD5s("hq.mov", layout: "y416"))
    }

    func testFrameMD5DefaultFormatIsTheNativePlanes() throws {
        // Without --format, the frames ffmpeg's framemd5 hashes (yuv422p10le, yuva444p12le).
        try assertFrameMD5OnStdout(
            clip: "hq.mov", format: nil, frameSize: Self.native422FrameSize,
            expected: try ffmpegFrameMD5s("hq.mov"))
        try assertFrameMD5OnStdout(
            clip: "4444.mov", format: nil, frameSize: 192 * 112 * 2 * 4,
            expected: try ffmpegFrameMD5s("4444.mov"))
    }

    // MARK: - stdout carries only data: -o -

    func testRawToStdoutNative() throws {
        try assertRawOnStdout(
            clip: "hq.mov", format: "native", frameSize: Self.native422FrameSize,
            expected: try ffmpegFrameMD5s("hq.mov"))
    }

    func testRawToStdoutV216() throws {
        try assertRawOnStdout(
            clip: "hq.mov", format: "v216", frameSize: Self.v216FrameSize,
            expected: try packedReferenceMD5s("hq.mov", layout: "v216"))
    }

    func testRawToStdoutY416() throws {
        try assertRawOnStdout(
            clip: "hq.mov", format: "y416", frameSize: Self.y416FrameSize,
            expected: try packedReferenceMD5s("hq.mov", layout: "y416"))
    }

    func testRawToStdout4444() throws {
        try assertRawOnStdout(
            clip: "4444.mov", format: "native", frameSize: Self.native4444AlphaFrameSize,
            expected: try ffmpegFrameMD5s("4444.mov"))
        try assertRawOnStdout(
            clip: "4444.mov", format: "y416", frameSize: Self.y416FrameSize,
            expected: try packedReferenceMD5s("4444.mov", layout: "y416"))
    }

    // MARK: - -o FILE

    func testOutputFileIsWrittenAtomicallyAndNotOverwrittenWithoutOverwrite() throws {
        let dir = try makeTemporaryDirectory(self)
        let out = dir.appendingPathComponent("out.raw")

        let first = try runTool([Repo.fixture("hq.mov"), "-o", out.path, "--format", "v216"])
        XCTAssertEqual(first.status, 0, "first -o run failed: \(first.stderr)")
        XCTAssertTrue(first.stdout.isEmpty, "-o FILE: stdout must stay empty, got \(first.stdout.count) bytes")
        let written = try Data(contentsOf: out)
        XCTAssertEqual(
            written.count, 5 * Self.v216FrameSize, "out.raw should hold 5 v216 frames of \(Self.v216FrameSize) bytes")
        XCTAssertEqual(
            CLITestMD5.frameHexes(written, frameSize: Self.v216FrameSize),
            try packedReferenceMD5s("hq.mov", layout: "v216"), "out.raw frames differ from the python v216 reference")
        XCTAssertEqual(try directoryEntries(dir), ["out.raw"], "only out.raw may be left (no .part / dot temporaries)")

        // Without --overwrite: exit 6, one error line, original untouched
        // (y416 would produce different bytes, so a silent overwrite shows).
        let second = try runTool([Repo.fixture("hq.mov"), "-o", out.path, "--format", "y416"])
        XCTAssertEqual(
            second.status, 6, "an existing output without --overwrite must fail with exit 6; stderr: \(second.stderr)")
        let errors = errorLines(second.stderr)
        XCTAssertEqual(errors.count, 1, "expected exactly one error line, got:\n\(second.stderr)")
        XCTAssertTrue(errors.first?.contains("out.raw") ?? false, "the error should name the output file: \(errors)")
        XCTAssertTrue(
            errors.first?.contains("--overwrite") ?? false, "the error should point at --overwrite: \(errors)")
        XCTAssertEqual(try Data(contentsOf: out), written, "the refused run changed the existing file")
        XCTAssertEqual(try directoryEntries(dir), ["out.raw"], "the refused run left something behind")

        // With --overwrite it is replaced.
        let third = try runTool([Repo.fixture("hq.mov"), "-o", out.path, "--format", "y416", "--overwrite"])
        XCTAssertEqual(third.status, 0, "--overwrite run failed: \(third.stderr)")
        let replaced = try Data(contentsOf: out)
        XCTAssertEqual(replaced.count, 5 * Self.y416FrameSize, "--overwrite: out.raw should now hold 5 y416 frames")
        XCTAssertEqual(
            CLITestMD5.frameHexes(replaced, frameSize: Self.y416FrameSize),
            try packedReferenceMD5s("hq.mov", layout: "y416"),
            "--overwrite: replaced frames differ from the y416 reference")
        XCTAssertEqual(try directoryEntries(dir), ["out.raw"], "--overwrite left temporaries behind")
    }

    func testAllThreeFileOutputsTogether() throws {
        let dir = try makeTemporaryDirectory(self)
        let raw = dir.appendingPathComponent("a.raw")
        let md5 = dir.appendingPathComponent("a.md5")
        let timing = dir.appendingPathComponent("a.jsonl")
        let result = try runTool([
            Repo.fixture("hq.mov"), "-o", raw.path, "--framemd5", md5.path, "--timing", timing.path, "--format",
            "native",
        ])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertTrue(result.stdout.isEmpty, "file outputs only: stdout must be empty")
        XCTAssertEqual(try directoryEntries(dir), ["a.jsonl", "a.md5", "a.raw"], "unexpected directory contents")
        let expected = try ffmpegFrameMD5s("hq.mov")
        XCTAssertEqual(
            md5Column(try String(contentsOf: md5, encoding: .utf8)), expected, "--framemd5 FILE md5s differ from ffmpeg"
        )
        XCTAssertEqual(
            CLITestMD5.frameHexes(try Data(contentsOf: raw), frameSize: Self.native422FrameSize), expected,
            "-o FILE frames differ from ffmpeg")
    }

    // MARK: - --json

    func testJSONSummaryOnStdout() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--json"])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        let object = try parseJSONObject(result.stdoutText, what: "--json stdout")
        assertSummary(object, frames: 5)
        XCTAssertFalse(
            result.stderr.contains("{\""),
            "--json without data on stdout: the JSON belongs on stdout only, stderr:\n\(result.stderr)")
    }

    func testJSONSummaryGoesToStderrWhenStdoutCarriesData() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--json", "-o", "-"])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertEqual(
            result.stdout.count, 5 * Self.v216FrameSize, "with -o -, stdout must be exactly the 5 v216 frames")
        XCTAssertEqual(
            CLITestMD5.frameHexes(result.stdout, frameSize: Self.v216FrameSize),
            try packedReferenceMD5s("hq.mov", layout: "v216"), "the JSON must not corrupt the frames on stdout")
        let jsonLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        XCTAssertEqual(jsonLines.count, 1, "expected the JSON summary as one line on stderr, stderr:\n\(result.stderr)")
        if let line = jsonLines.first {
            assertSummary(try parseJSONObject(String(line), what: "--json stderr line"), frames: 5)
        }
    }

    func testJSONSummaryGoesToStderrWithFrameMD5OnStdout() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--json", "--framemd5", "-", "--format", "native"])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertEqual(
            md5Column(result.stdoutText), try ffmpegFrameMD5s("hq.mov"), "stdout must be only the framemd5 lines")
        XCTAssertFalse(
            result.stdoutText.contains("{"), "JSON leaked onto stdout next to --framemd5 -:\n\(result.stdoutText)")
        let jsonLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        XCTAssertEqual(jsonLines.count, 1, "expected the JSON summary on stderr:\n\(result.stderr)")
    }

    // MARK: - --timing

    func testTimingFileHasOneObjectPerFrame() throws {
        let dir = try makeTemporaryDirectory(self)
        let timing = dir.appendingPathComponent("timing.jsonl")
        let result = try runTool([Repo.fixture("hq.mov"), "--timing", timing.path])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertEqual(try directoryEntries(dir), ["timing.jsonl"], "temporaries left beside the timing file")
        let lines = try String(contentsOf: timing, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: true)
        XCTAssertEqual(lines.count, 5, "one JSON line per frame expected, got:\n\(lines.joined(separator: "\n"))")
        for (position, line) in lines.enumerated() {
            let object = try parseJSONObject(String(line), what: "timing line \(position)")
            for key in ["frame", "pts", "status", "demux_us", "decode_us", "pack_us", "output_us", "latency_us"] {
                XCTAssertNotNil(object[key], "timing line \(position) lacks '\(key)': \(line)")
            }
            XCTAssertEqual(
                (object["frame"] as? NSNumber)?.intValue, position,
                "timing lines must be frames 0..n-1 in order: \(line)")
            XCTAssertEqual(object["status"] as? String, "ok", "hq.mov decodes cleanly: \(line)")
            for key in ["demux_us", "decode_us", "pack_us", "output_us", "latency_us"] {
                let value = (object[key] as? NSNumber)?.doubleValue ?? -1
                XCTAssertGreaterThanOrEqual(value, 0, "'\(key)' should be a non-negative number: \(line)")
            }
            XCTAssertNotNil(object["pts"] as? NSNumber, "pts should be a number for hq.mov: \(line)")
        }
    }

    func testTimingToStdout() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--timing", "-", "--start", "2"])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, "--start 2 on 5 frames: 3 timing lines on stdout, got:\n\(result.stdoutText)")
        let frames = try lines.map {
            (try parseJSONObject(String($0), what: "timing line")["frame"] as? NSNumber)?.intValue
        }
        XCTAssertEqual(frames, [2, 3, 4], "timing frame indices with --start 2")
    }

    // MARK: - --start / --frames

    func testStartAndFramesMOV() throws { try assertStartFrames(clip: "hq.mov") }
    func testStartAndFramesMXF() throws { try assertStartFrames(clip: "hq.mxf") }
    func testStartAndFramesElementaryStream() throws { try assertStartFrames(clip: "hq.prores") }

    func testStartPastTheEnd() throws {
        for clip in ["hq.mov", "hq.mxf", "hq.prores"] {
            let result = try runTool([Repo.fixture(clip), "--start", "5", "--framemd5", "-"])
            XCTAssertEqual(
                result.status, 2, "\(clip) --start 5 (5 frames) must be a usage error; stderr: \(result.stderr)")
            XCTAssertEqual(
                stdoutDataLines(result), 0, "\(clip) --start 5: no frames may be written:\n\(result.stdoutText)")
            let errors = errorLines(result.stderr)
            XCTAssertEqual(errors.count, 1, "\(clip) --start 5: expected one error line:\n\(result.stderr)")
            XCTAssertEqual(
                result.stderr.split(separator: "\n").count, 1,
                "\(clip) --start 5: the error alone, no notes before it:\n\(result.stderr)")
            XCTAssertTrue(
                errors.first?.contains("--start") ?? false, "\(clip): the error should name --start: \(errors)")
        }
    }

    /// A usage error found after the outputs were opened (--start past the
    /// end) must still leave stdout empty, like every other usage error:
    /// a `#format` header with no frames is not data.
    func testStartPastTheEndWritesNothingToStdout() throws {
        for output in ["--framemd5", "--timing"] {
            let result = try runTool([Repo.fixture("hq.mov"), "--start", "5", output, "-"])
            XCTAssertEqual(result.status, 2, "stderr: \(result.stderr)")
            XCTAssertEqual(result.stdoutText, "", "hq.mov --start 5 \(output) -: exit 2 but stdout carries output")
        }
    }

    // MARK: - stdin

    func testStdinElementaryStreamIsBitExact() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))
        let result = try runTool(["-", "--framemd5", "-", "--format", "native"], stdin: bytes)
        XCTAssertEqual(result.status, 0, "hq.prores on stdin failed: \(result.stderr)")
        XCTAssertEqual(
            md5Column(result.stdoutText), try ffmpegFrameMD5s("hq.prores"), "hq.prores via stdin is not bit-exact")
    }

    func testStdinMOVIsBitExact() throws {
        // hq.mov has its moov at the end: reading it from a pipe needs buffering.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.mov")))
        let result = try runTool(["-", "--framemd5", "-", "--format", "native"], stdin: bytes)
        XCTAssertEqual(result.status, 0, "hq.mov on stdin failed: \(result.stderr)")
        XCTAssertEqual(md5Column(result.stdoutText), try ffmpegFrameMD5s("hq.mov"), "hq.mov via stdin is not bit-exact")
    }

    func testStdinRawOutputIsBitExact() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture("hq.prores")))
        let result = try runTool(["-", "-o", "-", "--format", "v216"], stdin: bytes)
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertEqual(result.stdout.count, 5 * Self.v216FrameSize, "stdin -> stdout: byte count")
        XCTAssertEqual(
            CLITestMD5.frameHexes(result.stdout, frameSize: Self.v216FrameSize),
            try packedReferenceMD5s("hq.prores", layout: "v216"),
            "stdin -> stdout frames differ from the v216 reference")
    }

    // MARK: - Format conversion warning

    func testConversionWarningFor422ToY416() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--format", "y416"])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        let warnings = warningLines(result.stderr)
        XCTAssertEqual(
            warnings.count, 1,
            "expected exactly one warning line for a 4:2:2 -> y416 conversion, stderr:\n\(result.stderr)")
        if let warning = warnings.first {
            XCTAssertTrue(warning.contains("y416"), "the warning should name the requested layout: \(warning)")
            XCTAssertTrue(
                warning.lowercased().contains("conversion") || warning.lowercased().contains("convert"),
                "the warning should mention the conversion: \(warning)")
        }
    }

    func testNoConversionWarningForNativeLayout() throws {
        for extra in [[], ["--format", "v216"], ["--format", "native"]] {
            let result = try runTool([Repo.fixture("hq.mov")] + extra)
            XCTAssertEqual(result.status, 0, "\(extra): stderr: \(result.stderr)")
            XCTAssertEqual(
                warningLines(result.stderr), [], "hq.mov \(extra) needs no conversion, yet warned:\n\(result.stderr)")
        }
        let alpha = try runTool([Repo.fixture("4444.mov"), "--format", "y416"])
        XCTAssertEqual(
            warningLines(alpha.stderr), [], "4444.mov as y416 needs no conversion, yet warned:\n\(alpha.stderr)")
    }

    func testConversionWarningFor444ToV216() throws {
        let result = try runTool([Repo.fixture("4444.mov"), "--format", "v216"])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        let warnings = warningLines(result.stderr)
        XCTAssertEqual(
            warnings.count, 1, "expected exactly one warning line for 4:4:4 -> v216, stderr:\n\(result.stderr)")
        if let warning = warnings.first {
            XCTAssertTrue(warning.contains("v216"), "the warning should name the requested layout: \(warning)")
            XCTAssertTrue(
                warning.lowercased().contains("conversion") || warning.lowercased().contains("convert"),
                "the warning should mention the conversion: \(warning)")
        }
    }

    func testQuietSilencesStderr() throws {
        let result = try runTool([Repo.fixture("hq.mov"), "--format", "y416", "--quiet"])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertEqual(result.stderr, "", "--quiet: no warnings, notes or summary expected")
    }

    // MARK: - info

    func testInfoPQ() throws {
        let row = try tagsRow("pq.mov")
        let json = try infoJSON("pq.mov")
        let color = json["color"] as? [String: Any] ?? [:]
        for (key, column, code) in [
            ("primaries", "frame_color_primaries", "hdr_primaries"),
            ("transfer", "frame_color_transfer", "hdr_transfer"),
            ("matrix", "frame_color_space", "hdr_matrix"),
        ] {
            let tag = color[key] as? [String: Any] ?? [:]
            XCTAssertEqual(
                tag["value"] as? String, row[column], "pq.mov info --json color.\(key).value vs ffprobe \(column)")
            XCTAssertEqual(
                (tag["code"] as? NSNumber)?.intValue, Int(row[code] ?? ""),
                "pq.mov color.\(key).code vs frame header \(code)")
            XCTAssertEqual(
                tag["source"] as? String, "bitstream", "pq.mov color.\(key) comes from the ProRes frame header")
        }
        // Spelled out once, as the brief states them.
        XCTAssertEqual(row["frame_color_transfer"], "smpte2084")
        XCTAssertEqual(row["frame_color_primaries"], "bt2020")
        XCTAssertEqual(row["frame_color_space"], "bt2020nc")

        let text = try infoText("pq.mov")
        XCTAssertEqual(text["transfer"], "smpte2084 (bitstream)", "pq.mov info text transfer line")
        XCTAssertEqual(text["primaries"], "bt2020 (bitstream)", "pq.mov info text primaries line")
        XCTAssertEqual(text["matrix"], "bt2020nc (bitstream)", "pq.mov info text matrix line")
    }

    func testInfoUntaggedIsFallback() throws {
        let row = try tagsRow("hq.mov")
        XCTAssertEqual(row["hdr_primaries"], "2", "precondition: hq.mov is untagged (code 2) per tags.tsv")
        let json = try infoJSON("hq.mov")
        let color = json["color"] as? [String: Any] ?? [:]
        for key in ["primaries", "transfer", "matrix"] {
            let tag = color[key] as? [String: Any] ?? [:]
            XCTAssertEqual(
                tag["source"] as? String, "fallback",
                "hq.mov is untagged: color.\(key).source must be fallback, got \(tag)")
            XCTAssertNotEqual(tag["value"] as? String, "unknown", "a fallback must choose a concrete value for \(key)")
        }
        let text = try infoText("hq.mov")
        for key in ["primaries", "transfer", "matrix"] {
            XCTAssertTrue(
                text[key]?.hasSuffix("(fallback)") ?? false,
                "hq.mov info text '\(key)' should say (fallback): \(text[key] ?? "missing")")
        }
    }

    func testInfo4444Alpha() throws {
        let row = try tagsRow("4444.mov")
        let json = try infoJSON("4444.mov")
        XCTAssertEqual(json["alpha"] as? Bool, true, "4444.mov carries alpha")
        XCTAssertEqual(
            (json["alpha_bits"] as? NSNumber)?.intValue, alphaBits(row),
            "4444.mov alpha_bits vs header alpha_info \(row["hdr_alpha_info"] ?? "-")")
        XCTAssertEqual((json["alpha_bits"] as? NSNumber)?.intValue, 16)
        XCTAssertEqual(json["chroma"] as? String, chroma(row), "4444.mov chroma vs header chroma code")
        XCTAssertEqual(json["chroma"] as? String, "4:4:4")
        XCTAssertEqual(json["native_format"] as? String, row["pix_fmt"], "4444.mov native_format vs ffprobe pix_fmt")
        XCTAssertEqual(json["native_format"] as? String, "yuva444p12le")
        XCTAssertEqual(json["fourcc"] as? String, row["codec_tag_string"], "4444.mov fourcc")

        let text = try infoText("4444.mov")
        XCTAssertTrue(
            text["alpha"]?.contains("16-bit") ?? false, "4444.mov info text alpha line: \(text["alpha"] ?? "missing")")
        XCTAssertTrue(
            text["chroma"]?.hasPrefix("4:4:4") ?? false,
            "4444.mov info text chroma line: \(text["chroma"] ?? "missing")")
        XCTAssertTrue(
            text["native"]?.hasPrefix("yuva444p12le") ?? false,
            "4444.mov info text native line: \(text["native"] ?? "missing")")
    }

    func testInfoFieldOrder() throws {
        for (clip, expected) in [
            ("interlaced-tff.mov", "top field first"), ("interlaced-bff.mov", "bottom field first"),
            ("hq.mov", "progressive"),
        ] {
            let row = try tagsRow(clip)
            XCTAssertEqual(fieldOrder(row), expected, "precondition: tags.tsv hdr_interlace for \(clip)")
            let json = try infoJSON(clip)
            XCTAssertEqual(json["field_order"] as? String, expected, "\(clip) info --json field_order")
            XCTAssertEqual(try infoText(clip)["field order"], expected, "\(clip) info text field order line")
        }
    }

    func testInfoElementaryStreamHasNoFourCC() throws {
        let json = try infoJSON("hq.prores")
        XCTAssertTrue(
            json["fourcc"] is NSNull,
            "a raw elementary stream has no fourcc: expected null, got \(json["fourcc"] ?? "missing")")
        let notes = json["notes"] as? [String] ?? []
        XCTAssertEqual(notes.count, 1, "hq.prores: expected one note explaining the unknown profile, got \(notes)")
        XCTAssertTrue(
            notes.first?.lowercased().contains("profile") ?? false,
            "the note should explain the profile is unknown: \(notes)")
        XCTAssertTrue(notes.first?.lowercased().contains("unknown") ?? false, "the note should say 'unknown': \(notes)")
        XCTAssertTrue(json["profile"] is NSNull, "no FourCC, no short profile name: \(json["profile"] ?? "missing")")
        XCTAssertTrue(
            (json["profile_name"] as? String)?.lowercased().contains("unknown") ?? false,
            "profile name: \(json["profile_name"] ?? "missing")")

        let result = try runTool(["info", Repo.fixture("hq.prores")])
        XCTAssertEqual(result.status, 0, "stderr: \(result.stderr)")
        XCTAssertTrue(
            result.stdoutText.split(separator: "\n").contains {
                $0.hasPrefix("note:") && $0.lowercased().contains("profile")
            },
            "info text for hq.prores should carry a note about the profile:\n\(result.stdoutText)")
    }

    /// Every clip in tags.tsv: picture facts and colour tags agree with ffprobe
    /// and the header bytes that `make_tags.py` read straight from the file.
    func testInfoAgreesWithTagsTSVForEveryClip() throws {
        let table = try Self.tagsTable()
        XCTAssertGreaterThan(table.count, 10, "tags.tsv looks empty")
        for (clip, row) in table.sorted(by: { $0.key < $1.key }) {
            let json = try infoJSON(clip)
            XCTAssertEqual((json["width"] as? NSNumber)?.intValue, Int(row["width"] ?? ""), "\(clip) width")
            XCTAssertEqual((json["height"] as? NSNumber)?.intValue, Int(row["height"] ?? ""), "\(clip) height")
            XCTAssertEqual(
                (json["frame_count"] as? NSNumber)?.intValue, Int(row["nb_read_frames"] ?? ""), "\(clip) frame_count")
            XCTAssertEqual(json["chroma"] as? String, chroma(row), "\(clip) chroma")
            XCTAssertEqual((json["alpha_bits"] as? NSNumber)?.intValue, alphaBits(row), "\(clip) alpha_bits")
            XCTAssertEqual(json["alpha"] as? Bool, alphaBits(row) > 0, "\(clip) alpha")
            XCTAssertEqual(json["field_order"] as? String, fieldOrder(row), "\(clip) field_order")
            XCTAssertEqual(json["creator"] as? String, row["hdr_creator"], "\(clip) creator")
            if let pixfmt = row["pix_fmt"], pixfmt != "-" {
                XCTAssertEqual(json["native_format"] as? String, pixfmt, "\(clip) native_format")
            }
            if let fourcc = row["codec_tag_string"], fourcc != "-" {
                XCTAssertEqual(json["fourcc"] as? String, fourcc, "\(clip) fourcc")
            } else {
                XCTAssertTrue(json["fourcc"] is NSNull, "\(clip) has no fourcc: expected null")
            }
            let color = json["color"] as? [String: Any] ?? [:]
            for (key, column, code) in [
                ("primaries", "frame_color_primaries", "hdr_primaries"),
                ("transfer", "frame_color_transfer", "hdr_transfer"),
                ("matrix", "frame_color_space", "hdr_matrix"),
            ] {
                let tag = color[key] as? [String: Any] ?? [:]
                let headerCode = Int(row[code] ?? "") ?? -1
                if headerCode != 2 && headerCode != 0 {
                    XCTAssertEqual(tag["source"] as? String, "bitstream", "\(clip) color.\(key).source")
                    XCTAssertEqual((tag["code"] as? NSNumber)?.intValue, headerCode, "\(clip) color.\(key).code")
                    XCTAssertEqual(tag["value"] as? String, row[column], "\(clip) color.\(key).value vs ffprobe")
                } else {
                    XCTAssertEqual(tag["source"] as? String, "fallback", "\(clip) is untagged: color.\(key).source")
                }
            }
        }
    }

    // MARK: - Helpers: assertions

    private func assertUsageError(
        _ arguments: [String], naming needles: [String],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try runTool(arguments, timeout: 30, file: file, line: line)
        XCTAssertEqual(result.reason, .exit, "\(arguments): died from signal \(result.status)", file: file, line: line)
        XCTAssertEqual(
            result.status, 2, "\(arguments): expected usage exit 2, stderr: \(result.stderr)", file: file, line: line)
        XCTAssertTrue(
            result.stdout.isEmpty, "\(arguments): nothing may go to stdout on a usage error, got: \(result.stdoutText)",
            file: file, line: line)
        assertSingleError(result, mentions: needles, "\(arguments)", file: file, line: line)
    }

    private func assertFrameMD5OnStdout(
        clip: String, format: String?, frameSize: Int, expected: [String],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let arguments = [Repo.fixture(clip), "--framemd5", "-"] + (format.map { ["--format", $0] } ?? [])
        let result = try runTool(arguments, file: file, line: line)
        XCTAssertEqual(
            result.status, 0, "\(clip) \(format ?? "default"): stderr: \(result.stderr)", file: file, line: line)
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.last, "", "--framemd5 output should end with a newline", file: file, line: line)
        let body = lines.dropLast()
        // FFmpeg's framemd5 header (bitexact: no #software line), then only
        // data; a packed layout is named in one more line.
        let packed = format.map { $0 != "native" } ?? false
        let headerLines = packed ? 10 : 9
        XCTAssertEqual(
            body.prefix(headerLines).filter { $0.hasPrefix("#") }.count, headerLines,
            "\(headerLines) '#' header lines expected first:\n\(result.stdoutText)", file: file, line: line)
        XCTAssertEqual(body.first, "#format: frame checksums", file: file, line: line)
        XCTAssertEqual(
            body.contains("#layout: \(format ?? "")"), packed, "the #layout line:\n\(result.stdoutText)", file: file,
            line: line)
        XCTAssertEqual(
            body[headerLines - 1], "#stream#, dts,        pts, duration,     size, hash", file: file, line: line)
        let rows = body.dropFirst(headerLines)
        var md5s: [String] = []
        for (position, row) in rows.enumerated() {
            let fields = row.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 6 else {
                XCTFail(
                    "stdout line '\(row)' is not '0, dts, pts, duration, size, md5' (stdout must carry only data)",
                    file: file, line: line)
                continue
            }
            XCTAssertEqual(fields[0], "0", "stream column: \(row)", file: file, line: line)
            XCTAssertEqual(Int(fields[1]), position, "dts column (frames at 1/fps): \(row)", file: file, line: line)
            XCTAssertEqual(Int(fields[2]), position, "pts column (frames at 1/fps): \(row)", file: file, line: line)
            XCTAssertEqual(Int(fields[3]), 1, "duration column: \(row)", file: file, line: line)
            XCTAssertEqual(
                Int(fields[4]), frameSize, "size column for \(clip) as \(format ?? "default"): \(row)", file: file,
                line: line)
            XCTAssertTrue(
                fields[5].count == 32 && fields[5].allSatisfy { $0.isHexDigit && !$0.isUppercase },
                "md5 column is not 32 lowercase hex digits: \(row)", file: file, line: line)
            md5s.append(fields[5])
        }
        XCTAssertEqual(
            md5s, expected, "\(clip) --framemd5 - \(format ?? "default") differs from the reference", file: file,
            line: line)
        // The human summary is on stderr, not stdout.
        XCTAssertTrue(
            result.stderr.contains("fps"), "the human summary should be on stderr:\n\(result.stderr)", file: file,
            line: line)
        XCTAssertFalse(
            result.stdoutText.contains("fps") || result.stdoutText.contains("prores-decode:"),
            "human text leaked onto stdout:\n\(result.stdoutText)", file: file, line: line)
    }

    private func assertRawOnStdout(
        clip: String, format: String, frameSize: Int, expected: [String],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try runTool([Repo.fixture(clip), "-o", "-", "--format", format], file: file, line: line)
        XCTAssertEqual(result.status, 0, "\(clip) -o - \(format): stderr: \(result.stderr)", file: file, line: line)
        XCTAssertEqual(
            result.stdout.count, expected.count * frameSize,
            "\(clip) -o - \(format): stdout must be exactly \(expected.count) frames x \(frameSize) bytes",
            file: file, line: line)
        XCTAssertEqual(
            CLITestMD5.frameHexes(result.stdout, frameSize: frameSize), expected,
            "\(clip) -o - \(format): per-frame md5 of stdout differs from the reference", file: file, line: line)
        XCTAssertTrue(
            result.stderr.contains("fps"), "the human summary should be on stderr:\n\(result.stderr)", file: file,
            line: line)
    }

    private func assertStartFrames(clip: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let reference = try ffmpegFrameMD5s(clip)
        for (start, count) in [(1, 3), (0, 2), (4, 1), (3, 10)] {
            let result = try runTool(
                [
                    Repo.fixture(clip), "--start", "\(start)", "--frames", "\(count)", "--framemd5", "-", "--format",
                    "native",
                ],
                file: file, line: line)
            XCTAssertEqual(
                result.status, 0, "\(clip) --start \(start) --frames \(count): stderr: \(result.stderr)", file: file,
                line: line)
            let end = min(start + count, reference.count)
            XCTAssertEqual(
                md5Column(result.stdoutText), Array(reference[start..<end]),
                "\(clip) --start \(start) --frames \(count): md5s should be reference frames \(start)..<\(end)",
                file: file, line: line)
            let indices = result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
                .map { Int($0.split(separator: ",")[2].trimmingCharacters(in: .whitespaces)) }
            XCTAssertEqual(
                indices, Array(start..<end).map { Optional($0) },
                "\(clip) --start \(start): the pts column (frames at 1/fps) should count from the file's frame \(start)",
                file: file, line: line)
        }
    }

    private func assertSummary(_ object: [String: Any], frames: Int, file: StaticString = #filePath, line: UInt = #line)
    {
        XCTAssertEqual(
            (object["frames_read"] as? NSNumber)?.intValue, frames, "summary frames_read: \(object)", file: file,
            line: line)
        XCTAssertNotNil(
            object["fps"] as? NSNumber, "summary fps should be a number: \(object["fps"] ?? "missing")", file: file,
            line: line)
        guard let stages = object["stages_us"] as? [String: Any] else {
            return XCTFail("summary lacks a stages_us object: \(object)", file: file, line: line)
        }
        for stage in ["demux", "decode", "pack", "output", "latency"] {
            guard let stats = stages[stage] as? [String: Any] else {
                XCTFail("stages_us lacks '\(stage)': \(stages)", file: file, line: line)
                continue
            }
            for percentile in ["p50", "p95", "p99"] {
                XCTAssertNotNil(
                    stats[percentile] as? NSNumber, "stages_us.\(stage).\(percentile) should be a number: \(stats)",
                    file: file, line: line)
            }
            if let p50 = (stats["p50"] as? NSNumber)?.doubleValue, let p95 = (stats["p95"] as? NSNumber)?.doubleValue,
                let p99 = (stats["p99"] as? NSNumber)?.doubleValue
            {
                XCTAssertTrue(
                    p50 <= p95 && p95 <= p99, "stages_us.\(stage): percentiles must be ordered: \(stats)", file: file,
                    line: line)
            }
        }
    }

    // MARK: - Helpers: parsing

    /// `code -> meaning` from the EXIT CODES section of the help text.
    private func exitCodeTable(_ help: String) -> [Int: String] {
        guard let section = help.range(of: "EXIT CODES") else { return [:] }
        var table: [Int: String] = [:]
        for line in help[section.upperBound...].split(separator: "\n") {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            if parts.count == 2, let code = Int(parts[0]) {
                table[code] = parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return table
    }

    private func errorLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("prores-decode: error:") }
    }

    private func warningLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.lowercased().contains("warning") }
    }

    private func stdoutDataLines(_ result: ToolResult) -> Int {
        result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    }

    private func directoryEntries(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    private func parseJSONObject(_ text: String, what: String, file: StaticString = #filePath, line: UInt = #line)
        throws -> [String: Any]
    {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
            XCTFail("\(what) is not a JSON object:\n\(text)", file: file, line: line)
            return [:]
        }
        return object
    }

    private func infoJSON(_ clip: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try runTool(["info", "--json", Repo.fixture(clip)], file: file, line: line)
        XCTAssertEqual(result.status, 0, "info --json \(clip): stderr: \(result.stderr)", file: file, line: line)
        return try parseJSONObject(result.stdoutText, what: "info --json \(clip)", file: file, line: line)
    }

    /// `info` text as `label -> value` (the first occurrence of each label).
    private func infoText(_ clip: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String]
    {
        let result = try runTool(["info", Repo.fixture(clip)], file: file, line: line)
        XCTAssertEqual(result.status, 0, "info \(clip): stderr: \(result.stderr)", file: file, line: line)
        var fields: [String: String] = [:]
        for row in result.stdoutText.split(separator: "\n") {
            guard let colon = row.firstIndex(of: ":") else { continue }
            let key = row[..<colon].trimmingCharacters(in: .whitespaces)
            if fields[key] == nil { fields[key] = row[row.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
        }
        return fields
    }

    /// Fixtures/ref/tags.tsv (made by ffprobe and make_tags.py), by file name.
    static func tagsTable() throws -> [String: [String: String]] {
        let text = try String(contentsOfFile: Repo.reference("tags.tsv"), encoding: .utf8)
        let rows = text.split(separator: "\n").map { $0.components(separatedBy: "\t") }
        guard let header = rows.first else { return [:] }
        var table: [String: [String: String]] = [:]
        for row in rows.dropFirst() where row.count == header.count {
            table[row[0]] = Dictionary(uniqueKeysWithValues: zip(header, row))
        }
        return table
    }

    private func tagsRow(_ clip: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String]
    {
        guard let row = try Self.tagsTable()[clip] else {
            XCTFail("\(clip) is not in tags.tsv", file: file, line: line)
            return [:]
        }
        return row
    }

    /// ProRes header chroma_format: 2 = 4:2:2, 3 = 4:4:4.
    private func chroma(_ row: [String: String]) -> String? {
        switch row["hdr_chroma"] {
        case "2": return "4:2:2"
        case "3": return "4:4:4"
        default: return nil
        }
    }

    /// ProRes header alpha_info: 0 none, 1 = 8-bit, 2 = 16-bit.
    private func alphaBits(_ row: [String: String]) -> Int {
        switch row["hdr_alpha_info"] {
        case "1": return 8
        case "2": return 16
        default: return 0
        }
    }

    /// ProRes header interlace_mode: 0 progressive, 1 top field first, 2 bottom field first.
    private func fieldOrder(_ row: [String: String]) -> String? {
        switch row["hdr_interlace"] {
        case "0": return "progressive"
        case "1": return "top field first"
        case "2": return "bottom field first"
        default: return nil
        }
    }

    // MARK: - The test's own MD5

    func testOwnMD5MatchesKnownVectors() {
        XCTAssertEqual(CLITestMD5.hex(Data()), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(CLITestMD5.hex(Data("abc".utf8)), "900150983cd24fb0d6963f7d28e17f72")
        XCTAssertEqual(
            CLITestMD5.hex(Data("The quick brown fox jumps over the lazy dog".utf8)), "9e107d9d372bb6826bd81d3542a419d6"
        )
        XCTAssertEqual(CLITestMD5.hex(Data(repeating: 0x61, count: 1000)), "cabe45dcc9ae5b66ba86600cca6b8ba8")
    }
}
