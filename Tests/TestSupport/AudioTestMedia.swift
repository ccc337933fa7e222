import Foundation
import XCTest

/// Clips with sound, made by the `ffmpeg` CLI, and ffprobe's reading of
/// their audio streams: the independent side of the audio tests.
enum AudioTestMedia {
    /// 4 s of 192x112 ProRes 422 HQ at 25 fps.
    static func video(_ directory: URL) throws -> String {
        let path = directory.appendingPathComponent("video.mov").path
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=192x112:rate=25:duration=4", "-c:v", "prores_ks", "-profile:v", "3",
            path,
        ])
        return path
    }

    /// A MOV with a 5.1 track (eng) and a stereo track (fra), 24-bit PCM,
    /// each channel a different tone so that any reordering shows.
    static func movFivePointOneAndStereo(_ directory: URL) throws -> String {
        let path = directory.appendingPathComponent("51-stereo.mov").path
        let tones = (0..<8).map { ["-f", "lavfi", "-i", "sine=f=\(220 * ($0 + 1)):r=48000:d=4"] }.flatMap { $0 }
        try ffmpeg(
            ["-i", video(directory)] + tones + [
                "-filter_complex",
                "[1][2][3][4][5][6]amerge=inputs=6,aformat=channel_layouts=5.1[a];[7][8]amerge=inputs=2[b]",
                "-map", "0:v", "-map", "[a]", "-map", "[b]", "-c:v", "copy", "-c:a", "pcm_s24le",
                "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", path,
            ])
        return path
    }

    /// An MXF OP1a with two separate mono 24-bit tracks.
    static func mxfMonoTracks(_ directory: URL) throws -> String {
        let path = directory.appendingPathComponent("mono.mxf").path
        try ffmpeg([
            "-r", "25", "-i", video(directory), "-f", "lavfi", "-i", "sine=f=440:r=48000:d=4", "-f", "lavfi", "-i",
            "sine=f=880:r=48000:d=4", "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "copy", "-c:a", "pcm_s24le",
            path,
        ])
        return path
    }

    /// Video with one stereo track of `seconds` (2 s short of the video's 4 when 2), in `name`'s container.
    static func stereo(_ directory: URL, name: String, seconds: Double = 4, codec: String = "pcm_s24le") throws
        -> String
    {
        let path = directory.appendingPathComponent(name).path
        try ffmpeg([
            "-i", video(directory), "-f", "lavfi", "-i", "sine=f=440:r=48000:d=\(seconds)", "-map", "0:v", "-map",
            "1:a",
            "-ac", "2", "-c:v", "copy", "-c:a", codec, path,
        ])
        return path
    }

    static func ffmpeg(_ arguments: [String]) throws {
        let run = try runExternal(["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        if run.status != 0 { throw ExternalToolMissing(description: "ffmpeg failed: \(run.stderr)") }
    }

    /// ffprobe's `-show_streams` of the audio streams, as JSON objects.
    static func probeAudio(_ path: String) throws -> [[String: Any]] {
        let run = try runExternal([
            "ffprobe", "-v", "error", "-select_streams", "a", "-show_streams", "-of", "json", path,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(run.text.utf8)) as? [String: Any]
        return object?["streams"] as? [[String: Any]] ?? []
    }

    /// `ffmpeg -layouts`: each standard layout's channels ("5.1" → FL FR FC LFE BL BR).
    static func layoutChannels() throws -> [String: [String]] {
        let run = try runExternal(["ffmpeg", "-hide_banner", "-layouts"])
        var layouts: [String: [String]] = [:]
        var inLayouts = false
        for line in run.text.split(separator: "\n") {
            if line.hasPrefix("Standard channel layouts") {
                inLayouts = true
                continue
            }
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if inLayouts, parts.count == 2 {
                layouts[String(parts[0])] = parts[1].split(separator: "+").map(String.init)
            }
        }
        return layouts
    }
}
