import Foundation
import ProResFFmpeg
import XCTest

@testable import TestSupport

/// `AudioSampleReader.seek` (where `play` starts its sound) against the
/// ffmpeg CLI's own exact seek (`-ss` after decoding) of the same file.
final class AudioSeekTests: XCTestCase {
    func testSeekStartsAtTheSampleTheCLIStartsAt() throws {
        let directory = try makeTemporaryDirectory(self)
        let clip = directory.appendingPathComponent("tone.mov").path
        let made = try runExternal([
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=black:size=64x48:rate=25:duration=2",
            "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*441*t)*t:s=48000:d=2", "-c:v", "prores_ks", "-c:a",
            "pcm_s16le", clip,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        for seconds in [0.5, 1.2345] {
            let cli = try runExternal([
                "ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-ss", "\(seconds)", "-map", "0:a", "-f", "f32le",
                "-",
            ])
            XCTAssertEqual(cli.status, 0, cli.stderr)
            let expected = cli.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self).prefix(2_000)) }
            let reader = try AudioSampleReader(input: clip, indices: [1])
            try reader.seek(toSeconds: seconds)
            var ours: [Float] = []
            _ = try reader.read(isStopped: { ours.count >= 2_000 }) { _, samples, _ in ours += samples }
            XCTAssertEqual(expected.count, 2_000)
            XCTAssertEqual(Array(ours.prefix(2_000)), expected, "from \(seconds) s")
        }
    }
}
