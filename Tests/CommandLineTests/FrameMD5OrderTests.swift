import Foundation
import XCTest

@testable import TestSupport

/// `--framemd5` on a clip whose every frame differs (the `ffmpeg` CLI's
/// testsrc2, moving): the lines equal `ffmpeg -f framemd5`'s, in order, on
/// both decoders, the GPU decoder's frames hashed from its packed frames
/// on every core, several at once.
final class FrameMD5OrderTests: XCTestCase {
    func testEveryFrameOfAMovingClipIsFFmpegsInOrder() throws {
        let dir = try makeTemporaryDirectory(self)
        let clip = dir.appendingPathComponent("moving.mov").path
        _ = try FrameTools.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=24",
                "-frames:v", "40", "-c:v", "prores_ks", "-profile:v", "3", clip,
            ])
        let live = String(
            decoding: try FrameTools.runProcess(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-i", clip, "-fflags", "+bitexact",
                    "-f", "framemd5", "-",
                ]), as: UTF8.self)
        let hashes = live.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last! }
        XCTAssertEqual(hashes.count, 40)
        XCTAssertEqual(Set(hashes).count, 40, "every frame differs")
        for decoder in ["gpu", "cpu"] {
            let ours = try runTool([clip, "--decoder", decoder, "--framemd5", "-", "--quiet"], timeout: 300)
            XCTAssertEqual(ours.status, 0, "\(decoder): \(ours.stderr)")
            XCTAssertEqual(ours.stdoutText, live, "--decoder \(decoder) --framemd5")
        }
    }
}
