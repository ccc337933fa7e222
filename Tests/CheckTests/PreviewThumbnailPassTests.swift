import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCheck
@testable import ProResCore
@testable import ProResGPU
@testable import ProResPipeline
@testable import TestSupport

/// `preview_thumbnail.comp` through `PreviewThumbnailPass` on lavapipe,
/// against two references: a float64 box filter written here from the
/// definition (each source pixel weighs by the area of its overlap with the
/// output pixel's footprint, colour premultiplied by clamped alpha), and the
/// CPU's `PreviewImage.downscaled`, which the pass replaces in previews.
final class PreviewThumbnailPassTests: XCTestCase {
    let width = 67, height = 41

    /// Colours from −0.25 to 4 (negatives are out-of-gamut, above 1 HDR),
    /// alpha 0, 1, in between and just outside [0, 1] (clamped by the filter).
    lazy var source: [Float16] = {
        var generator = KernelRandom(seed: 11)
        return (0..<width * height).flatMap { i -> [Float16] in
            let colour = (0..<3).map { _ in Float16(Float(generator.unit()) * 4.25 - 0.25) }
            let alphas: [Float] = [0, 1, 1, Float(generator.unit()), 1.25, -0.5]
            return colour + [Float16(alphas[i % alphas.count])]
        }
    }()

    func testThumbnailsMatchTheFloat64DefinitionAndTheCPUFilter() throws {
        let context = try VulkanContext(options: .init(validation: true))
        let pass = try PreviewThumbnailPass(
            context: context, kernels: KernelCache(context: context, compiler: ShaderCompiler(cacheDirectory: nil)))
        let frame = try VulkanBuffer(
            context, size: source.count * 2, usage: [.storage, .transferSource], memory: .host)
        source.withUnsafeBytes { frame.mapped!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let cpuSource = PreviewImage(width: width, height: height, values: source)
        // Fractional footprints both ways, a single pixel, a column only, a row only.
        for target in [(20, 12), (34, 21), (1, 1), (66, 41), (67, 9), (33, 40)] {
            let result = try pass.run(frame, width: width, height: height, target: target, copyFull: false)
            XCTAssertNil(result.full)
            let expected = reference(target: target)
            XCTAssertEqual(result.thumbnail.count, expected.count)
            for (i, (got, want)) in zip(result.thumbnail, expected).enumerated() {
                // float32 sums of at most ~16 weighted terms of magnitude ≤ 4:
                // a few 2^-24 relative errors each, far below 1e-5 of the larger of 1 and the value.
                XCTAssertEqual(Double(got), want, accuracy: 1e-5 * max(1, abs(want)), "\(target) value \(i)")
            }
            // The CPU filter keeps half floats: both round values within
            // 1e-5 of each other, so they are equal or one half-float step apart.
            if target.1 == PreviewImage.thumbnailSize(width: width, height: height, forWidth: target.0).height {
                let cpu = cpuSource.downscaled(toWidth: target.0)
                for (i, got) in result.thumbnail.enumerated() {
                    let mine = Float16(got)
                    let theirs = Float16(bitPattern: cpu.samples[i])
                    XCTAssertLessThanOrEqual(
                        abs(Float(mine) - Float(theirs)), Float(max(mine.ulp, theirs.ulp)), "\(target) value \(i)")
                }
            }
        }
        let whole = try pass.run(frame, width: width, height: height, target: nil, copyFull: true)
        XCTAssertEqual(whole.thumbnail, [])
        XCTAssertEqual(
            Array(try XCTUnwrap(whole.full)), source.withUnsafeBytes { Array($0) }, "the full frame comes back as it is"
        )
        XCTAssertThrowsError(
            try pass.run(frame, width: width, height: height, target: (68, 41), copyFull: false), "never enlarged")
        XCTAssertEqual(context.validation?.messages ?? [], [])
    }

    /// The definition in float64: output pixel (ox, oy) covers
    /// [ox·W/w, (ox+1)·W/w) × [oy·H/h, (oy+1)·H/h); every source pixel weighs
    /// by its overlap's area over the footprint's.
    private func reference(target: (width: Int, height: Int)) -> [Double] {
        let sx = Double(width) / Double(target.width)
        let sy = Double(height) / Double(target.height)
        func overlap(_ i: Int, _ lower: Double, _ upper: Double) -> Double {
            max(0, min(Double(i + 1), upper) - max(Double(i), lower))
        }
        var out: [Double] = []
        for oy in 0..<target.height {
            for ox in 0..<target.width {
                var sum = [0.0, 0.0, 0.0, 0.0]
                for y in 0..<height {
                    let wy = overlap(y, Double(oy) * sy, Double(oy + 1) * sy)
                    guard wy > 0 else { continue }
                    for x in 0..<width {
                        let wx = overlap(x, Double(ox) * sx, Double(ox + 1) * sx)
                        guard wx > 0 else { continue }
                        let p = (y * width + x) * 4
                        let alpha = min(max(Double(source[p + 3]), 0), 1) * wx * wy / (sx * sy)
                        for c in 0..<3 { sum[c] += Double(source[p + c]) * alpha }
                        sum[3] += alpha
                    }
                }
                out += (0..<3).map { sum[3] > 0 ? sum[$0] / sum[3] : 0 } + [sum[3]]
            }
        }
        return out
    }
}
