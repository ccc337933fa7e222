import Foundation
import XCTest

@testable import TestSupport

/// `play`'s sound, heard from outside: a private PulseAudio server with a
/// null sink, whose monitor parec records while `play` runs on a private
/// Xvfb. The clip, made by the ffmpeg CLI, is 2 s at 25 fps with a quiet
/// 440 Hz tone throughout and a loud click at 1.2 s (frame 30, which is
/// white): the tone's first sample marks where the sound started in the
/// recording, the click how far into the clip it had played.
final class PlaySoundTests: XCTestCase {
    static let clickSeconds = 1.2
    static let framePeriod = 0.04
    /// The tone's peak is 0.1 and the click's 0.7 to 0.9: a sample over
    /// `heard` is sound, one over `click` the click.
    static let heard: Float = 0.02
    static let click: Float = 0.5
    /// How much of a stream's start the null sink's monitor may miss: paplay
    /// of the same sound as a WAV file records its click 1.183 s after its
    /// first sample, not 1.2 s.
    static let monitorStartLoss = 0.05

    /// The tone, then the click 1.2 s after it; the recording's sound lasts
    /// as long as the summary says it played, and each frame was shown
    /// within a frame period of its sound.
    func testTheSoundPlaysAndPacesTheFrames() throws {
        let (summary, samples) = try playRecorded(["--json"])
        XCTAssertEqual(summary["presented"] as? Int, 50, "\(summary)")
        let audio = try XCTUnwrap(summary["audio"] as? [String: Any], "\(summary)")
        XCTAssertEqual(audio["played"] as? Bool, true, "\(audio)")
        XCTAssertTrue((audio["server"] as? String)?.hasPrefix("pulseaudio") == true, "\(audio)")
        let underruns = try XCTUnwrap(audio["underruns"] as? Int, "\(audio)")
        let sound = try Sound(samples)
        // The tone is 0.1 × sin: an RMS of 0.071 where it plays.
        XCTAssertGreaterThan(sound.rms, 0.02, "the recording is (nearly) silent")
        let clickAfterStart = sound.clickSeconds - sound.startSeconds
        // Sound cannot come early (but for the monitor's loss); an underrun (a pause in the sound) may make it late.
        XCTAssertGreaterThan(clickAfterStart, Self.clickSeconds - Self.monitorStartLoss, "\(audio)")
        XCTAssertLessThan(clickAfterStart, Self.clickSeconds + 0.1 + 0.2 * Double(underruns), "\(audio)")
        let seconds = try XCTUnwrap(audio["seconds"] as? Double, "\(audio)")
        XCTAssertEqual(sound.endSeconds - sound.startSeconds, seconds, accuracy: 0.15 + 0.2 * Double(underruns))
        XCTAssertEqual(seconds, 2, accuracy: 0.15, "\(audio)")
        let offset = try XCTUnwrap(audio["av_offset_ms"] as? [String: Double], "\(audio)")
        XCTAssertLessThan(try XCTUnwrap(offset["p99"]), Self.framePeriod * 1000, "\(audio)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(offset["p50"]), try XCTUnwrap(offset["p99"]))
    }

    /// `--start 1s`: the sound starts there too, so the click comes 0.2 s in.
    func testTheSoundStartsAtStart() throws {
        let (summary, samples) = try playRecorded(["--json", "--start", "1s"])
        XCTAssertEqual(summary["presented"] as? Int, 25, "\(summary)")
        let sound = try Sound(samples)
        let underruns = (summary["audio"] as? [String: Any])?["underruns"] as? Int ?? 0
        let clickAfterStart = sound.clickSeconds - sound.startSeconds
        XCTAssertGreaterThan(clickAfterStart, Self.clickSeconds - 1 - Self.monitorStartLoss)
        XCTAssertLessThan(clickAfterStart, Self.clickSeconds - 1 + 0.1 + 0.2 * Double(underruns))
    }

    /// `--audio none`: no stream, frames on the clock; `--mute`: a stream
    /// that paces the frames but is heard as nothing.
    func testNoneAndMuteAreSilent() throws {
        let (silent, nothing) = try playRecorded(["--json", "--audio", "none"])
        XCTAssertEqual(silent["presented"] as? Int, 50, "\(silent)")
        let none = try XCTUnwrap(silent["audio"] as? [String: Any], "\(silent)")
        XCTAssertEqual(none["played"] as? Bool, false, "\(none)")
        XCTAssertEqual(none["reason"] as? String, "--audio none", "\(none)")
        XCTAssertLessThan(nothing.map(abs).max() ?? 0, 0.001, "--audio none was heard")

        let (muted, quiet) = try playRecorded(["--json", "--mute"])
        XCTAssertEqual(muted["presented"] as? Int, 50, "\(muted)")
        XCTAssertEqual((muted["audio"] as? [String: Any])?["played"] as? Bool, true, "\(muted)")
        XCTAssertLessThan(quiet.map(abs).max() ?? 0, 0.001, "--mute was heard")
    }

    /// No server at all: one line says so, the frames play on the clock, exit 0.
    func testNoServerSaysSoOnceAndPlaysSilently() throws {
        let xvfb = try XvfbServer(self)
        let directory = try makeTemporaryDirectory(self)
        let clip = try makeClip(in: directory)
        let run = try runTool(
            ["play", clip, "--json", "--frames", "10"],
            environment: [
                "DISPLAY": xvfb.display, "PULSE_SERVER": "unix:" + directory.appendingPathComponent("none").path,
            ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, run.stderr)
        XCTAssertTrue(lines.first?.contains("without sound") == true, run.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], run.stdoutText)
        XCTAssertEqual(summary["presented"] as? Int, 10)
        XCTAssertEqual((summary["audio"] as? [String: Any])?["played"] as? Bool, false, "\(summary)")
    }

    /// Space pauses the sound with the picture and resumes it where it
    /// stopped: the recording has a gap, and the sound around it adds up
    /// to the clip's 2 s, as the summary says.
    func testPauseStopsTheSoundAndResumesIt() throws {
        let (summary, samples) = try playRecorded(["--json"], keys: ["space", "space"])
        let audio = try XCTUnwrap(summary["audio"] as? [String: Any], "\(summary)")
        let seconds = try XCTUnwrap(audio["seconds"] as? Double, "\(audio)")
        XCTAssertEqual(seconds, 2, accuracy: 0.15, "\(audio)")
        let sound = try Sound(samples)
        XCTAssertGreaterThan(sound.longestGapSeconds, 0.4, "no pause was heard")
        XCTAssertEqual(
            sound.endSeconds - sound.startSeconds - sound.longestGapSeconds, seconds, accuracy: 0.15, "\(audio)")
    }

    /// m mutes and unmutes: a gap in the recording while the frames (and
    /// the sound's clock) go on, so the whole clip's sound still plays.
    func testMuteKeySilencesTheSoundWhileItPlaysOn() throws {
        let (summary, samples) = try playRecorded(["--json"], keys: ["m", "m"])
        let audio = try XCTUnwrap(summary["audio"] as? [String: Any], "\(summary)")
        XCTAssertEqual(try XCTUnwrap(audio["seconds"] as? Double), 2, accuracy: 0.15, "\(audio)")
        let sound = try Sound(samples)
        XCTAssertGreaterThan(sound.longestGapSeconds, 0.2, "the mute was not heard")
        XCTAssertEqual(sound.endSeconds - sound.startSeconds, 2, accuracy: 0.15, "\(audio)")
    }

    /// 9, 9, Down (70 %), 0, Up: the server holds play's stream at 90 % of
    /// its normal volume, as pactl reads it back.
    func testVolumeKeysSetTheStreamsVolume() throws {
        _ = try playRecorded(["--json"], keys: ["9", "9", "Down", "0", "Up"], keyGap: 0.1) { pulse in
            let inputs = try pulse.pactl(["list", "sink-inputs"]).text
            let volume = inputs.split(separator: "\n").first { $0.contains("Volume:") && !$0.contains("Base") }
            XCTAssertTrue(volume?.contains("90%") == true, inputs)
        }
    }

    /// `--loop --start 1s --frames 10`: each pass starts the sound at 1 s
    /// again, so the click (at 1.2 s) comes back every 0.4 s of sound.
    func testEachLoopStartsTheSoundAgain() throws {
        let (summary, samples) = try playRecorded(
            ["--json", "--loop", "--start", "1s", "--frames", "10"], keys: ["q"], keyDelay: 1.5)
        let underruns = (summary["audio"] as? [String: Any])?["underruns"] as? Int ?? 0
        let clicks = Sound.clicks(in: samples)
        XCTAssertGreaterThanOrEqual(clicks.count, 3, "\(clicks) \(summary)")
        for (earlier, later) in zip(clicks, clicks.dropFirst()) {
            // A new stream per pass: its start may add a few tens of ms of silence.
            XCTAssertGreaterThan(later - earlier, 0.4 - Self.monitorStartLoss, "\(clicks)")
            XCTAssertLessThan(later - earlier, 0.4 + 0.15 + 0.2 * Double(underruns), "\(clicks)")
        }
    }

    /// `play CLIP ARGUMENTS` on a private X and sound server, recorded; its
    /// summary and the recording. Each of `keys` goes to the window `keyGap`
    /// seconds after the one before, the first `keyDelay` seconds after
    /// the fifth frame is on screen.
    private func playRecorded(
        _ arguments: [String], keys: [String], keyDelay: Double = 0, keyGap: Double = 0.5,
        whilePlaying: (PulseAudioServer) throws -> Void = { _ in }
    ) throws -> ([String: Any], [Float]) {
        let xvfb = try XvfbServer(self)
        let pulse = try PulseAudioServer(self)
        let directory = try makeTemporaryDirectory(self)
        let clip = try makeClip(in: directory)
        let recording = try pulse.record(to: directory.appendingPathComponent("heard.f32"))
        let player = Process()
        player.executableURL = Repo.executable
        player.arguments = ["play", clip, "--hud"] + arguments
        player.environment = ProcessInfo.processInfo.environment.merging(
            pulse.environment.merging(["DISPLAY": xvfb.display]) { $1 }
        ) { $1 }
        let stdout = Pipe()
        player.standardOutput = stdout
        player.standardError = FileHandle.nullDevice
        try player.run()
        addTeardownBlock { if player.isRunning { player.terminate() } }
        var window: String?
        let deadline = Date().addingTimeInterval(60)
        while window == nil, player.isRunning, Date() < deadline {
            let search = try xvfb.client(["xdotool", "search", "--name", "prores-decode — click.mov"])
            window = search.text.split(separator: "\n").first.map(String.init)
            if window == nil { usleep(50_000) }
        }
        let found = try XCTUnwrap(window, "the player's window did not appear")
        // The window comes before the first frame, and the first frame
        // before the sound (a fresh null sink takes up to seconds to
        // start): the keys wait for the HUD's fifth frame, by which the
        // sound's clock has moved.
        var seen: [Int] = []
        while seen.count < 5, player.isRunning, Date() < deadline {
            let title = try xvfb.client(["xdotool", "getwindowname", found]).text
            let frame = title.split(separator: " ").drop { $0 != "frame" }.dropFirst().first.flatMap { Int($0) }
            if let frame, frame != seen.last { seen.append(frame) } else { usleep(10_000) }
        }
        XCTAssertEqual(seen.count, 5, "the player did not show five frames")
        Thread.sleep(forTimeInterval: keyDelay)
        for (index, key) in keys.enumerated() {
            if index > 0 { usleep(UInt32(keyGap * 1e6)) }
            XCTAssertEqual(try xvfb.client(["xdotool", "key", "--window", found, key]).status, 0)
        }
        try whilePlaying(pulse)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        player.waitUntilExit()
        let samples = try recording.stop()
        XCTAssertEqual(player.terminationStatus, 0)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: output) as? [String: Any])
        return (summary, samples)
    }

    /// `--rate` other than the clip's: the sound cannot follow, so one
    /// line says so and nothing is heard, though a server is there.
    func testAnotherRateIsSilentAndSaysSo() throws {
        let xvfb = try XvfbServer(self)
        let pulse = try PulseAudioServer(self)
        let directory = try makeTemporaryDirectory(self)
        let clip = try makeClip(in: directory)
        let recording = try pulse.record(to: directory.appendingPathComponent("heard.f32"))
        let run = try runTool(
            ["play", clip, "--json", "--rate", "50", "--frames", "20"],
            environment: pulse.environment.merging(["DISPLAY": xvfb.display]) { $1 })
        let samples = try recording.stop()
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, run.stderr)
        XCTAssertTrue(lines.first?.contains("--rate") == true, run.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], run.stdoutText)
        XCTAssertEqual(summary["presented"] as? Int, 20, "\(summary)")
        XCTAssertEqual((summary["audio"] as? [String: Any])?["played"] as? Bool, false, "\(summary)")
        XCTAssertLessThan(samples.map(abs).max() ?? 0, 0.001, "--rate 50 was heard")
    }

    /// `play CLIP ARGUMENTS` on a private X and sound server, recorded; its summary and the recording.
    private func playRecorded(_ arguments: [String]) throws -> ([String: Any], [Float]) {
        let xvfb = try XvfbServer(self)
        let pulse = try PulseAudioServer(self)
        let directory = try makeTemporaryDirectory(self)
        let clip = try makeClip(in: directory)
        let recording = try pulse.record(to: directory.appendingPathComponent("heard.f32"))
        let run = try runTool(
            ["play", clip] + arguments, environment: pulse.environment.merging(["DISPLAY": xvfb.display]) { $1 })
        let samples = try recording.stop()
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("without sound"), run.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], run.stdoutText)
        return (summary, samples)
    }

    /// 2 s of 96×64 black at 25 fps with frame 30 white; the tone and the click at 1.2 s.
    private func makeClip(in directory: URL) throws -> String {
        let clip = directory.appendingPathComponent("click.mov").path
        let made = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=black:size=96x64:rate=25:duration=2",
            "-f", "lavfi", "-i", "aevalsrc=0.1*sin(2*PI*440*t)+0.8*between(t\\,1.2\\,1.205):s=48000:d=2",
            "-vf", "drawbox=color=white:t=fill:enable='eq(n,30)'", "-c:v", "prores_ks", "-profile:v", "0",
            "-c:a", "pcm_s16le", clip,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return clip
    }
}

