import Foundation
import XCTest

@testable import ProResCheck
@testable import ProResCore
@testable import ProResFFmpeg
@testable import TestSupport

/// Frame rate and timestamps of clips whose frames do not keep their rate,
/// made by the `ffmpeg` CLI: the nominal rate is ffprobe's `r_frame_rate`,
/// `--framemd5` is `ffmpeg -f framemd5`'s to the byte, and the gaps and
/// duplicated timestamps are named by frame and time.
final class TrackTimingTests: XCTestCase {
    /// Clips made once for the class: name → path.
    // nonisolated(unsafe): XCTest runs a class's tests one after another, on one thread.
    nonisolated(unsafe) private static var clips: [String: String] = [:]

    private static func clip(_ name: String) throws -> String {
        if let path = clips[name] { return path }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "track-timing-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("\(name).mov").path
        let filters: [String: (rate: String, frames: Int, filter: String?)] = [
            // Frames 9, 10 and 11 dropped, the others keeping their times.
            "gap": ("25", 28, "select='not(between(n\\,9\\,11))'"),
            // Frame 5 stamped with frame 4's time (the muxer moves it one tick on).
            "duplicate": ("25", 20, "setpts='if(eq(N\\,5)\\,4\\,N)/TB/25'"),
            "ntsc": ("24000/1001", 12, nil),
            "steady": ("25", 10, nil),
        ]
        guard let recipe = filters[name] else { throw XCTSkip("no recipe for \(name)") }
        var arguments = [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x96:rate=\(recipe.rate)", "-frames:v",
            "\(recipe.frames)",
        ]
        if let filter = recipe.filter { arguments += ["-vf", filter] }
        arguments += ["-fps_mode", "passthrough", "-pix_fmt", "yuv422p10le", "-c:v", "prores_ks", path]
        _ = try FrameTools.runProcess("/usr/bin/ffmpeg", arguments)
        clips[name] = path
        return path
    }

