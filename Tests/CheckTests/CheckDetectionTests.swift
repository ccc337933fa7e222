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
    private func ourStatistics(_ path: String, decoder: String = "cpu") throws -> [String: Any] {
        let result = try runTool(["check", path, "--decoder", decoder, "--policy", "none", "--report", "-"])
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
    /// dark-grey frames (Y′ 160, above 10% of the span: 151.6) that are not
    /// black; picture between. FFmpeg's blackdetect at its defaults (pix_th
    /// 0.10: pixels at or below 64 + 0.10 × 876; pic_th 0.98) finds the same
    /// runs; a white frame padded after the clip closes the tail run in its
    /// log.
    func testBlackFramesAgreeWithBlackdetect() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent("black.mov").path
        try encode(
            "[1:v]split=3[k1][k2][k3];[k1]lutyuv=y=76:u=512:v=512,split=2[ba][bb];[k2]lutyuv=y=160:u=512:v=512[grey];"
                + "[k3]lutyuv=y=64:u=512:v=512[bz];[0:v]split=2[p1][p2];"
                + "[ba]trim=end_frame=3,setpts=PTS-STARTPTS[s1];[p1]trim=end_frame=10,setpts=PTS-STARTPTS[s2];"
                + "[bb]trim=end_frame=6,setpts=PTS-STARTPTS[s3];[grey]trim=end_frame=4,setpts=PTS-STARTPTS[s4];"
                + "[p2]trim=start_frame=20:end_frame=28,setpts=PTS-STARTPTS[s5];[bz]trim=end_frame=5,setpts=PTS-STARTPTS[s6];"
                + "[s1][s2][s3][s4][s5][s6]concat=n=6:v=1,setpts=N/25/TB[out]", to: path)
        let log = try ffmpegFilterLog(path, "tpad=stop=1:color=white,blackdetect=d=0:pix_th=0.10:pic_th=0.98")
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

    /// Black that is not flat: Y′ 100 with temporal noise (every pixel at or
    /// below blackdetect's 151, the mean above 2% of the span), a white logo
    /// on 1.6% of a Y′ 80 picture, the same logo on 4.3% (not black), and a
    /// fade out and in through black. blackdetect's defaults (pix_th 0.10,
    /// pic_th 0.98) find three runs; ours are the same frames, their times
    /// within a frame of its black_start and black_end, and each run's dark
    /// share its smallest picture_black_ratio (its debug line a frame).
    func testBlackRunsAgreeWithBlackdetectOnNonFlatBlack() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent("dark.mov").path
        let logo = "lutyuv=y=80:u=512:v=512,drawbox=x=10:y=10:color=white:t=fill"
        try encode(
            "[1:v]split=3[k1][k2][k3];"
                + "[k1]format=yuv422p,lutyuv=y=25:u=128:v=128,noise=c0s=8:c0f=t,format=yuv422p10le,"
                + "trim=end_frame=10,setpts=PTS-STARTPTS[s2];"
                + "[k2]\(logo):w=18:h=18,trim=end_frame=8,setpts=PTS-STARTPTS[s4];"
                + "[k3]\(logo):w=30:h=30,trim=end_frame=5,setpts=PTS-STARTPTS[s6];"
                + "[0:v]split=5[p1][p2][p3][p4][p5];[p1]trim=end_frame=8,setpts=PTS-STARTPTS[s1];"
                + "[p2]trim=start_frame=10:end_frame=16,setpts=PTS-STARTPTS[s3];"
                + "[p3]trim=start_frame=20:end_frame=24,setpts=PTS-STARTPTS[s5];"
                + "[p4]trim=start_frame=30:end_frame=46,setpts=PTS-STARTPTS,fade=t=out:start_frame=4:nb_frames=8[s7];"
                + "[p5]trim=start_frame=46:end_frame=62,setpts=PTS-STARTPTS,fade=t=in:start_frame=2:nb_frames=8[s8];"
                + "[s1][s2][s3][s4][s5][s6][s7][s8]concat=n=8:v=1,setpts=N/25/TB[out]", to: path)
        let log = try ffmpegFilterLog(path, "tpad=stop=1:color=white,blackdetect=d=0:pix_th=0.10")
        let starts = values(log, "black_start")
        let ends = values(log, "black_end")
        XCTAssertEqual(starts.count, 3, log)
        let theirs = zip(starts.map(frame), ends.map(frame)).map { $0...($1 - 1) }

        let stats = try ourStatistics(path)
        XCTAssertEqual(try ranges(stats, "black_frames"), theirs)
        let runs = try XCTUnwrap(stats["black_runs"] as? [[String: Any]], "no black_runs")
        XCTAssertEqual(runs.count, theirs.count)
        let ratios = try blackRatios(path)
        for (i, run) in runs.enumerated() where i < theirs.count {
            XCTAssertEqual(run["frames"] as? [Int], [theirs[i].lowerBound, theirs[i].upperBound])
            let frameTime = 1 / Self.fps
            XCTAssertEqual(try XCTUnwrap(run["start"] as? Double), starts[i], accuracy: frameTime)
            XCTAssertEqual(try XCTUnwrap(run["end"] as? Double), ends[i], accuracy: frameTime)
            XCTAssertEqual(try XCTUnwrap(run["duration"] as? Double), ends[i] - starts[i], accuracy: frameTime)
            let smallest = try XCTUnwrap(theirs[i].map { ratios[$0] ?? .nan }.min())
            XCTAssertEqual(try XCTUnwrap(run["dark_share"] as? Double), smallest, accuracy: 1e-6)
        }
        // The GPU decoder's device pass counts the same pixels.
        let gpu = try ourStatistics(path, decoder: "gpu")
        XCTAssertEqual(gpu["black_runs"] as? NSArray, stats["black_runs"] as? NSArray)
        try assertPageLists("black run", theirs, path)
    }

    /// The page's statistics list each run by its frames.
    private func assertPageLists(_ name: String, _ runs: [ClosedRange<Int>], _ path: String) throws {
        let page = try runTool(["check", path, "--decoder", "cpu", "--policy", "none", "--html", "-"])
        XCTAssertEqual(page.status, 0, page.stderr)
        let html = String(decoding: page.stdout, as: UTF8.self)
        for run in runs {
            XCTAssertTrue(
                html.contains("<th>\(name)</th><td>frames \(run.lowerBound)–\(run.upperBound), "),
                "the page does not list \(name) \(run)")
        }
    }

    /// blackdetect's picture_black_ratio of every frame, from its debug lines.
    private func blackRatios(_ path: String) throws -> [Int: Double] {
        let run = try runExternal(
            [
                "ffmpeg", "-nostdin", "-hide_banner", "-v", "debug", "-cpuflags", "0", "-i", path, "-vf",
                "blackdetect=d=0", "-f", "null", "-",
            ])
        XCTAssertEqual(run.status, 0, run.stderr)
        var ratios: [Int: Double] = [:]
        for piece in run.stderr.components(separatedBy: "] frame:").dropFirst() {
            let words = piece.split(separator: " ")
            guard words.count > 1, let index = Int(words[0]), words[1].hasPrefix("picture_black_ratio:"),
                let ratio = Double(words[1].dropFirst("picture_black_ratio:".count))
            else { continue }
            ratios[index] = ratio
        }
        return ratios
    }

    /// Stills held with temporal noise on the luma (the noise filter,
    /// allf=t): at strength 1 their mean absolute difference from the first
    /// frame is below freezedetect's -60 dB (0.001 of the code range), at
    /// strength 3 above it; and a true repeat. freezedetect=n=-60dB:d=0.5
    /// finds the quiet still and the repeat; ours are the same frames (its
    /// freeze from the still's first frame, ours its repeats), the same
    /// times, and each run's difference near the largest mean absolute
    /// difference computed here from FFmpeg's decoded frames.
    func testFrozenRunsAgreeWithFreezedetectOnNoisyStills() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent("still.mov").path
        func still(_ from: Int, _ frames: Int, noise: Int?) -> String {
            "trim=start_frame=\(from):end_frame=\(from + 1),setpts=PTS-STARTPTS,"
                + "loop=loop=\(frames - 1):size=1:start=0,setpts=N/25/TB"
                + (noise.map { ",format=yuv422p,noise=c0s=\($0):c0f=t,format=yuv422p10le" } ?? "")
        }
        try encode(
            "[0:v]split=7[a][b][c][d][e][f][g];[a]trim=end_frame=6,setpts=PTS-STARTPTS[s1];"
                + "[b]\(still(10, 20, noise: 1))[s2];[c]trim=start_frame=20:end_frame=25,setpts=PTS-STARTPTS[s3];"
                + "[d]\(still(30, 20, noise: 3))[s4];[e]trim=start_frame=40:end_frame=45,setpts=PTS-STARTPTS[s5];"
                + "[f]\(still(50, 15, noise: nil))[s6];[g]trim=start_frame=60:end_frame=64,setpts=PTS-STARTPTS[s7];"
                + "[s1][s2][s3][s4][s5][s6][s7]concat=n=7:v=1,setpts=N/25/TB[out]", to: path)
        let log = try ffmpegFilterLog(path, "tpad=stop=1:color=white,freezedetect=n=-60dB:d=0.5")
        let starts = values(log, "freeze_start")
        let ends = values(log, "freeze_end")
        XCTAssertEqual(starts.count, 2, log)
        let theirs = zip(starts.map(frame), ends.map(frame)).map { ($0 + 1)...($1 - 1) }

        let stats = try ourStatistics(path)
        XCTAssertEqual(try ranges(stats, "frozen_frames"), theirs)
        let runs = try XCTUnwrap(stats["frozen_runs"] as? [[String: Any]], "no frozen_runs")
        XCTAssertEqual(runs.count, theirs.count)
        let frames = try decodedLumaChroma(path)
        for (i, run) in runs.enumerated() where i < theirs.count {
            XCTAssertEqual(run["frames"] as? [Int], [theirs[i].lowerBound, theirs[i].upperBound])
            XCTAssertEqual(try XCTUnwrap(run["start"] as? Double), starts[i], accuracy: 1e-9)
            XCTAssertEqual(try XCTUnwrap(run["end"] as? Double), ends[i], accuracy: 1e-9)
            // The mean absolute difference of every sample, over 2^10.
            let first = frames[theirs[i].lowerBound - 1]
            let largest = theirs[i].map { index in
                zip(frames[index], first).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            }.max()!
            let expected = Double(largest) / Double(first.count) / 1024
            let ours = try XCTUnwrap(run["difference"] as? Double)
            XCTAssertLessThanOrEqual(ours, 0.001)
            XCTAssertEqual(ours, expected, accuracy: max(expected * 0.3, 1e-9), "run \(i)")
        }
        // The GPU decoder's device pass reads the same grid.
        let gpu = try ourStatistics(path, decoder: "gpu")
        XCTAssertEqual(gpu["frozen_runs"] as? NSArray, stats["frozen_runs"] as? NSArray)
        try assertPageLists("frozen run", theirs, path)
    }

    /// A BT.709 clip whose chroma is stretched past the cube's edges: the
    /// `out-of-gamut` rule's share equals the float64 reference's count on
    /// the light grid of FFmpeg's decoded frames, on both our decoders, and
    /// the JSON report carries the same count.
    func testOutOfGamutAgreesWithAFloat64Reference() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent("gamut.mov").path
        let made = try runExternal(
            [
                "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=size=\(Self.size):rate=25,format=yuv422p10le", "-vf",
                "trim=end_frame=6,lutyuv=u='clip((val-512)*1.8+512,64,960)':v='clip((val-512)*1.8+512,64,960)'",
                "-c:v", "prores_ks", "-profile:v", "3", "-color_primaries", "bt709", "-color_trc", "bt709",
                "-colorspace", "bt709", path,
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        var outside: UInt64 = 0
        var points: UInt64 = 0
        for frame in try decodedLumaChroma(path) {
            let planes = [0, 192 * 108, 192 * 108 + 96 * 108]
            let count = referenceGamutBT709(width: 192, height: 108) { plane, x, y in
                frame[planes[plane] + y * (plane == 0 ? 192 : 96) + x]
            }
            outside += count.outside
            points += count.points
        }
        let expected = Double(outside) / Double(points)
        XCTAssertGreaterThan(expected, 0.01, "the clip leaves the gamut")
        for decoder in ["cpu", "gpu"] {
            // The rule's own words give the share: a rule that cannot hold.
            let result = try runTool([
                "check", path, "--decoder", decoder, "--policy", "none", "--expect", "out-of-gamut<0",
            ])
            XCTAssertEqual(result.status, 10, result.stderr)
            let got = try XCTUnwrap(result.stderr.components(separatedBy: "got ").last)
            let share = try XCTUnwrap(Double(got.prefix { !$0.isWhitespace }), result.stderr)
            // The GPU counts in float32: a pixel at the tolerance may part.
            XCTAssertEqual(share, expected, accuracy: decoder == "cpu" ? 1e-6 : 1e-6 + 1 / Double(points), decoder)
        }
        let stats = try ourStatistics(path)
        let gamut = try XCTUnwrap(stats["out_of_gamut"] as? [String: Any])
        XCTAssertEqual(gamut["outside"] as? Int, Int(outside))
        XCTAssertEqual(gamut["grid_points"] as? Int, Int(points))
        let held = try runTool(
            [
                "check", path, "--decoder", "cpu", "--policy", "none", "--expect",
                "out-of-gamut<=\(expected * 100 + 0.01)%",
            ])
        XCTAssertEqual(held.status, 0, held.stderr)
    }

    /// Every frame of `path` as FFmpeg decodes it: its yuv422p10le samples,
    /// planes one after another.
    private func decodedLumaChroma(_ path: String) throws -> [[UInt16]] {
        let run = try runExternal(
            ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv422p10le", "-"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let words: [UInt16] = run.stdout.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        let frameWords = 192 * 108 * 2
        return stride(from: 0, to: words.count - frameWords + 1, by: frameWords).map {
            words[$0..<$0 + frameWords].map(UInt16.init(littleEndian:))
        }
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