/// Where sound is in a recording, in seconds from its start.
private struct Sound {
    let rms: Double
    let startSeconds: Double
    let clickSeconds: Double
    let endSeconds: Double
    /// The longest run of silence between the first sound and the last.
    let longestGapSeconds: Double

    /// When each click starts, in seconds: a sample over the click's level
    /// after at least 0.1 s without one.
    static func clicks(in samples: [Float]) -> [Double] {
        var starts: [Double] = []
        var last = -Int.max / 2
        for (index, sample) in samples.enumerated() where abs(sample) > PlaySoundTests.click {
            if index - last > 4_800 { starts.append(Double(index) / 48_000) }
            last = index
        }
        return starts
    }

    init(_ samples: [Float]) throws {
        let rate = 48_000.0
        let start = try XCTUnwrap(samples.firstIndex { abs($0) > PlaySoundTests.heard }, "nothing was heard")
        let click = try XCTUnwrap(samples.firstIndex { abs($0) > PlaySoundTests.click }, "no click was heard")
        let end = try XCTUnwrap(samples.lastIndex { abs($0) > PlaySoundTests.heard })
        let heard = samples[start...end]
        rms = (heard.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(heard.count)).squareRoot()
        var longest = 0
        var run = 0
        for sample in heard {
            run = abs(sample) > PlaySoundTests.heard ? 0 : run + 1
            longest = max(longest, run)
        }
        longestGapSeconds = Double(longest) / rate
        startSeconds = Double(start) / rate
        clickSeconds = Double(click) / rate
        endSeconds = Double(end) / rate
    }
}
