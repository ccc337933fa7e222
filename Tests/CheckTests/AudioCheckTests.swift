import Foundation
import XCTest

@testable import ProResCheck
@testable import TestSupport

/// `check` measures every sound track: the loudness, loudness range and
/// peaks against hand-computed EBU Tech 3341/3342-style tones made by the
/// `ffmpeg` CLI's `aevalsrc` and against its `ebur128=peak=true` filter on
/// the same file; silence against its `silencedetect`; clipping against the
/// samples the `ffmpeg` CLI decodes, counted in the test; and the sound
/// rules of `--expect`.
final class AudioCheckTests: XCTestCase {
    /// A tiny 1 fps video of `seconds` with `audio` (an aevalsrc expression) as pcm_s24le at 48 kHz.
    private func clip(_ name: String, seconds: Int, audio: String, layout: String? = nil, audioSeconds: Int? = nil)
        throws -> String
    {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent(name).path
        let layoutOption = layout.map { ":c=\($0)" } ?? ""
        try AudioTestMedia.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=1:duration=\(seconds)", "-f", "lavfi", "-i",
            // Commas inside the expression are escaped from the filter graph's own.
            "aevalsrc=\(audio.replacingOccurrences(of: ",", with: "\\,")):s=48000:d=\(audioSeconds ?? seconds)\(layoutOption)",
            "-map", "0:v", "-map", "1:a",
            "-c:v", "prores_ks", "-c:a", "pcm_s24le", path,
        ])
        return path
    }

    private func report(_ path: String, _ extra: [String] = []) throws -> (status: Int32, file: [String: Any]) {
        let run = try runTool(["check", path, "--report", "-"] + extra)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], run.stderr)
        let files = try XCTUnwrap(object["files"] as? [[String: Any]])
        return (run.status, try XCTUnwrap(files.first))
    }

    private func tracks(_ file: [String: Any]) throws -> [[String: Any]] {
        let audio = try XCTUnwrap(file["audio"] as? [String: Any], "the report's audio")
        return try XCTUnwrap(audio["tracks"] as? [[String: Any]])
    }

    /// The summary of ffmpeg's `ebur128=peak=true` on track `track`: I, LRA, true peak.
    private func ffmpegLoudness(_ path: String, track: Int = 0) throws -> (i: Double, lra: Double, peak: Double) {
        let run = try runExternal([
            "ffmpeg", "-nostdin", "-hide_banner", "-i", path, "-map", "0:a:\(track)", "-af",
            "ebur128=peak=true", "-f", "null", "-",
        ])
        let summary = run.stderr.components(separatedBy: "Summary:").last ?? ""
        func value(_ label: String) throws -> Double {
            let line = try XCTUnwrap(summary.split(separator: "\n").first { $0.contains(label) }, label)
            let number = line.split(separator: " ").compactMap { Double($0) }
            return try XCTUnwrap(number.first, String(line))
        }
        return (try value("I:"), try value("LRA:"), try value("Peak:"))
    }

    /// EBU Tech 3341 cases 1 and 2: a stereo 1 kHz sine at -23 and -33 dBFS reads -23.0 and -33.0 LUFS
    /// (±0.1), a true peak of its amplitude; and equals ffmpeg's filter.
    func testSineLevelsReadAsTech3341Says() throws {
        for level in [-23.0, -33.0] {
            let amplitude = pow(10, level / 20)
            let tone = "\(amplitude)*sin(2*PI*1000*t)"
            let path = try clip("sine.mov", seconds: 20, audio: "\(tone)|\(tone)")
            let result = try report(path)
            XCTAssertEqual(result.status, 0)
            let track = try XCTUnwrap(try tracks(result.file).first)
            let loudness = try XCTUnwrap(track["integrated_lufs"] as? Double)
            XCTAssertEqual(loudness, level, accuracy: 0.1, "Tech 3341 at \(level) dBFS")
            XCTAssertEqual(try XCTUnwrap(track["true_peak_dbtp"] as? Double), level, accuracy: 0.2)
            // 48 samples a period: one of them is the crest.
            XCTAssertEqual(try XCTUnwrap(track["sample_peak_dbfs"] as? Double), level, accuracy: 0.01)
            let reference = try ffmpegLoudness(path)
            XCTAssertEqual(loudness, reference.i, accuracy: 0.1)
            XCTAssertEqual(try XCTUnwrap(track["loudness_range_lu"] as? Double), reference.lra, accuracy: 0.1)
            XCTAssertEqual(try XCTUnwrap(track["true_peak_dbtp"] as? Double), reference.peak, accuracy: 0.2)
        }
    }

    /// Tech 3342 case 1: 20 s at -20 dBFS then 20 s at -30 dBFS: a loudness range of 10 LU (±1), as ffmpeg's filter reads it.
    func testLoudnessRangeReadsAsTech3342Says() throws {
        let tone = "if(lt(t,20),0.1,0.0316228)*sin(2*PI*1000*t)"
        let path = try clip("range.mov", seconds: 40, audio: "\(tone)|\(tone)")
        let track = try XCTUnwrap(try tracks(try report(path).file).first)
        let range = try XCTUnwrap(track["loudness_range_lu"] as? Double)
        XCTAssertEqual(range, 10, accuracy: 1)
        XCTAssertEqual(range, try ffmpegLoudness(path).lra, accuracy: 0.1)
    }

    /// 5.1: the LFE counts for nothing and the surrounds 1.41 times, as in ffmpeg's filter.
    func testFivePointOneWeighsItsChannelsAsFFmpegsFilter() throws {
        let levels = [0.1, 0.05, 0.08, 0.5, 0.03, 0.02]
        let tones = levels.enumerated().map { "\($0.element)*sin(2*PI*\(500 + 100 * $0.offset)*t)" }
        let path = try clip("51.mov", seconds: 10, audio: tones.joined(separator: "|"), layout: "5.1")
        let track = try XCTUnwrap(try tracks(try report(path).file).first)
        XCTAssertEqual(track["channel_layout"] as? String, "5.1")
        let reference = try ffmpegLoudness(path)
        XCTAssertEqual(try XCTUnwrap(track["integrated_lufs"] as? Double), reference.i, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(track["true_peak_dbtp"] as? Double), reference.peak, accuracy: 0.2)
    }

    /// Clipping counted in the samples the ffmpeg CLI decodes; silence where silencedetect finds it; a silent channel.
    func testClippingSilenceAndSilentChannels() throws {
        let path = try clip("clip.mov", seconds: 8, audio: "if(between(t,2,5),0,1.5*sin(2*PI*440*t))|0")
        let track = try XCTUnwrap(try tracks(try report(path).file).first)
        // The decoded samples at the largest 24-bit code, either sign, counted here.
        let raw = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-f", "s32le", "-c:a", "pcm_s32le", "-",
        ])
        let samples = raw.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        let clipped = samples.filter { $0 >> 8 == 8_388_607 || $0 >> 8 == -8_388_608 }.count
        XCTAssertGreaterThan(clipped, 1000, "the tone is clipped")
        XCTAssertEqual(track["clipped_samples"] as? Int, clipped)
        XCTAssertEqual(track["silent_channels"] as? [Int], [1])
        // silencedetect's silence_start and silence_end, its defaults (-60 dB, 2 s).
        let detect = try runExternal([
            "ffmpeg", "-nostdin", "-hide_banner", "-i", path, "-map", "0:a", "-af", "silencedetect", "-f", "null", "-",
        ])
        func times(_ label: String) -> [Double] {
            detect.stderr.components(separatedBy: label + ": ").dropFirst().compactMap {
                Double($0.prefix { "0123456789.".contains($0) })
            }
        }
        let runs = try XCTUnwrap(track["silent_runs"] as? [[String: Double]])
        XCTAssertEqual(runs.count, times("silence_start").count, detect.stderr)
        for (run, (start, end)) in zip(runs, zip(times("silence_start"), times("silence_end"))) {
            XCTAssertEqual(try XCTUnwrap(run["start"]), start, accuracy: 0.001)
            XCTAssertEqual(try XCTUnwrap(run["end"]), end, accuracy: 0.001)
        }
        XCTAssertEqual(try XCTUnwrap(track["longest_silence_seconds"] as? Double), 3, accuracy: 0.001)
    }

    func testRulesPassAndFailOnTheMeasuredSound() throws {
        let amplitude = pow(10, -23.0 / 20)
        let tone = "\(amplitude)*sin(2*PI*1000*t)"
        let good = try clip("good.mov", seconds: 10, audio: "\(tone)|\(tone)")
        let rules = "loudness=-23±1,true-peak<=-1,audio-tracks=1,audio-layout=stereo,silence<=2s,av-duration<=1f"
        XCTAssertEqual(try report(good, ["--expect", rules]).status, 0)
        XCTAssertEqual(try report(good, ["--expect", "loudness=-23+-1"]).status, 0, "+- for ±")

        let loud = try report(good, ["--expect", "loudness=-16±1,audio-layout=5.1,audio-tracks>=2"])
        XCTAssertEqual(loud.status, 10)
        XCTAssertEqual(
            (loud.file["failed_rules"] as? [[String: String]])?.map { $0["actual"] ?? "" },
            ["track 1: -23.0 LUFS", "stereo", "1"])

        let short = try clip("short.mov", seconds: 10, audio: "\(tone)|\(tone)", audioSeconds: 8)
        let late = try report(short, ["--expect", "av-duration<=1f"])
        XCTAssertEqual(late.status, 10)
        XCTAssertEqual(
            (late.file["failed_rules"] as? [[String: String]])?.first?["actual"],
            "track 1: audio -2 s against the video (-2 frames)")
        XCTAssertEqual(try report(short, ["--expect", "av-duration<=2.5s"]).status, 0)

        let silent = try runTool([
            "check", AudioTestMedia.video(makeTemporaryDirectory(self)), "--expect", "audio-tracks>=1",
        ])
        XCTAssertEqual(silent.status, 10)
        XCTAssertTrue(silent.stderr.contains("expected audio-tracks>=1, got 0"), silent.stderr)

        for (rule, why) in [
            ("loudness>=-23±1", "± follows = only"), ("audio-layout>=5.1", "takes only = or !="),
            ("silence<=two", "is not a number"),
        ] {
            let run = try runTool(["check", good, "--expect", rule])
            XCTAssertEqual(run.status, 2, rule)
            XCTAssertTrue(run.stderr.contains(why), run.stderr)
        }
        let unmeasured = try runTool(["check", good, "--audio", "none", "--expect", "loudness=-23±1"])
        XCTAssertEqual(unmeasured.status, 2)
        XCTAssertTrue(unmeasured.stderr.contains("needs the sound measured"), unmeasured.stderr)
        let skipped = try report(good, ["--audio", "none"])
        XCTAssertNil(skipped.file["audio"], "--audio none measures nothing")
    }

    /// The default policy warns where there is sound: a true peak over
    /// -1 dBTP (as ffmpeg's `ebur128=peak=true` reads the file) and sound
    /// 2 s short of the picture. A file without sound, or a run with
    /// `--audio none`, meets both rules.
    func testTheDefaultPolicyWarnsOnPeaksAndLengthsWhereThereIsSound() throws {
        let soundRules = ["true-peak<=-1", "av-duration<=1f"]
        func warned(_ path: String, _ extra: [String] = []) throws -> [String] {
            let file = try report(path, ["--policy", "default"] + extra).file
            let rules = (file["warned_rules"] as? [[String: String]] ?? []).compactMap { $0["rule"] }
            return rules.filter(soundRules.contains)
        }
        let loud = try clip("loud.mov", seconds: 3, audio: "0.99*sin(2*PI*997*t)")
        XCTAssertGreaterThan(try ffmpegLoudness(loud).peak, -1, "ffmpeg reads the loud clip's true peak over -1 dBTP")
        let quiet = try clip("quiet.mov", seconds: 3, audio: "0.1*sin(2*PI*997*t)")
        XCTAssertLessThan(try ffmpegLoudness(quiet).peak, -1)
        let short = try clip("short.mov", seconds: 4, audio: "0.1*sin(2*PI*997*t)", audioSeconds: 2)
        XCTAssertEqual(try warned(loud), ["true-peak<=-1"])
        XCTAssertEqual(try warned(quiet), [])
        XCTAssertEqual(try warned(short), ["av-duration<=1f"])
        XCTAssertEqual(try warned(loud, ["--audio", "none"]), [], "--audio none: no sound measured, no sound rule")
        XCTAssertEqual(try warned(AudioTestMedia.video(makeTemporaryDirectory(self))), [], "a file without sound")
    }

    /// The shipped sound policies (EBU R 128, ATSC A/85) fail loudness and
    /// true peak exactly where ffmpeg's `ebur128=peak=true` reads them out
    /// of bounds.
    func testShippedSoundPoliciesJudgeAsFFmpegReadsTheSound() throws {
        for amplitude in ["0.1", "0.5"] {
            let path = try clip("tone-\(amplitude).mov", seconds: 3, audio: "\(amplitude)*sin(2*PI*997*t)")
            let reference = try ffmpegLoudness(path)
            for (policy, loudness, target, tolerance, ceiling) in [
                ("ebu-r128", "loudness=-23±1", -23.0, 1.0, -1.0), ("atsc-a85", "loudness=-24±2", -24.0, 2.0, -2.0),
            ] {
                let file = Repo.root.appendingPathComponent("docs/policies/\(policy).policy").path
                let failed = try report(path, ["--policy", file]).file["failed_rules"] as? [[String: String]] ?? []
                let broken = Set(failed.compactMap { $0["rule"] })
                let what = "\(policy), amplitude \(amplitude), ffmpeg: \(reference)"
                XCTAssertEqual(broken.contains(loudness), abs(reference.i - target) > tolerance, what)
                XCTAssertEqual(broken.contains("true-peak<=\(Int(ceiling))"), reference.peak > ceiling, what)
                XCTAssertFalse(broken.contains("audio-tracks>=1"), what)
            }
        }
    }

    /// `if sound` qualifies measured sound rules alone, and a file without
    /// sound meets such a rule where the same rule without it fails.
    func testIfSoundQualifiesMeasuredSoundRulesOnly() throws {
        let policy = try CheckPolicy.parse("warn true-peak<=-1 if sound\nfail loudness=-23±1", name: "p")
        XCTAssertEqual(policy.warningRules.map(\.onlyWithSound), [true])
        XCTAssertEqual(policy.failRules.map(\.onlyWithSound), [false])
        XCTAssertThrowsError(try CheckPolicy.parse("warn black-run<=1 if sound", name: "p")) { error in
            XCTAssertTrue("\(error)".contains("'if sound' follows a measured sound rule"), "\(error)")
        }
        let dir = try makeTemporaryDirectory(self)
        let file = dir.appendingPathComponent("sound.policy")
        try "fail true-peak<=-1 if sound\n".write(to: file, atomically: true, encoding: .utf8)
        let video = try AudioTestMedia.video(dir)
        XCTAssertEqual(try runTool(["check", video, "--policy", file.path]).status, 0)
        try "fail true-peak<=-1\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try runTool(["check", video, "--policy", file.path]).status, 10)
    }

    /// The report with sound matches the schema, and the page shows the numbers.
    func testReportAndPageCarryTheNumbers() throws {
        let amplitude = pow(10, -23.0 / 20)
        let path = try clip("page.mov", seconds: 4, audio: "\(amplitude)*sin(2*PI*1000*t)|0")
        let dir = try makeTemporaryDirectory(self)
        let reportPath = dir.appendingPathComponent("r.json").path
        let run = try runTool([
            "check", path, "--report", reportPath, "--html", dir.appendingPathComponent("p.html").path,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2])))]
            print(errors); sys.exit(1 if errors else 0)
            """
        let valid = try runExternal([
            "/usr/bin/python3", "-c", script,
            Repo.root.appendingPathComponent("docs/schema/check-report.schema.json").path,
            reportPath,
        ])
        XCTAssertEqual(valid.status, 0, valid.text)
        let page = try String(contentsOf: dir.appendingPathComponent("p.html"), encoding: .utf8)
        let track = try XCTUnwrap(try tracks(try report(path).file).first)
        let lufs = String(format: "%.1f", try XCTUnwrap(track["integrated_lufs"] as? Double))
        XCTAssertTrue(page.contains("<h3>Audio</h3>"), "the page's audio section")
        XCTAssertTrue(page.contains("<tr><td>1</td><td>stereo</td><td>\(lufs)</td>"), page)
    }
}
