import Foundation
import XCTest

@testable import TestSupport

/// `-o out.mov` and `.nut` carry the input's PCM tracks: each track's
/// samples equal, one for one, the `ffmpeg` CLI's decode of the input's
/// (`-f md5`), whole or cut to `--start`/`--frames` as `atrim` cuts them;
/// a track that is not carried is named on stderr; `--audio none` drops
/// them without a word.
final class AudioOutputTests: XCTestCase {
    /// md5 of one audio track's samples as the `ffmpeg` CLI decodes them, at 32 bits (24-bit samples kept whole).
    private func md5(_ path: String, track: Int, filter: String? = nil) throws -> String {
        let run = try runExternal(
            ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a:\(track)"]
                + (filter.map { ["-af", $0] } ?? []) + ["-c:a", "pcm_s32le", "-f", "md5", "-"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func audioStreams(_ path: String) throws -> [[String: Any]] { try AudioTestMedia.probeAudio(path) }

    func testMOVAndNUTCarryEveryTrackSampleForSample() throws {
        let dir = try makeTemporaryDirectory(self)
        let input = try AudioTestMedia.movFivePointOneAndStereo(dir)
        for name in ["out.mov", "out.nut"] {
            let output = dir.appendingPathComponent(name).path
            let run = try runTool([input, "-o", output, "--quiet"])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.stderr, "", "nothing is left out, so nothing is said")
            let streams = try audioStreams(output)
            XCTAssertEqual(streams.map { $0["codec_name"] as? String }, ["pcm_s24le", "pcm_s24le"], name)
            XCTAssertEqual(streams.map { $0["channels"] as? Int }, [6, 2], name)
            for track in 0..<2 {
                XCTAssertEqual(try md5(output, track: track), try md5(input, track: track), "\(name) track \(track)")
            }
            // The command as a user would type it: every track at once, FFmpeg's default sample format.
            let whole = { (path: String) in
                try runExternal(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-f", "md5", "-"]).text
            }
            XCTAssertEqual(try whole(output), try whole(input), name)
        }
        // The picture is what it was without sound.
        let silent = dir.appendingPathComponent("silent.mov").path
        XCTAssertEqual(try runTool([input, "-o", silent, "--audio", "none", "--quiet"]).status, 0)
        XCTAssertEqual(try audioStreams(silent).count, 0, "--audio none")
        let frames = { (path: String) in
            try runExternal(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v", "-f", "md5", "-"]).text
        }
        XCTAssertEqual(try frames(dir.appendingPathComponent("out.mov").path), try frames(silent))
    }

    func testMXFMonoTracksIntoMOV() throws {
        let dir = try makeTemporaryDirectory(self)
        let input = try AudioTestMedia.mxfMonoTracks(dir)
        let output = dir.appendingPathComponent("out.mov").path
        let run = try runTool([input, "-o", output, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try audioStreams(output).count, 2)
        for track in 0..<2 { XCTAssertEqual(try md5(output, track: track), try md5(input, track: track)) }
    }

    /// Frames 25–74 of 25 fps are seconds 1–3: samples 48,000 to 144,000 of each track.
    func testARangeOfFramesCutsEachTrackToTheSample() throws {
        let dir = try makeTemporaryDirectory(self)
        let input = try AudioTestMedia.movFivePointOneAndStereo(dir)
        for name in ["cut.mov", "cut.nut"] {
            let output = dir.appendingPathComponent(name).path
            let run = try runTool([input, "-o", output, "--start", "25", "--frames", "50", "--quiet"])
            XCTAssertEqual(run.status, 0, run.stderr)
            for track in 0..<2 {
                XCTAssertEqual(
                    try md5(output, track: track),
                    try md5(input, track: track, filter: "atrim=start_sample=48000:end_sample=144000"),
                    "\(name) track \(track)")
            }
        }
    }

    func testTracksThatAreNotCarriedAreNamed() throws {
        let dir = try makeTemporaryDirectory(self)
        let input = try AudioTestMedia.movFivePointOneAndStereo(dir)
        let y4m = try runTool([input, "-o", dir.appendingPathComponent("out.y4m").path, "--quiet"])
        XCTAssertEqual(y4m.status, 0, y4m.stderr)
        XCTAssertEqual(
            y4m.stderr.split(separator: "\n"),
            [
                "prores-decode: warning: audio track 1 (pcm_s24le, 6 channels) is not carried: y4m holds no sound "
                    + "(write .mov or .nut); --audio none drops it without this line",
                "prores-decode: warning: audio track 2 (pcm_s24le, 2 channels) is not carried: y4m holds no sound "
                    + "(write .mov or .nut); --audio none drops it without this line",
            ])
        let quiet = try runTool([
            input, "-o", dir.appendingPathComponent("none.y4m").path, "--quiet", "--audio", "none",
        ])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "")

        let aac = try AudioTestMedia.stereo(dir, name: "aac.mov", codec: "aac")
        let out = dir.appendingPathComponent("aac-out.mov").path
        let run = try runTool([aac, "-o", out, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            run.stderr.contains("audio track 1 (aac, 2 channels) is not carried: only PCM is copied"), run.stderr)
        XCTAssertEqual(try audioStreams(out).count, 0)

        // From a pipe the sound cannot be read a second time.
        let mkv = try AudioTestMedia.stereo(dir, name: "pipe.mkv")
        let piped = try runTool(["-", "-o", dir.appendingPathComponent("pipe.nut").path, "--quiet"], stdinPath: mkv)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(
            piped.stderr.contains("audio track 1 (pcm_s24le, 2 channels) is not carried: the input is read once"))

        let alone = try runTool([input, "--audio", "none"])
        XCTAssertEqual(alone.status, 2)
        XCTAssertEqual(alone.stderr, "prores-decode: error: --audio needs -o PATH\n")
        let wrong = try runTool([input, "-o", out, "--audio", "all"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("invalid value 'all' for --audio: expected copy or none"), wrong.stderr)
    }
}
