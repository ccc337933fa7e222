import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResGPU
@testable import TestSupport

/// The statistics on frames made to hit the edges: odd widths (v216's last
/// pair), widths of several loop turns, heights that end mid-band, codes
/// just inside and outside the video range, 12-bit alpha all 0, all
/// maximal and mixed, full range, the widest frame ProRes allows, and PQ/HLG
/// near black. Each: CPU = the plain loop, GPU = CPU.
final class FrameStatisticsSyntheticTests: XCTestCase {
    /// A frame whose every sample is drawn from `values` (per plane).
    static func frame(
        _ format: PlanarFormat, _ width: Int, _ height: Int, seed: UInt64,
        luma: [UInt16], chroma: [UInt16], alpha: [UInt16] = []
    ) -> PlanarTestFrame {
        var random = KernelRandom(seed: seed)
        let planes = (0..<format.planeCount).map { plane -> [UInt16] in
            let values = plane == 0 ? luma : plane == 3 ? alpha : chroma
            return (0..<format.planeWidth(plane, width: width) * height).map { _ in
                values.randomElement(using: &random)!
            }
        }
        return PlanarTestFrame(format: format, width: width, height: height, planes: planes)
    }

    /// Codes around the video-range limits of `depth`, and the extremes.
    static func edges(_ depth: Int, chroma: Bool) -> [UInt16] {
        let scale = 1 << (depth - 8)
        let high = (chroma ? 240 : 235) * scale
        return [
            0, 1, 16 * scale - 1, 16 * scale, 16 * scale + 1, 128 * scale, high - 1, high, high + 1, (1 << depth) - 1,
        ].map(UInt16.init)
    }

    /// Returns the worst light error (relative).
    @discardableResult
    private func assertAllAgree(
        _ frames: [PlanarTestFrame], range: ColorRange = .video, light: LightLevelMeter? = nil,
        lowBits: UInt16 = 0, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Double {
        let device = try StatisticsDevice.shared.get()
        let cpu = frames.map { $0.cpuSums(range: range, light: light) }
        for (i, frame) in frames.enumerated() {
            let integers = cpu[i].integers
            XCTAssertEqual(
                integers, referenceSums(frame, videoRange: range == .video),
                "\(what) frame \(i): CPU vs the plain loop",
                file: file, line: line)
        }
        let (gpu, gpuGrids) = try device.measure(
            frames, range: range, light: light, lowBits: lowBits, file: file, line: line)
        for (i, frame) in frames.enumerated() {
            let cpuGrid = frame.cpuGrid()
            XCTAssertEqual(
                cpuGrid.samples, frame.referenceGrid(), "\(what) frame \(i): CPU grid", file: file, line: line)
            XCTAssertEqual(gpuGrids[i], cpuGrid, "\(what) frame \(i): GPU grid vs CPU", file: file, line: line)
        }
        let worst =
            frames.indices.map { assertSameSums(gpu[$0], cpu[$0], "\(what) frame \($0)", file: file, line: line) }.max()
            ?? 0
        XCTAssertEqual(device.validationMessages, [], file: file, line: line)
        return worst
    }

    func test422OddWidthsAndOutOfRangeCodes() throws {
        let format = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
        for (width, height) in [(1, 1), (3, 5), (7, 4), (187, 13), (517, 9)] {
            let frames = (0..<3).map {
                Self.frame(
                    format, width, height, seed: UInt64(width * 100 + $0),
                    luma: Self.edges(10, chroma: false), chroma: Self.edges(10, chroma: true))
            }
            // Bits below the 10-bit codes are not part of the frame: ignored.
            try assertAllAgree(frames, lowBits: 0x2B, "4:2:2 \(width)x\(height)")
        }
    }

    func test444TwelveBitAlphaAllZeroAllMaxAndMixed() throws {
        let format = PlanarFormat(decoding: .c444, bitDepth: 12, alpha: true)
        let luma = Self.edges(12, chroma: false)
        let chroma = Self.edges(12, chroma: true)
        for (width, height) in [(1, 1), (5, 3), (131, 6)] {
            let frames = [
                Self.frame(format, width, height, seed: 1, luma: luma, chroma: chroma, alpha: [0]),
                Self.frame(format, width, height, seed: 2, luma: luma, chroma: chroma, alpha: [4095]),
                Self.frame(
                    format, width, height, seed: 3, luma: luma, chroma: chroma, alpha: [0, 1, 2048, 4094, 4095]),
            ]
            try assertAllAgree(frames, lowBits: 0x7, "4:4:4 alpha \(width)x\(height)")
            let sums = frames[0].cpuSums(range: .video, light: nil)
            XCTAssertEqual(sums.alpha, .init(transparent: UInt64(width * height), opaque: 0))
            XCTAssertEqual(
                frames[1].cpuSums(range: .video, light: nil).alpha,
                .init(transparent: 0, opaque: UInt64(width * height)))
        }
    }

    func test444WithoutAlphaAndFullRange() throws {
        let format = PlanarFormat(decoding: .c444, bitDepth: 12, alpha: false)
        let frames = (0..<2).map {
            Self.frame(
                format, 33, 7, seed: UInt64($0), luma: Self.edges(12, chroma: false),
                chroma: Self.edges(12, chroma: true))
        }
        try assertAllAgree(frames, "4:4:4 video range")
        try assertAllAgree(frames, range: .full, "4:4:4 full range")
        XCTAssertNil(frames[0].cpuSums(range: .full, light: nil).outOfRange, "full range has no out-of-range codes")
        let format422 = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
        try assertAllAgree(
            [Self.frame(format422, 9, 3, seed: 9, luma: Self.edges(10, chroma: false), chroma: [0, 1023])],
            range: .full, "4:2:2 full range")
    }

    /// Out-of-range counts from the definition, on a frame small enough to count by eye.
    func testOutOfRangeDefinition() {
        let format = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
        // 4x1: Y' 63 64 940 941; Cb 63 960, Cr 961 64.
        let frame = PlanarTestFrame(
            format: format, width: 4, height: 1, planes: [[63, 64, 940, 941], [63, 960], [961, 64]])
        XCTAssertEqual(
            frame.cpuSums(range: .video, light: nil).outOfRange,
            .init(lumaBelow: 1, lumaAbove: 1, chromaBelow: 1, chromaAbove: 1))
        let limits = VideoRangeLimits(bitDepth: 12)
        XCTAssertEqual([limits.lumaLow, limits.lumaHigh, limits.chromaLow, limits.chromaHigh], [256, 3760, 256, 3840])
    }

    /// The widest ProRes frame at the largest 12-bit code: each band's
    /// 32-bit sum is at its bound, the frame's sum is past 2^32.
    func testWidestFrameSumsPastThirtyTwoBits() throws {
        let format = PlanarFormat(decoding: .c444, bitDepth: 12, alpha: true)
        let frame = Self.frame(format, 65535, 18, seed: 4, luma: [4095], chroma: [4095], alpha: [4095])
        XCTAssertGreaterThan(frame.cpuSums(range: .video, light: nil).lumaSum, UInt64(UInt32.max))
        try assertAllAgree([frame], "65535x18 at the top code")
    }

    func testNativeLayoutOnly() throws {
        let device = try StatisticsDevice.shared.get()
        let kernels = KernelCache(context: device.context, compiler: try ShaderCompiler(cacheDirectory: nil))
        XCTAssertThrowsError(
            try FrameStatisticsPass(
                kernels: kernels, format: PlanarFormat(decoding: .c422, bitDepth: 10, alpha: true),
                layout: .v216, width: 8, height: 8, range: .video, light: nil, slots: 1),
            "v216 has no alpha")
        XCTAssertThrowsError(
            try FrameStatisticsPass(
                kernels: kernels, format: PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false),
                layout: .y416, width: 8, height: 8, range: .video, light: nil, slots: 1),
            "y416 repeats 4:2:2 chroma")
    }

