import XCTest

@testable import ProResGPU
@testable import TestSupport

/// The GPU decoder's batch size from the frame and the device (sizes worked
/// out by hand from the packed layouts: v216 is 4 bytes a pixel).
final class DecoderBatchSizeTests: XCTestCase {
    private let h200 = UInt64(139) << 30

    /// 4:2:2 (v216, 2 coefficients a pixel) or 4:4:4 with alpha (y416, 4).
    private func frames(
        width: Int, height: Int, chroma444: Bool = false, cores: Int = 16, range: Int = 1 << 31,
        heap: UInt64? = nil, stream: Int? = nil
    ) -> Int {
        let output = width * height * (chroma444 ? 8 : 4)
        let coefficients = width * height * (chroma444 ? 4 : 2) * 2
        return DecoderBatchSize.frames(
            frameOutputBytes: output, frameWorkBytes: coefficients + 2 * output,
            largestBindingFrames: range / max(output, coefficients), deviceLocalBytes: heap ?? h200,
            slots: 3, hostCores: cores, streamFrames: stream)
    }

    func testALongStreamDoublesUntilTheBatchWritesAGigabyte() {
        XCTAssertEqual(
            frames(width: 3840, height: 2160, stream: 20_000), 32, "33.2 MB a frame: 16 make 531 MB, 32 make 1.06 GB")
        XCTAssertEqual(
            frames(width: 3840, height: 2160, chroma444: true, stream: 20_000), 16, "66.4 MB a frame: 16 make 1.06 GB")
        XCTAssertEqual(frames(width: 640, height: 360, stream: 20_000), 32, "at most 32")
    }

    func testOtherwiseBatchesStopAtAQuarterGigabyte() {
        XCTAssertEqual(frames(width: 3840, height: 2160), 16, "no length known: 16 make 531 MB")
        XCTAssertEqual(frames(width: 3840, height: 2160, stream: 1920), 16, "1,920 frames: below the long-stream mark")
        XCTAssertEqual(
            frames(width: 1920, height: 1080, stream: 1200), 32, "8.29 MB a frame: 16 make 133 MB, 32 make 265 MB")
        XCTAssertEqual(frames(width: 640, height: 360), 32, "at most 32")
    }

    func testEveryHostCoreGetsAFrame() {
        XCTAssertEqual(frames(width: 3840, height: 2160, chroma444: true, cores: 2), 16, "never fewer than 16")
        XCTAssertEqual(frames(width: 3840, height: 2160, chroma444: true, cores: 24), 24)
    }

    func testAShortStreamKeepsBatchesThatFillThePipeline() {
        XCTAssertEqual(
            frames(width: 1920, height: 1080, stream: 48), 16, "48 / (2 × 3 slots) = 8, below the floor of 16")
        XCTAssertEqual(frames(width: 1920, height: 1080, stream: 120), 20, "120 / 6")
        XCTAssertEqual(frames(width: 1920, height: 1080, cores: 24, stream: 48), 24, "the floor is the host's cores")
    }

    func testTheDeviceLimitsWin() {
        // 8K: 141.6 MB of coefficients a frame; a 2 GiB binding holds 15.
        XCTAssertEqual(frames(width: 8192, height: 4320), 15)
        // lavapipe's 128 MiB storage buffers: 134,217,728 / 33,177,600 bytes of a 4K frame's coefficients = 4.05.
        XCTAssertEqual(frames(width: 3840, height: 2160, range: 128 << 20), 4)
        // A 4 GiB device: a quarter of it for 3 slots of 4K frames (99.5 MB each) holds 3 a slot.
        XCTAssertEqual(frames(width: 3840, height: 2160, heap: 4 << 30), 3)
        XCTAssertEqual(frames(width: 3840, height: 2160, range: 1000, heap: 1000), 1, "never less than one")
    }
}
