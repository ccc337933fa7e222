import Foundation
import XCTest

/// `-o out.y4m` / `-o out.nut`: self-describing outputs that the `ffmpeg`
/// CLI (an independent reader) decodes back to exactly our native frames.
final class ContainerOutputTests: XCTestCase {
    private func ffmpeg(_ arguments: [String]) throws -> Data {
        try CheckGPUDecoderTests.runProcess("/usr/bin/ffmpeg", ["-v", "error"] + arguments)
    }

    private func ffprobe(_ path: String, _ entries: String) throws -> String {
        let data = try CheckGPUDecoderTests.runProcess("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0",
                                                                            "-show_entries", entries, "-of", "default=nw=1", path])
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
            let native = try runTool([Repo.fixture(clip), "--format", "native", "-o", "-", "--quiet"])
            XCTAssertEqual(try ffmpeg(["-i", out.path, "-f", "rawvideo", "-"]), native.stdout, "\(clip): y4m frames differ from -o raw native")
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
            let native = try runTool([Repo.fixture(clip), "--format", "native", "-o", "-", "--quiet"])
            XCTAssertEqual(try ffmpeg(["-i", out.path, "-f", "rawvideo", "-"]), native.stdout, "\(clip): NUT frames differ from -o raw native")
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
            ([Repo.fixture("4444.mov"), "-o", directory.appendingPathComponent("a.y4m").path], ["y4m", "yuva444p12le", ".nut"]),
            ([Repo.fixture("hq.mov"), "-o", directory.appendingPathComponent("b.nut").path, "--format", "v216"], ["v216", "--format native"]),
            ([Repo.fixture("4444.mov"), "-o", directory.appendingPathComponent("c.y4m").path, "--format", "y416"], ["y416", "--format native"]),
            ([Repo.fixture("hq.mov"), "-o", directory.appendingPathComponent("d.mov").path], ["QuickTime", ".nut"]),
            ([Repo.fixture("hq.mov"), "-o", "-", "--container", "mov"], ["QuickTime"]),
            ([Repo.fixture("hq.mov"), "--container", "nut"], ["--container", "-o"]),
            ([Repo.fixture("hq.mov"), "-o", "-", "--container", "avi"], ["--container"]),
        ]
        for (arguments, needles) in cases {
            let result = try runTool(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stdout.isEmpty, "\(arguments)")
            assertSingleError(result, mentions: needles, "\(arguments)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "a refused run leaves nothing")
    }

    /// `--container` overrides the name: raw keeps today's bytes, y4m to stdout works.
    func testContainerOverridesTheName() throws {
        let directory = try makeTemporaryDirectory(self)
        let out = directory.appendingPathComponent("frames.y4m")
        XCTAssertEqual(try runTool([Repo.fixture("hq.mov"), "-o", out.path, "--container", "raw", "--quiet"]).status, 0)
        let v216 = try runTool([Repo.fixture("hq.mov"), "-o", "-", "--quiet"])
        XCTAssertEqual(try Data(contentsOf: out), v216.stdout, "--container raw writes the raw default layout")
        let y4m = try runTool([Repo.fixture("hq.mov"), "-o", "-", "--container", "y4m", "--quiet"])
        XCTAssertEqual(y4m.status, 0, y4m.stderr)
        XCTAssertTrue(y4m.stdoutText.hasPrefix("YUV4MPEG2 W192 H112 F25:1 Ip A1:1 C422p10 XYSCSS=422P10 XCOLORRANGE=LIMITED\nFRAME\n"))
    }
}