    /// R′G′B′ out of gamut on the light grid: the CPU count equals the
    /// float64 reference written from BT.709's Kr and Kb, and the GPU's
    /// float32 count is within a pixel of it. Codes over the whole 10-bit
    /// range, so that many pixels leave the cube and many do not.
    func testGamutAgainstAFloat64Reference() throws {
        let tags = ColorTags(bitstream: (1, 1, 1), container: (2, 2, 2, nil), height: 1080)
        let meter = try GamutMeter(tags: tags, bitDepth: 10)
        let format = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
        let codes = stride(from: 0, through: 1023, by: 7).map(UInt16.init)
        let frames = (0..<3).map { Self.frame(format, 61, 37, seed: UInt64(11 + $0), luma: codes, chroma: codes) }
        let gpu = try StatisticsDevice.shared.get().sums(frames, range: .video, light: nil, gamut: meter)
        for (i, frame) in frames.enumerated() {
            let expected = referenceGamutBT709(width: frame.width, height: frame.height, sample: frame.sample)
            XCTAssertGreaterThan(expected.outside, 0)
            XCTAssertLessThan(expected.outside, expected.points)
            XCTAssertEqual(frame.cpuSums(range: .video, light: nil, gamut: meter).gamut, expected, "frame \(i)")
            let onDevice = try XCTUnwrap(gpu[i].gamut, "frame \(i): no GPU gamut")
            XCTAssertEqual(onDevice.points, expected.points)
            XCTAssertLessThanOrEqual(abs(Int(onDevice.outside) - Int(expected.outside)), 1, "frame \(i)")
        }
    }

    /// Near black the PQ EOTF's p − c1 cancels; frames of codes 64..80
    /// only (up to ~0.4 nits) and frames with a few bright pixels among them.
    func testLightNearBlack() throws {
        var worst = (error: 0.0, what: "")
        for depth in [10, 12] {
            for transfer in [16, 18] {
                let meter = try XCTUnwrap(
                    try LightLevelMeter(
                        tags: ColorTags(
                            bitstream: (9, transfer, 9), container: (2, 2, 2, nil),
                            height: 1080), bitDepth: depth))
                let scale = UInt16(1 << (depth - 10))
                let dark = (64...80).map { UInt16($0) * scale }
                let neutral = (508...516).map { UInt16($0) * scale }
                for chroma in [ProResFrameHeader.Chroma.c422, .c444] {
                    let format = PlanarFormat(decoding: chroma, bitDepth: depth, alpha: false)
                    let frames = [
                        Self.frame(format, 61, 21, seed: 5, luma: dark, chroma: neutral),
                        Self.frame(format, 61, 21, seed: 6, luma: dark + [940 * scale], chroma: neutral),
                        Self.frame(format, 61, 21, seed: 7, luma: [64 * scale], chroma: [512 * scale]),
                    ]
                    let error = try assertAllAgree(
                        frames, light: meter, "\(chroma) \(depth)-bit transfer \(transfer) near black")
                    if error > worst.error { worst = (error, "\(chroma) \(depth)-bit transfer \(transfer)") }
                }
            }
        }
        print("FrameStatisticsSyntheticTests: worst light relative error near black \(worst.error) (\(worst.what))")
    }
}
