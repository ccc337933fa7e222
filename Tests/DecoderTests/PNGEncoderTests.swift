import Foundation
import XCTest

@testable import ProResCore
@testable import ProResFFmpeg
@testable import TestSupport

/// The banded PNG encoder read back by independent tools: ffmpeg's PNG
/// decoder must give exactly the samples encoded, and pngcheck must find
/// every chunk and checksum valid.
final class PNGEncoderTests: XCTestCase {
    func testBandsJoinIntoOneStreamThatReadersDecodeExactly() throws {
        // 700 × 900 RGB: several bands (each about a MiB of rows), odd sizes.
        try roundTrip(width: 700, height: 900, channels: 3, bandsAtLeast: 3)
        // A picture smaller than one band, with alpha.
        try roundTrip(width: 37, height: 5, channels: 4, bandsAtLeast: 1)
    }

    private func roundTrip(width: Int, height: Int, channels: Int, bandsAtLeast: Int) throws {
        let rowBytes = 1 + width * channels * 2
        let bands = (height + PNGEncoder.bandBytes / rowBytes - 1) / (PNGEncoder.bandBytes / rowBytes)
        XCTAssertGreaterThanOrEqual(bands, bandsAtLeast)
        // Smooth gradients (long matches across band edges) with noise in the low byte.
        var state: UInt32 = 12345
        let samples = (0..<width * height * channels).map { i -> UInt16 in
            state = state &* 1_664_525 &+ 1_013_904_223
            let x = (i / channels) % width
            let y = i / channels / width
            return UInt16(truncatingIfNeeded: (x * 97 + y * 31 + (i % channels) * 5000) << 4) ^ UInt16(state >> 28)
        }
        let png = try PNGEncoder.encode16(samples, width: width, height: height, channels: channels, errorPath: "t")
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("t.png").path
        try Data(png).write(to: URL(fileURLWithPath: path))
        let check = try runExternal(["pngcheck", path])
        XCTAssertEqual(check.status, 0, check.text)
        let raw = try runExternal([
            "ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", channels == 3 ? "rgb48be" : "rgba64be",
            "-",
        ])
        XCTAssertEqual(raw.status, 0, raw.stderr)
        let decoded = raw.stdout.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)).map(UInt16.init(bigEndian:)) }
        XCTAssertEqual(decoded.count, samples.count)
        XCTAssertTrue(decoded == samples, "\(width)x\(height)x\(channels): the decoded samples differ")
    }
}