    private func ffprobe(_ path: String, _ entries: String) throws -> String {
        let out = try FrameTools.runProcess(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "default=nw=1:nk=1", path])
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func info(_ path: String) throws -> [String: Any] {
        let result = try runTool(["info", "--json", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    /// `info`'s frame rate is ffprobe's r_frame_rate, its duration ffprobe's stream duration.
    func testNominalRateAndDurationAreFFprobes() throws {
        for name in ["gap", "duplicate", "ntsc", "steady"] {
            let path = try Self.clip(name)
            let described = try info(path)
            XCTAssertEqual(described["frame_rate"] as? String, try ffprobe(path, "stream=r_frame_rate"), name)
            let duration = try XCTUnwrap(Double(try ffprobe(path, "stream=duration")), name)
            let ours = try XCTUnwrap(described["duration_seconds"] as? Double, name)
            XCTAssertEqual(ours, duration, accuracy: 0.0005, name)
        }
    }

    /// Matroska's cues need not list every frame: its rate is ffprobe's, and no step is judged from them.
    func testMatroskaCuesAreNotJudged() throws {
        let mkv = (try Self.clip("gap") as NSString).deletingPathExtension + ".mkv"
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", try Self.clip("gap"), "-c", "copy", mkv])
        let described = try info(mkv)
        XCTAssertEqual(described["frame_rate"] as? String, try ffprobe(mkv, "stream=r_frame_rate"))
        let notes = described["notes"] as? [String] ?? []
        XCTAssertFalse(notes.contains { $0.contains("timestamp") || $0.contains("variable") }, "\(notes)")
    }

    /// Variable rate is a note naming the kind; a steady clip has none.
    func testVariableRateIsNoted() throws {
        let gap = try info(try Self.clip("gap"))["notes"] as? [String] ?? []
        XCTAssertTrue(gap.contains("variable frame rate (nominal 25/1; gaps)"), "\(gap)")
        XCTAssertTrue(
            gap.contains("timestamp gap: frame 9 at 0.480 s follows frame 8 at 0.320 s, 3 frames' time missing"),
            "\(gap)")
        let duplicate = try info(try Self.clip("duplicate"))["notes"] as? [String] ?? []
        XCTAssertEqual(
            duplicate.filter { $0.hasPrefix("duplicated timestamp:") || $0.hasPrefix("timestamp gap:") }.count, 1,
            "\(duplicate)")
        XCTAssertTrue(
            duplicate.contains {
                $0.hasPrefix("duplicated timestamp: frame 5 at 0.160 s, 1 tick after frame 4 at 0.160 s")
            },
            "\(duplicate)")
        let steady = try info(try Self.clip("steady"))["notes"] as? [String] ?? []
        XCTAssertFalse(steady.contains { $0.contains("frame rate") || $0.contains("timestamp") }, "\(steady)")
    }

    /// The header (time base) and every line (pts) equal the ffmpeg CLI's.
    func testFrameMD5EqualsFFmpegs() throws {
        for name in ["gap", "duplicate", "ntsc"] {
            let path = try Self.clip(name)
            let live = try FrameTools.runProcess(
                "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-fflags", "+bitexact", "-f", "framemd5", "-"])
            let ours = try runTool([path, "--format", "native", "--framemd5", "-", "--quiet"])
            XCTAssertEqual(ours.status, 0, ours.stderr)
            XCTAssertEqual(ours.stdoutText, String(decoding: live, as: UTF8.self), name)
        }
    }

    /// `check` WARNs of such a clip, each irregularity a warning, frame and time named.
    func testCheckWarnsOfGapsByFrameAndTime() throws {
        let result = try runTool(["check", try Self.clip("gap"), "--decoder", "cpu"])
        XCTAssertEqual(result.status, 15, "a WARN: " + result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "  warning: timing: timestamp gap: frame 9 at 0.480 s follows frame 8 at 0.320 s, 3 frames' time missing"
            ), result.stderr)
        let steady = try runTool(["check", try Self.clip("steady"), "--decoder", "cpu"])
        XCTAssertFalse(steady.stderr.contains("warning"), steady.stderr)
    }

    /// Steps judged on hand-laid timestamps.
    func testStepsJudgedByHand() throws {
        // 24000/1001 in milliseconds: 42 and 41 ms steps, within a tick of the nominal 42.
        let ntsc = try XCTUnwrap(TrackTiming(timestamps: [0, 42, 83, 125, 167, 209, 250], timeBase: (1, 1000)))
        XCTAssertTrue(ntsc.isConstant)
        // 25 fps in 1/12800: frame 3 goes back; frame 4 keeps the slot after frame 3's.
        let back = try XCTUnwrap(TrackTiming(timestamps: [0, 512, 1024, 1000, 2048], timeBase: (1, 12800)))
        XCTAssertEqual(back.irregularities.map(\.kind), [.backwards])
        XCTAssertEqual(back.findings, ["timestamp goes back: frame 3 at 0.078 s comes before frame 2 at 0.080 s"])
        let uneven = try XCTUnwrap(TrackTiming(timestamps: [0, 512, 1024, 1600], timeBase: (1, 12800)))
        XCTAssertEqual(
            uneven.findings, ["uneven step: frame 3 at 0.125 s follows frame 2 at 0.080 s (576 ticks, nominal 512)"])
        // Equally common steps: the shorter is nominal, the longer a gap of one frame.
        let tie = try XCTUnwrap(TrackTiming(timestamps: [0, 512, 1536], timeBase: (1, 12800)))
        XCTAssertEqual(tie.step, 512)
        XCTAssertEqual(tie.nominalRate?.numerator, 25)
        XCTAssertEqual(
            tie.findings, ["timestamp gap: frame 2 at 0.120 s follows frame 1 at 0.040 s, 1 frame's time missing"])
        XCTAssertNil(TrackTiming(timestamps: [7], timeBase: (1, 25)))
        XCTAssertNil(TrackTiming(timestamps: [5, 5, 5], timeBase: (1, 25)), "no forward step")
        // A forged table: refused, never a trap.
        XCTAssertNil(TrackTiming(timestamps: [Int64.min, 0, Int64.max], timeBase: (1, 25)))
        let forged = try XCTUnwrap(
            TrackTiming(
                timestamps: [0, 1 << 60] + Array(repeating: 1 << 60, count: 1000) + [-(1 << 60)],
                timeBase: (Int(Int32.max), 1)))
        XCTAssertNil(forged.nominalRate, "2^31 × 2^60 ticks do not fit: no rate")
        XCTAssertEqual(forged.irregularities.last?.kind, .backwards)
    }

    /// `fps` takes a decimal to the places written, or an exact fraction.
    func testFrameRateRules() throws {
        let source = try openSampleSource(try Self.clip("ntsc"))
        let facts = ExpectRule.Facts(format: source.format, frames: 12, maxNits: nil)
        let shown = "24000/1001 (23.976)"
        let cases: [(String, String?)] = [
            ("fps=23.976", nil), ("fps=23.98", nil), ("fps=24000/1001", nil), ("fps=24", shown),
            ("fps=23.97", shown), ("fps=24000/1000", shown), ("fps!=24000/1001", shown), ("fps>=23.976", nil),
            ("fps>23.976", shown), ("fps<24", nil), ("fps<=23.98", nil),
        ]
        for (text, actual) in cases {
            XCTAssertEqual(try ExpectRule(text).violation(facts), actual, text)
        }
        for bad in ["fps=24000/0", "fps=1/2/3", "fps=24000/", "fps=-24"] {
            XCTAssertThrowsError(try ExpectRule(bad), bad)
        }
    }
}
