import Foundation
import XCTest

@testable import TestSupport

/// `-o out.y4m` / `-o out.nut` / `-o out.mov`: self-describing outputs that the `ffmpeg`
/// CLI (an independent reader) decodes back to exactly our native frames.
final class ContainerOutputTests: XCTestCase {
    private func ffmpeg(_ arguments: [String]) throws -> Data {
        try FrameTools.runProcess("/usr/bin/ffmpeg", ["-v", "error"] + arguments)
    }

    /// The clip's frames as the `ffmpeg` CLI decodes them, in the decoder's
    /// own pixel format: the native frames, from a path that is not ours
    /// (hq.prores's are hq.mov's: ffmpeg 5.1 cannot read a raw ProRes stream).
    private func ffmpegNative(_ clip: String) throws -> Data {
        try ffmpeg(["-i", Repo.fixture(clip == "hq.prores" ? "hq.mov" : clip), "-f", "rawvideo", "-"])
    }

    private func ffprobe(_ path: String, _ entries: String) throws -> String {
        let data = try FrameTools.runProcess(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0",
                "-show_entries", entries, "-of", "default=nw=1", path,
            ])
        return String(decoding: data, as: UTF8.self)
    }

    /// Our y4m is byte for byte what ffmpeg's own y4m muxer writes for the
    /// source, and ffmpeg reads it back as our native frames. (Not for an odd
    /// width: ffmpeg 5.1's muxer halves the chroma row's bytes, not its
    /// samples, and writes 10-bit rows half a sample short; its own demuxer
    /// then misreads them. Ours is read back right.)
    func testY4MIsFFmpegsY4M() throws {
        let directory = try makeTemporaryDirectory(self)
        for clip in ["hq.mov", "4444-noalpha.mov", "interlaced-tff.mov", "odd-size.mov", "hq.mxf"] {
            let out = directory.appendingPathComponent("\(clip).y4m")
            let result = try runTool([Repo.fixture(clip), "-o", out.path, "--quiet"])
            XCTAssertEqual(result.status, 0, "\(clip): \(result.stderr)")
            let native = try ffmpegNative(clip)
            XCTAssertEqual(
                try ffmpeg(["-i", out.path, "-f", "rawvideo", "-"]), native,
                "\(clip): y4m frames differ from ffmpeg's decode")
            if clip != "odd-size.mov" {
                let expected = try ffmpeg(["-i", Repo.fixture(clip), "-strict", "-1", "-f", "yuv4mpegpipe", "-"])
                XCTAssertEqual(try Data(contentsOf: out), expected, "\(clip): our y4m differs from ffmpeg's")
            }
        }
    }

    /// NUT read back by ffmpeg gives the native frames, with size, rate and SAR.
    func testNUTDecodesToTheNativeFrames() throws {
        let directory = try makeTemporaryDirectory(self)
        for clip in ["hq.mov", "4444.mov", "odd-size-444.mov", "interlaced-bff.mov", "hq.prores"] {
            let out = directory.appendingPathComponent("\(clip).nut")
            let result = try runTool([Repo.fixture(clip), "-o", out.path, "--quiet"])
            XCTAssertEqual(result.status, 0, "\(clip): \(result.stderr)")
            let native = try ffmpegNative(clip)
            XCTAssertEqual(
                try ffmpeg(["-i", out.path, "-f", "rawvideo", "-"]), native,
                "\(clip): NUT frames differ from ffmpeg's decode")
            let probe = try ffprobe(out.path, "stream=codec_name,pix_fmt,sample_aspect_ratio,r_frame_rate")
            XCTAssertTrue(probe.contains("codec_name=rawvideo"), probe)
            XCTAssertTrue(probe.contains("sample_aspect_ratio=1:1"), probe)
            XCTAssertTrue(probe.contains("r_frame_rate=25/1"), probe)
            let pixelFormat = try ffprobe(Repo.fixture(clip == "hq.prores" ? "hq.mov" : clip), "stream=pix_fmt")
            XCTAssertTrue(probe.contains(pixelFormat), "\(clip): \(probe) vs \(pixelFormat)")
        }
    }

    /// What a container cannot hold is a usage error before anything is written.
    func testRefusalsAreUsageErrorsThatLeaveNothing() throws {
        let directory = try makeTemporaryDirectory(self)
        let cases: [([String], [String])] = [
            (
                [Repo.fixture("4444.mov"), "-o", directory.appendingPathComponent("a.y4m").path],
                ["y4m", "yuva444p12le", ".nut"]
            ),
            (
                [Repo.fixture("hq.mov"), "-o", directory.appendingPathComponent("b.nut").path, "--format", "v216"],
                ["v216", "--format native"]
            ),
            (
                [Repo.fixture("4444.mov"), "-o", directory.appendingPathComponent("c.y4m").path, "--format", "y416"],
                ["y416", "--format native"]
            ),
            (
                [Repo.fixture("4444.mov"), "-o", directory.appendingPathComponent("d.mov").path],
                ["QuickTime", "yuva444p12le", ".nut"]
            ),
            ([Repo.fixture("4444-noalpha.mov"), "-o", "-", "--container", "mov"], ["QuickTime", "yuv444p12le"]),
            (
                [Repo.fixture("odd-size.mov"), "-o", directory.appendingPathComponent("e.mov").path],
                ["QuickTime", "even widths", "187"]
            ),
            ([Repo.fixture("hq.mov"), "--container", "nut"], ["--container", "-o"]),
            ([Repo.fixture("hq.mov"), "-o", "-", "--container", "avi"], ["--container"]),
        ]
        for (arguments, needles) in cases {
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stdout.isEmpty, "\(arguments)")
            assertSingleError(result, mentions: needles, "\(arguments)")
        }
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "a refused run leaves nothing")
    }

    /// QuickTime read back by ffmpeg gives the native frames byte for byte
    /// (v210 holds 10-bit 4:2:2 exactly), with the colour tags, rate and SAR,
    /// from a MOV, an MXF and an elementary stream; the v210 payload is what
    /// ffmpeg's own v210 encoder makes of the source.
    func testMOVDecodesToTheNativeFrames() throws {
        let directory = try makeTemporaryDirectory(self)
        let tags = [
            "p3.mov": ("smpte432", "bt709", "bt709"), "hlg.mov": ("bt2020", "arib-std-b67", "bt2020nc"),
            "pq.mov": ("bt2020", "smpte2084", "bt2020nc"),
        ]
        for clip in ["hq.mov", "lt.mov", "interlaced-tff.mov", "hq.mxf", "hq.prores", "p3.mov", "hlg.mov", "pq.mov"] {
            let out = directory.appendingPathComponent("\(clip).mov")
            let result = try runTool([Repo.fixture(clip), "-o", out.path, "--quiet"])
            XCTAssertEqual(result.status, 0, "\(clip): \(result.stderr)")
            let native = try ffmpegNative(clip)
            XCTAssertEqual(
                try ffmpeg(["-i", out.path, "-f", "rawvideo", "-pix_fmt", "yuv422p10le", "-"]), native,
                "\(clip): MOV frames differ from ffmpeg's decode")
            if clip != "hq.prores" {  // ffmpeg 5.1 cannot read a raw ProRes stream
                XCTAssertEqual(
                    try ffmpeg(["-i", out.path, "-c:v", "copy", "-f", "rawvideo", "-"]),
                    try ffmpeg(["-i", Repo.fixture(clip), "-c:v", "v210", "-f", "rawvideo", "-"]),
                    "\(clip): our v210 differs from ffmpeg's v210 encoder's")
            }
            let probe = try ffprobe(
                out.path,
                "stream=codec_name,codec_tag_string,pix_fmt,sample_aspect_ratio,r_frame_rate,"
                    + "color_primaries,color_transfer,color_space")
            for expected in [
                "codec_name=v210", "codec_tag_string=v210", "pix_fmt=yuv422p10le", "sample_aspect_ratio=1:1",
                "r_frame_rate=25/1",
            ] {
                XCTAssertTrue(probe.contains(expected), "\(clip): \(expected) in\n\(probe)")
            }
            if let (primaries, transfer, matrix) = tags[clip] {
                for expected in ["color_primaries=\(primaries)", "color_transfer=\(transfer)", "color_space=\(matrix)"]
                {
                    XCTAssertTrue(probe.contains(expected), "\(clip): \(expected) in\n\(probe)")
                }
            }
        }
    }

    /// A clip with a non-square SAR, an NTSC rate and a time code keeps all
    /// of them, and its colour tags, in the MOV (ffprobe's words).
    func testMOVCarriesSARRateTimecodeAndColour() throws {
        let directory = try makeTemporaryDirectory(self)
        let clip = try makeTaggedClip(in: directory, sar: "4/3", rate: "24000/1001", timecode: "01:02:03:04")
        let out = directory.appendingPathComponent("tagged-out.mov")
        let result = try runTool([clip, "-o", out.path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let probe = try ffprobe(
            out.path,
            "stream=sample_aspect_ratio,r_frame_rate,color_primaries,color_transfer,color_space:stream_tags=timecode")
        for expected in [
            "sample_aspect_ratio=4:3", "r_frame_rate=24000/1001", "color_primaries=bt2020", "color_transfer=smpte2084",
            "color_space=bt2020nc", "TAG:timecode=01:02:03:04",
        ] {
            XCTAssertTrue(probe.contains(expected), "\(expected) in\n\(probe)")
        }
        XCTAssertEqual(
            try ffmpeg(["-i", out.path, "-f", "rawvideo", "-pix_fmt", "yuv422p10le", "-"]),
            try ffmpeg(["-i", clip, "-f", "rawvideo", "-pix_fmt", "yuv422p10le", "-"]))
        // 64 pixels: 10 whole groups of 6, a partial one and row padding to 96, as ffmpeg's encoder writes them.
        XCTAssertEqual(
            try ffmpeg(["-i", out.path, "-c:v", "copy", "-f", "rawvideo", "-"]),
            try ffmpeg(["-i", clip, "-c:v", "v210", "-f", "rawvideo", "-"]))
    }

    /// QuickTime seeks back to fill in sizes: a pipe is refused (exit 6),
    /// leaving nothing on stdout (stdout redirected to a file is seekable and works).
    func testMOVNeedsAFileToSeekIn() throws {
        let piped = try runTool([Repo.fixture("hq.mov"), "-o", "-", "--container", "mov"])
        XCTAssertEqual(piped.status, 6, piped.stderr)
        XCTAssertTrue(piped.stdout.isEmpty)
        assertSingleError(piped, mentions: ["stdout", "seek", ".nut"], "mov to a pipe")
    }

    /// `--container` overrides the name: raw keeps today's bytes, y4m to stdout works.
    func testContainerOverridesTheName() throws {
        let directory = try makeTemporaryDirectory(self)
        let out = directory.appendingPathComponent("frames.y4m")
        XCTAssertEqual(
            try runTool([Repo.fixture("hq.mov"), "-o", out.path, "--container", "raw", "--quiet"]).status, 0)
        let v216 = try runTool([Repo.fixture("hq.mov"), "-o", "-", "--quiet"])
        XCTAssertEqual(try Data(contentsOf: out), v216.stdout, "--container raw writes the raw default layout")
        let y4m = try runTool([Repo.fixture("hq.mov"), "-o", "-", "--container", "y4m", "--quiet"])
        XCTAssertEqual(y4m.status, 0, y4m.stderr)
        XCTAssertTrue(
            y4m.stdoutText.hasPrefix(
                "YUV4MPEG2 W192 H112 F25:1 Ip A1:1 C422p10 XYSCSS=422P10 XCOLORRANGE=LIMITED\nFRAME\n"))
    }
}
