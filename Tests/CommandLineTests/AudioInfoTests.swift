import Foundation
import XCTest

@testable import TestSupport

/// `info` and `info --json` list every sound track as ffprobe's
/// `-show_streams` reads it from files the `ffmpeg` CLI wrote: codec,
/// sample rate, bits, channels, layout, duration, language; the channel
/// labels as `ffmpeg -layouts` spells the layout; the difference from the
/// video's length as ffprobe's two durations give it.
final class AudioInfoTests: XCTestCase {
    private func infoJSON(_ path: String) throws -> [String: Any] {
        let run = try runTool(["info", "--json", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    }

    private func videoSeconds(_ path: String) throws -> Double {
        let run = try runExternal([
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
            "stream=nb_read_frames,r_frame_rate", "-of", "default=nw=1", path,
        ])
        var values: [String: String] = [:]
        for line in run.text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        let rate = try XCTUnwrap(values["r_frame_rate"]).split(separator: "/").compactMap { Double($0) }
        return try XCTUnwrap(Double(values["nb_read_frames"] ?? "")) * rate[1] / rate[0]
    }

    /// ffprobe's duration of a stream: its `duration`, else Matroska's DURATION tag.
    private func probedSeconds(_ stream: [String: Any]) -> Double? {
        if let text = stream["duration"] as? String, let seconds = Double(text) { return seconds }
        guard let tag = (stream["tags"] as? [String: String])?["DURATION"] else { return nil }
        let parts = tag.split(separator: ":").compactMap { Double($0) }
        return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
    }

    /// Every audio track of `path` in `info --json` equals ffprobe's reading.
    private func assertTracksAreFFprobes(_ path: String, count: Int, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let probed = try AudioTestMedia.probeAudio(path)
        XCTAssertEqual(probed.count, count, "ffprobe's audio streams", file: file, line: line)
        let tracks = try XCTUnwrap(try infoJSON(path)["audio_tracks"] as? [[String: Any]], file: file, line: line)
        XCTAssertEqual(tracks.count, probed.count, file: file, line: line)
        let layouts = try AudioTestMedia.layoutChannels()
        let video = try videoSeconds(path)
        for (track, probe) in zip(tracks, probed) {
            XCTAssertEqual(track["index"] as? Int, probe["index"] as? Int, file: file, line: line)
            XCTAssertEqual(track["codec"] as? String, probe["codec_name"] as? String, file: file, line: line)
            XCTAssertEqual(
                (track["sample_rate"] as? Int).map(String.init), probe["sample_rate"] as? String, file: file, line: line
            )
            XCTAssertEqual(track["bit_depth"] as? Int, probe["bits_per_sample"] as? Int, file: file, line: line)
            XCTAssertEqual(track["channels"] as? Int, probe["channels"] as? Int, file: file, line: line)
            let probedLayout = probe["channel_layout"] as? String
            XCTAssertEqual(
                track["channel_layout"] as? String, probedLayout == "unknown" ? nil : probedLayout, file: file,
                line: line)
            XCTAssertEqual(
                track["channel_labels"] as? [String], probedLayout.flatMap { layouts[$0] } ?? [], file: file,
                line: line)
            let language = (probe["tags"] as? [String: String])?["language"]
            XCTAssertEqual(track["language"] as? String, language == "und" ? nil : language, file: file, line: line)
            let seconds = try XCTUnwrap(probedSeconds(probe), file: file, line: line)
            let duration = try XCTUnwrap(track["duration_seconds"] as? Double, file: file, line: line)
            XCTAssertEqual(duration, seconds, accuracy: 1e-6, file: file, line: line)
            let difference = try XCTUnwrap(track["duration_difference_seconds"] as? Double, file: file, line: line)
            XCTAssertEqual(difference, seconds - video, accuracy: 1e-6, file: file, line: line)
        }
    }

    func testMOVWithFivePointOneAndStereo() throws {
        let path = try AudioTestMedia.movFivePointOneAndStereo(makeTemporaryDirectory(self))
        try assertTracksAreFFprobes(path, count: 2)
        let probed = try AudioTestMedia.probeAudio(path)
        XCTAssertEqual(probed.map { $0["channel_layout"] as? String }, ["5.1", "stereo"], "the file as made")
        // The text says the same, a line a track.
        let text = try runTool(["info", path])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(
            text.stdoutText.contains(
                "audio 1:      pcm_s24le, 48000 Hz, 24-bit, 6 channels (5.1: FL FR FC LFE BL BR), 4.000 s "
                    + "(+0.000 s against the video), language eng\n"), text.stdoutText)
        XCTAssertTrue(
            text.stdoutText.contains("audio 2:      pcm_s24le, 48000 Hz, 24-bit, 2 channels (stereo: FL FR)"),
            text.stdoutText)
    }

    func testMXFWithSeparateMonoTracks() throws {
        let path = try AudioTestMedia.mxfMonoTracks(makeTemporaryDirectory(self))
        try assertTracksAreFFprobes(path, count: 2)
    }

    func testMatroska() throws {
        let path = try AudioTestMedia.stereo(makeTemporaryDirectory(self), name: "stereo.mkv", codec: "pcm_s16le")
        try assertTracksAreFFprobes(path, count: 1)
    }

    func testAudioTwoSecondsShorterThanVideo() throws {
        let path = try AudioTestMedia.stereo(makeTemporaryDirectory(self), name: "short.mov", seconds: 2)
        try assertTracksAreFFprobes(path, count: 1)
        let track = try XCTUnwrap((try infoJSON(path)["audio_tracks"] as? [[String: Any]])?.first)
        XCTAssertEqual(try XCTUnwrap(track["duration_difference_seconds"] as? Double), -2, accuracy: 1e-6)
        XCTAssertTrue(try runTool(["info", path]).stdoutText.contains("2.000 s (-2.000 s against the video)"))
    }

    func testFileWithoutAudio() throws {
        let path = try AudioTestMedia.video(makeTemporaryDirectory(self))
        try assertTracksAreFFprobes(path, count: 0)
        XCTAssertEqual((try infoJSON(path)["audio_tracks"] as? [Any])?.count, 0, "an empty list, not null")
        XCTAssertTrue(try runTool(["info", path]).stdoutText.contains("\naudio:        none\n"))
    }
}
