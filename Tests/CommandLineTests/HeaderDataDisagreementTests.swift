import Foundation
import XCTest

@testable import TestSupport

/// Frame and container headers that disagree with the data under them
/// (Fixtures/hostile/, made by scripts/make-hostile-fixtures.py): each gets
/// one documented outcome, the same status and the same frame hashes from
/// `--decoder cpu` (any `--threads`) and `--decoder gpu`, and the frames the
/// lie does not touch equal the `ffmpeg` CLI's decode of the clean clip.
final class HeaderDataDisagreementTests: XCTestCase {
    /// The decoders and thread counts every case runs with.
    static let decoders = [
        ["--decoder", "ffmpeg", "--threads", "1"], ["--decoder", "cpu", "--threads", "4"], ["--decoder", "gpu"],
    ]

    /// `--format native --framehash -` lines (index, hash) of one run, with its result.
    private func frameHashes(_ fixture: String, _ decoder: [String]) throws -> (ToolResult, [String]) {
        let result = try runTool(
            [Hostile.fixture(fixture), "--format", "native", "--framehash", "-", "--quiet"] + decoder, timeout: 120)
        let lines = result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            .map { "\($0[1]) \($0[5])" }
        return (result, lines)
    }

    /// BLAKE3 of each native frame of `clip` as the `ffmpeg` CLI decodes it:
    /// the independent expectation for frames a lie does not touch.
    private func ffmpegHashes(_ clip: String = "hq.mov") throws -> [String] {
        let raw = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", Repo.fixture(clip),
                "-f", "rawvideo", "-pix_fmt", "yuv422p10le", "-",
            ])
        let frameBytes = raw.count / 5
        return try B3Sum.hexes((0..<5).map { raw[($0 * frameBytes)..<(($0 + 1) * frameBytes)] })
    }

    /// Frame 2 of a progressive clip claims "interlaced" (and of an
    /// interlaced one "progressive"): its picture's slice index does not add
    /// up, so both decoders fail that frame in the same words (FFmpeg would
    /// decode slices from inside the index).
    func testInterlacingTheDataDoesNotHaveFailsTheFrameOnBoth() throws {
        let cases = [
            (
                "interlace-claim.mov", "hq.mov",
                "picture 1 has 12281 bytes, but its index and the 8 slices of an interlaced"
            ),
            (
                "progressive-claim.mov", "interlaced-tff.mov",
                "picture 1 has 7091 bytes, but its index and the 14 slices of a progressive"
            ),
        ]
        for (fixture, clean, words) in cases {
            let expected = try ffmpegHashes(clean)
            for decoder in Self.decoders {
                let (result, hashes) = try frameHashes(fixture, decoder)
                Hostile.assertExit(result, 5, "\(fixture) \(decoder)")
                XCTAssertTrue(
                    result.stderr.contains("frame 2 not decoded: invalid picture: \(words) 192x112 frame take "),
                    "\(fixture) \(decoder): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("(the frame header disagrees with the data)"), result.stderr)
                XCTAssertEqual(hashes, [0, 1, 3, 4].map { "\($0) \(expected[$0])" }, "\(fixture) \(decoder)")
            }
        }
    }

    /// Every frame of a 4:2:2 clip claims 4:4:4: a 4:4:4 stream whose slices
    /// hold half the chroma the header promises. Slices whose chroma runs
    /// out are concealed alike on both decoders; the luma, intact, is FFmpeg's.
    func testFourFourFourClaimedOverFourTwoTwoDataIsConcealedAlike() throws {
        var outputs: [Data] = []
        for decoder in Self.decoders {
            let result = try runTool(
                [Hostile.fixture("chroma-444-claim.mov"), "--format", "native", "-o", "-", "--quiet"] + decoder,
                timeout: 120)
            Hostile.assertExit(result, 5, "\(decoder)")
            for frame in 0..<5 {
                XCTAssertTrue(
                    result.stderr.contains(
                        "frame \(frame) damaged: some slices could not be decoded and were concealed"),
                    "\(decoder): \(result.stderr)")
            }
            outputs.append(result.stdout)
        }
        for (n, output) in outputs.enumerated().dropFirst() {
            XCTAssertEqual(output, outputs[0], "\(Self.decoders[n]) differs from the first")
        }
        let reference = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", Repo.fixture("hq.mov"),
                "-f", "rawvideo", "-pix_fmt", "yuv422p10le", "-",
            ])
        let luma = 192 * 112 * 2
        XCTAssertEqual(outputs[0].count, 5 * 3 * luma, "five yuv444p10le frames")
        for frame in 0..<5 {
            let ours = outputs[0][(frame * 3 * luma)..<(frame * 3 * luma + luma)]
            let theirs = reference[(frame * 2 * luma)..<(frame * 2 * luma + luma)]
            XCTAssert(
                ours.elementsEqual(theirs), "frame \(frame): the luma differs from FFmpeg's decode of the clean clip")
        }
        // The chroma: FFmpeg's own decode of the damaged clip where its
        // slices decoded, neutral (512) where they were concealed (FFmpeg's
        // CLI leaves those as its buffers held them).
        let damaged = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "quiet", "-i", Hostile.fixture("chroma-444-claim.mov"),
                "-f", "rawvideo", "-pix_fmt", "yuv444p10le", "-",
            ])
        XCTAssertEqual(damaged.count, outputs[0].count)
        let ours = [UInt8](outputs[0])
        let theirs = [UInt8](damaged)
        var concealed = 0
        for frame in 0..<5 {
            for at in stride(from: frame * 3 * luma + luma, to: (frame + 1) * 3 * luma, by: 2) {
                let sample = Int(ours[at]) | Int(ours[at + 1]) << 8
                if ours[at] == theirs[at] && ours[at + 1] == theirs[at + 1] { continue }
                concealed += 1
                if sample != 512 {
                    XCTFail("frame \(frame) byte \(at): \(sample) is neither FFmpeg's nor neutral chroma")
                    return
                }
            }
        }
        XCTAssertGreaterThan(concealed, 0, "some chroma was concealed")
    }

    /// Frame 2 of a 4:2:2 clip without alpha claims an alpha channel:
    /// another picture format mid-stream, exit 7 on both, nothing written.
    func testAlphaClaimedMidStreamStopsBothWithExit7() throws {
        let dir = try makeTemporaryDirectory(self)
        for decoder in Self.decoders {
            let out = dir.appendingPathComponent("out.raw")
            let result = try runTool(
                [Hostile.fixture("alpha-claim.mov"), "-o", out.path, "--quiet"] + decoder, timeout: 120)
            Hostile.assertExit(result, 7, "\(decoder)")
            XCTAssertEqual(
                Hostile.errorLines(result),
                [
                    "prores-decode: error: decoder unavailable: frame 2 is 192x112 4:2:2 with alpha, "
                        + "the stream 192x112 4:2:2: one run decodes one picture size, chroma format and "
                        + "alpha channel (split the file where it changes)"
                ], "\(decoder)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(decoder): a partial output was left")
        }
    }

    /// Every frame of a 4:4:4 clip without alpha claims 8-bit alpha: its
    /// slices carry no alpha bytes. FFmpeg leaves that alpha unwritten (the
    /// CPU path gave zero, the GPU opaque); both now make it opaque and
    /// report each frame damaged. Y'CbCr is FFmpeg's decode of the clean clip.
    func testAlphaPromisedButNotCarriedIsOpaqueOnBoth() throws {
        var outputs: [Data] = []
        for decoder in Self.decoders {
            let result = try runTool(
                [Hostile.fixture("alpha-data-missing.mov"), "--format", "native", "-o", "-", "--quiet"] + decoder,
                timeout: 120)
            Hostile.assertExit(result, 5, "\(decoder)")
            for frame in 0..<5 {
                XCTAssertTrue(
                    result.stderr.contains(
                        "frame \(frame) damaged: the frame header promises an alpha channel some slices "
                            + "do not carry; their alpha was made opaque"), "\(decoder): \(result.stderr)")
            }
            outputs.append(result.stdout)
        }
        for (n, output) in outputs.enumerated().dropFirst() {
            XCTAssertEqual(output, outputs[0], "\(Self.decoders[n]) differs from the first")
        }
        let reference = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", Repo.fixture("4444-noalpha.mov"),
                "-f", "rawvideo", "-pix_fmt", "yuv444p12le", "-",
            ])
        let plane = 192 * 112 * 2
        XCTAssertEqual(outputs[0].count, 5 * 4 * plane, "five yuva444p12le frames")
        for frame in 0..<5 {
            let ours = outputs[0][(frame * 4 * plane)..<(frame * 4 * plane + 3 * plane)]
            let theirs = reference[(frame * 3 * plane)..<((frame + 1) * 3 * plane)]
            XCTAssert(
                ours.elementsEqual(theirs), "frame \(frame): Y'CbCr differs from FFmpeg's decode of the clean clip")
            let alpha = [UInt8](outputs[0][(frame * 4 * plane + 3 * plane)..<((frame + 1) * 4 * plane)])
            XCTAssert(
                stride(from: 0, to: alpha.count, by: 2).allSatisfy { Int(alpha[$0]) | Int(alpha[$0 + 1]) << 8 == 4095 },
                "frame \(frame): the alpha is not opaque (4095)")
        }
    }

    /// A media timescale of 0 is refused as a damaged header (exit 3) on
    /// both: FFmpeg assumed 1 and its edit list then discarded 4 of 5
    /// frames, which the CPU path honoured and the GPU path did not.
    func testZeroMediaTimescaleIsRefusedOnBoth() throws {
        for decoder in Self.decoders {
            let (result, hashes) = try frameHashes("timescale-0.mov", decoder)
            Hostile.assertExit(result, 3, "\(decoder)")
            XCTAssertEqual(
                Hostile.errorLines(result),
                [
                    "prores-decode: error: cannot read '\(Hostile.fixture("timescale-0.mov"))': "
                        + "damaged container header: the video track's media timescale (mdhd) is 0, "
                        + "so its frames have no times"
                ], "\(decoder)")
            XCTAssertEqual(hashes, [], "\(decoder)")
        }
    }

    /// Sample durations of 0 (stts) leave the frames their order: all five
    /// decode, alike on both and equal to FFmpeg's decode of the clean clip.
    func testZeroSampleDurationsDecodeEveryFrameAlike() throws {
        let expected = try ffmpegHashes()
        var runs: [[String]] = []
        for decoder in Self.decoders {
            let (result, hashes) = try frameHashes("stts-delta-0.mov", decoder)
            Hostile.assertExit(result, 0, "\(decoder)")
            XCTAssertEqual(hashes.map { $0.split(separator: " ")[1] }.map(String.init), expected, "\(decoder)")
            runs.append(hashes)
        }
        for (n, run) in runs.enumerated().dropFirst() {
            XCTAssertEqual(run, runs[0], "\(Self.decoders[n]) differs from the first")
        }
    }

    /// `check` reaches the same verdicts on both decoders, several files at once.
    func testCheckGivesTheSameVerdictsOnBothDecoders() throws {
        let files = [
            "interlace-claim.mov", "progressive-claim.mov", "chroma-444-claim.mov", "alpha-claim.mov",
            "alpha-data-missing.mov",
            "timescale-0.mov", "stts-delta-0.mov",
        ]
        .map(Hostile.fixture)
        var verdicts: [[String]] = []
        for decoder in [["--decoder", "cpu", "--jobs", "2", "--threads", "2"], ["--decoder", "gpu", "--jobs", "2"]] {
            let result = try runTool(["check"] + files + decoder, timeout: 180)
            XCTAssertFalse(result.timedOut, "\(decoder): hung")
            XCTAssertEqual(result.reason, .exit, "\(decoder): \(result.stderr)")
            verdicts.append(
                result.stderr.split(separator: "\n").map(String.init).filter {
                    ["PASS ", "FAIL ", "ERROR "].contains(where: $0.hasPrefix)
                }.map { String($0.prefix { $0 != ":" }) }.sorted())
        }
        XCTAssertEqual(verdicts[0].count, files.count, "\(verdicts[0])")
        XCTAssertEqual(verdicts[0], verdicts[1])
    }
}
