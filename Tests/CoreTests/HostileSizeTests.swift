import Foundation
import XCTest

@testable import ProResCore
@testable import TestSupport

/// Sizes claimed by a frame header: memory follows the bytes actually read
/// and the picture size the header's own dimensions allow, and a picture
/// FFmpeg cannot decode is refused up front in words.
final class HostileSizeTests: XCTestCase {

    /// 12 KB on a pipe whose first size field says 1 GiB: no GiB may be
    /// allocated (and zeroed) before a byte of it arrives.
    func testPipedFrameClaimingAGigabyteCostsWhatArrives() throws {
        let path = Hostile.fixture("frame-size-1g.prores")
        let (status, bytes) = try Hostile.peakMemory(["-", "--quiet"], stdinFile: nil, pipeFrom: path)
        XCTAssertEqual(status, 4)
        XCTAssertLessThan(bytes, 300 << 20, "peaked at \(bytes >> 20) MB")

        let result = try runTool(
            ["-", "--quiet"], stdin: try Data(contentsOf: URL(fileURLWithPath: path)), timeout: 30)
        Hostile.assertExit(result, 4, "1 GiB claim on stdin")
        assertSingleError(result, mentions: ["1073741824 bytes", "192x112"], "1 GiB claim on stdin")
    }

    func testFramesTooSmallForTheirPictureAreRefusedBeforeDecoding() throws {
        let result = try runTool([Hostile.fixture("dimensions-8192.prores"), "--quiet"], timeout: 30)
        Hostile.assertExit(result, 5, "8192x8192 headers on 12 KB frames")
        XCTAssertEqual(Hostile.errorLines(result).count, 5, result.stderr)
        XCTAssertTrue(result.stderr.contains("a 8192x8192 frame needs at least"), result.stderr)
    }

    func testPictureFFmpegCannotDecodeIsRefusedInWords() throws {
        for arguments in [
            [Hostile.fixture("dimensions-16384.prores")], ["info", Hostile.fixture("dimensions-16384.prores")],
        ] {
            let result = try runTool(arguments, timeout: 30)
            Hostile.assertExit(result, 4, "\(arguments)")
            assertSingleError(result, mentions: ["16384x16384", "larger than FFmpeg decodes"], "\(arguments)")
        }
    }

    func testFrameSizeBoundsFollowThePicture() throws {
        let (_, samples) = try fixtureSamples("hq.mov")
        let header = try samples[0].bytes.withUnsafeBytes { try ProResFrameHeader($0) }
        XCTAssertLessThanOrEqual(header.minimumFrameBytes, samples.map(\.bytes.count).min()!)
        XCTAssertGreaterThanOrEqual(header.maximumFrameBytes, samples.map(\.bytes.count).max()!)
        XCTAssertLessThan(header.maximumFrameBytes, 8 << 20)
    }
}
