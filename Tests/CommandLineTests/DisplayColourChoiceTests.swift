import XCTest

@testable import GPUKit
@testable import ProResDisplay
@testable import ProResGPU
@testable import TestSupport

/// `play`'s colour path, chosen from made-up surface format lists (the
/// choice is pure; lavapipe offers only the SDR formats).
final class DisplayColourChoiceTests: XCTestCase {
    let sdr = [SurfaceFormat(.bgra8SRGB, .srgbNonlinear), SurfaceFormat(.bgra8Unorm, .srgbNonlinear)]
    let linearFP16 = SurfaceFormat(.rgba16Float, .extendedSRGBLinear)
    let pq10 = SurfaceFormat(.a2b10g10r10, .hdr10ST2084)

    func testExtendedLinearFP16WinsOverEverything() {
        let choice = DisplayColourChoice.choose(from: sdr + [pq10, linearFP16])
        XCTAssertEqual(choice?.path, .scRGBLinear)
        XCTAssertEqual(choice?.format, linearFP16)
    }

    func testPQNeedsTenBits() {
        XCTAssertEqual(DisplayColourChoice.choose(from: sdr + [pq10])?.path, .pq)
        XCTAssertEqual(DisplayColourChoice.choose(from: sdr + [SurfaceFormat(.a2r10g10b10, .hdr10ST2084)])?.path, .pq)
        // An 8-bit PQ surface is not enough for PQ: SDR instead.
        XCTAssertEqual(DisplayColourChoice.choose(from: sdr + [SurfaceFormat(.bgra8Unorm, .hdr10ST2084)])?.path, .sdr)
    }

    func testExtendedLinearNeedsFP16() {
        let choice = DisplayColourChoice.choose(from: sdr + [SurfaceFormat(.bgra8Unorm, .extendedSRGBLinear)])
        XCTAssertEqual(choice?.path, .sdr)
    }

    func testSDRPrefersUnormAndTakesSRGBWhenAlone() {
        XCTAssertEqual(DisplayColourChoice.choose(from: sdr)?.format, SurfaceFormat(.bgra8Unorm, .srgbNonlinear))
        XCTAssertEqual(
            DisplayColourChoice.choose(from: [SurfaceFormat(.rgba8SRGB, .srgbNonlinear)])?.format,
            SurfaceFormat(.rgba8SRGB, .srgbNonlinear))
    }

    func testWithoutTheColourSpaceExtensionOnlySDR() {
        let choice = DisplayColourChoice.choose(from: sdr + [pq10, linearFP16], colorSpaces: false)
        XCTAssertEqual(choice?.path, .sdr)
        XCTAssertTrue(choice?.reason.contains("VK_EXT_swapchain_colorspace") ?? false)
    }

    func testNothingUsable() {
        XCTAssertNil(DisplayColourChoice.choose(from: []))
        XCTAssertNil(
            DisplayColourChoice.choose(from: [
                SurfaceFormat(.other(123), .srgbNonlinear), SurfaceFormat(.bgra8Unorm, .other(7)),
            ]))
    }

    /// The present pass's matrices map white to white (D65 in and out).
    func testPresentMatricesKeepWhite() {
        for path in [DisplayColourPath.sdr, .scRGBLinear, .pq] {
            let white = PresentKernel.toDisplay(path).apply(SIMD3(1, 1, 1))
            for c in 0..<3 { XCTAssertEqual(white[c], 1, accuracy: 1e-9, "\(path)") }
        }
    }

    func testInitialWindowSize() {
        XCTAssertTrue(WindowSize.initial(frame: (192, 112), screen: (1920, 1080)) == (192, 112))
        XCTAssertTrue(WindowSize.initial(frame: (3840, 2160), screen: (1920, 1080)) == (1920, 1080))
        XCTAssertTrue(WindowSize.initial(frame: (4096, 2160), screen: (1920, 1080)) == (1920, 1012))
        XCTAssertTrue(WindowSize.initial(frame: (1080, 1920), screen: (1920, 1080)) == (607, 1080))
    }
}
