import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCore
@testable import TestSupport

/// What the check's golden hashes will hold: for each frame, the BLAKE3 of
/// the bytes `prores-decode X --format native -o out` writes for it. Our
/// hash of each frame of the CLI's output, as whole planes and as one span
/// a row (how a sink sees it), against `b3sum` of the same bytes.
final class NativeFrameHashCLITests: XCTestCase {
    func testNativeFramesOfTheCLIHashAsB3sum() throws {
        let directory = try makeTemporaryDirectory(self)
        for clip in ["hq.mov", "odd-size.mov", "4444.mov", "4444-noalpha.mov", "odd-size-444.mov"] {
            let stream = try fixtureSamples(clip).0
            let format = stream.nativeFormat
            let out = directory.appendingPathComponent("\(clip).native")
            let result = try runTool([Repo.fixture(clip), "--format", "native", "-o", out.path])
            XCTAssertEqual(result.status, 0, "\(clip): \(result.stderr)")
            let bytes = try Data(contentsOf: out)
            let frameBytes = format.tightByteCount(width: stream.width, height: stream.height)
            XCTAssertEqual(bytes.count % frameBytes, 0, clip)
            let frames = stride(from: 0, to: bytes.count, by: frameBytes).map {
                bytes.subdata(in: $0..<$0 + frameBytes)
            }
            XCTAssertEqual(frames.count, 5, clip)
            let expected = try B3Sum.hexes(frames)
            for (index, (frame, hex)) in zip(frames, expected).enumerated() {
                frame.withUnsafeBytes { whole in
                    XCTAssertEqual(BLAKE3.hash(whole).hex, hex, "\(clip) frame \(index)")
                    var rows: [UnsafeRawBufferPointer] = []
                    var at = 0
                    for plane in 0..<format.planeCount {
                        let rowBytes = 2 * format.planeWidth(plane, width: stream.width)
                        for _ in 0..<stream.height {
                            rows.append(UnsafeRawBufferPointer(rebasing: whole[at..<at + rowBytes]))
                            at += rowBytes
                        }
                    }
                    XCTAssertEqual(BLAKE3.hash(rows).hex, hex, "\(clip) frame \(index), one span a row")
                }
            }
        }
    }
}
