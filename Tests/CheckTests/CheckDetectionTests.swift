import Foundation
import XCTest

@testable import TestSupport

/// Black frames, frozen frames and out-of-range samples as `check` counts
/// them, against what FFmpeg's own filters print on the same file:
/// `blackdetect`, `freezedetect` and `signalstats`, at the same thresholds.
/// The clips are made here with the ffmpeg CLI (prores_ks); FFmpeg decodes
/// them with its C code (`-cpuflags 0`), which our CPU decoder follows bit
/// for bit.
final class CheckDetectionTests: XCTestCase {
    static let size = "192x108"
    static let fps = 25.0

    /// Encodes the output `[out]` of `graph` (inputs: testsrc2 and a black
    /// 10-bit picture) to ProRes 422 HQ at `path`.
    private func encode(_ graph: String, to path: String) throws {
        let run = try runExternal(
            [
                "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=size=\(Self.size):rate=25,format=yuv422p10le", "-f", "lavfi", "-i",
                "color=c=black:size=\(Self.size):rate=25,format=yuv422p10le", "-filter_complex", graph, "-map", "[out]",
                "-c:v", "prores_ks", "-profile:v", "3", path,
            ])
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    /// FFmpeg's log lines of `filter` run over `path`, decoded by its C code.
    private func ffmpegFilterLog(_ path: String, _ filter: String) throws -> String {
        let run = try runExternal(
            ["ffmpeg", "-nostdin", "-hide_banner", "-cpuflags", "0", "-i", path, "-vf", filter, "-f", "null", "-"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stderr
    }

    /// `check`'s statistics of `path` (no policy: the numbers alone).
    private func ourStatistics(_ path: String) throws -> [String: Any] {
        let result = try runTool(["check", path, "--decoder", "cpu", "--policy", "none", "--report", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let file = try XCTUnwrap(try CheckFixtures.files(result.stdout).first)
        return try XCTUnwrap(file["stats"] as? [String: Any])
    }

    private func ranges(_ stats: [String: Any], _ name: String) throws -> [ClosedRange<Int>] {
        let field = try XCTUnwrap(stats[name] as? [String: Any], name)
        let pairs = try XCTUnwrap(field["ranges"] as? [[Int]], name)
        return pairs.map { $0[0]...$0[1] }
    }

    /// Every `key:VALUE` (blackdetect) or `key: VALUE` (freezedetect) number of the log, in order.
    private func values(_ log: String, _ key: String) -> [Double] {
        log.components(separatedBy: key + ":").dropFirst().compactMap { rest in
            Double(rest.drop { $0 == " " }.prefix { !$0.isWhitespace })
        }
    }

    private func frame(_ seconds: Double) -> Int { Int((seconds * Self.fps).rounded()) }

    /// Three black frames at the head, six inside, five at the tail; four
    /// dark-grey frames (Y′ 88, above 2% of the span: 81.52) that are not
    /// black; picture between. FFmpeg's blackdetect with the same threshold
    /// (pix_th 0.02: pixels at or below 64 + 0.02 × 876) on flat frames
    /// finds the same runs; a white frame padded after the clip closes the
    /// tail run in its log.
    func testBlackFramesAgreeWithBlackdetect() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent("black.mov").path
        try encode(
            "[1:v]split=3[k1][k2][k3];[k1]lutyuv=y=76:u=512:v=512,split=2[ba][bb];[k2]lutyuv=y=88:u=512:v=512[grey];"
                + "[k3]lutyuv=y=64:u=512:v=512[bz];[0:v]split=2[p1][p2];"
                + "[ba]trim=end_frame=3,setpts=PTS-STARTPTS[s1];[p1]trim=end_frame=10,setpts=PTS-STARTPTS[s2];"
                + "[bb]trim=end_frame=6,setpts=PTS-STARTPTS[s3];[grey]trim=end_frame=4,setpts=PTS-STARTPTS[s4];"
                + "[p2]trim=start_frame=20:end_frame=28,setpts=PTS-STARTPTS[s5];[bz]trim=end_frame=5,setpts=PTS-STARTPTS[s6];"
                + "[s1][s2][s3][s4][s5][s6]concat=n=6:v=1,setpts=N/25/TB[out]", to: path)
        let log = try ffmpegFilterLog(path, "tpad=stop=1:color=white,blackdetect=d=0:pix_th=0.02:pic_th=0.98")
        let starts = values(log, "black_start").map(frame)
        let ends = values(log, "black_end").map(frame)
        XCTAssertEqual(starts.count, 3, log)
        let theirs = zip(starts, ends).map { $0...($1 - 1) }

        let stats = try ourStatistics(path)
        XCTAssertEqual(try ranges(stats, "black_frames"), theirs)

        // The rules read the same runs: head, tail, and the longest inside.
        let last = 35
        let inside = theirs.filter { $0.lowerBound > 0 && $0.upperBound < last }.map(\.count).max() ?? 0
        let head = theirs.first { $0.lowerBound == 0 }?.count ?? 0
        let tail = theirs.first { $0.upperBound == last }?.count ?? 0
        let total = theirs.map(\.count).reduce(0, +)
        let holding = [
            "black-run=\(inside)", "black-head=\(head)", "black-tail=\(tail)", "black-frames=\(total)",
            "black-run<=\(Double(inside) / Self.fps)s",
        ]
        let held = try runTool(
            ["check", path, "--decoder", "cpu", "--policy", "none", "--expect", holding.joined(separator: ",")])
        XCTAssertEqual(held.status, 0, held.stderr)
        let broken = try runTool(
            ["check", path, "--decoder", "cpu", "--policy", "none", "--expect", "black-run<\(inside)"])
        XCTAssertEqual(broken.status, 10, broken.stderr)
        XCTAssertTrue(broken.stderr.contains("expected black-run<\(inside), got \(inside)"), broken.stderr)
    }

    /// A picture held for a run of frames (the loop filter), picture around
    /// it. freezedetect's freeze runs from its first frame to the first that
    /// differs; ours counts the repeats, so each of its runs is ours plus
    /// the first frame. Its minimum duration is just over a frame (d=0 in
    /// FFmpeg 5.1 reports every frame), so it finds runs of two repeats
    /// or more; testsrc2 moves every frame, so there are no shorter ones.
    func testFrozenFramesAgreeWithFreezedetect() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent("frozen.mov").path
        try encode(
            "[0:v]split=3[a][b][c];[a]trim=end_frame=10,setpts=PTS-STARTPTS[a1];"
                + "[b]trim=start_frame=10:end_frame=20,setpts=PTS-STARTPTS,loop=loop=11:size=1:start=3,setpts=N/25/TB[b1];"
                + "[c]trim=start_frame=30:end_frame=34,setpts=PTS-STARTPTS,loop=loop=4:size=1:start=3,setpts=N/25/TB[c1];"
                + "[a1][b1][c1]concat=n=3:v=1,setpts=N/25/TB[out]", to: path)
        let log = try ffmpegFilterLog(path, "tpad=stop=1:color=white,freezedetect=n=0.0001:d=0.05")
        let starts = values(log, "freeze_start").map(frame)
        let ends = values(log, "freeze_end").map(frame)
        XCTAssertEqual(starts.count, 2, log)
        let theirs = zip(starts, ends).map { ($0 + 1)...($1 - 1) }

        let stats = try ourStatistics(path)
        XCTAssertEqual(try ranges(stats, "frozen_frames"), theirs)

        let longest = theirs.map(\.count).max() ?? 0
        let total = theirs.map(\.count).reduce(0, +)
        let held = try runTool(
            [
                "check", path, "--decoder", "cpu", "--policy", "none", "--expect",
                "frozen-run=\(longest),frozen-frames=\(total)",
            ])
        XCTAssertEqual(held.status, 0, held.stderr)
        let broken = try runTool(
            ["check", path, "--decoder", "cpu", "--policy", "none", "--expect", "frozen-run<=\(longest - 1)"])
        XCTAssertEqual(broken.status, 10, broken.stderr)
        XCTAssertTrue(broken.stderr.contains("expected frozen-run<=\(longest - 1), got \(longest)"), broken.stderr)
    }

    /// signalstats' BRNG: per frame, the share of pixels with any of Y′, U,
    /// V outside 64..940 / 64..960 (10 bits; chroma read at x/2 for
    /// 4:2:2). With chroma held at 512 it is the luma share alone; with Y′
    /// and V held in range, each U sample out of range covers two pixels,
    /// so our share of Cb and Cr samples is half of it.
    func testOutOfRangeAgreesWithSignalstats() throws {
        let dir = try makeTemporaryDirectory(self)
        let luma = dir.appendingPathComponent("luma.mov").path
        try encode("[0:v]trim=end_frame=8,lutyuv=y='clip(val*1.3-120,0,1023)':u=512:v=512[out]", to: luma)
        let chroma = dir.appendingPathComponent("chroma.mov").path
        try encode("[0:v]trim=end_frame=8,lutyuv=y=500:u='clip(val*1.4-200,0,1023)':v=512[out]", to: chroma)

        func brng(_ path: String) throws -> [Double] {
            let log = try ffmpegFilterLog(path, "signalstats=stat=brng,metadata=mode=print")
            return log.components(separatedBy: "lavfi.signalstats.BRNG=").dropFirst().compactMap {
                Double($0.prefix { !$0.isWhitespace })
            }
        }
        let lumaShares = try brng(luma)
        let chromaShares = try brng(chroma)
        XCTAssertEqual(lumaShares.count, 8)
        XCTAssertEqual(chromaShares.count, 8)
        let lumaMean = lumaShares.reduce(0, +) / Double(lumaShares.count)
        let chromaMean = chromaShares.reduce(0, +) / Double(chromaShares.count) / 2
        XCTAssertGreaterThan(lumaMean, 0.01, "the clip has luma out of range")
        XCTAssertGreaterThan(chromaMean, 0.01, "the clip has chroma out of range")

        func ourShare(_ path: String, _ key: String) throws -> Double {
            // The rule's own words give the share: a rule that cannot hold.
            let result = try runTool(["check", path, "--decoder", "cpu", "--policy", "none", "--expect", "\(key)<0"])
            XCTAssertEqual(result.status, 10, result.stderr)
            let got = try XCTUnwrap(result.stderr.components(separatedBy: "got ").last)
            return try XCTUnwrap(Double(got.prefix { !$0.isWhitespace }), result.stderr)
        }
        // signalstats prints 5 significant digits a frame.
        XCTAssertEqual(try ourShare(luma, "out-of-range-luma"), lumaMean, accuracy: 1e-5)
        XCTAssertEqual(try ourShare(chroma, "out-of-range-chroma"), chromaMean, accuracy: 1e-5)
        XCTAssertEqual(try ourShare(luma, "out-of-range-chroma"), 0)

        let stats = try ourStatistics(luma)
        let outside = try XCTUnwrap(stats["out_of_range"] as? [String: Any])
        XCTAssertEqual(outside["frames"] as? Int, lumaShares.filter { $0 > 0 }.count)
        let frames = try runTool(
            [
                "check", luma, "--decoder", "cpu", "--policy", "none", "--expect",
                "out-of-range-frames<\(lumaShares.filter { $0 > 0 }.count)",
            ])
        XCTAssertEqual(frames.status, 10, frames.stderr)
    }
}
