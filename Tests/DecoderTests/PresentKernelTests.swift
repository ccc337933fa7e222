import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResGPU
@testable import TestSupport

/// `present.comp` alone on lavapipe, every colour path, against float64 maths
/// written here from the definitions (primaries → XYZ → primaries, the
/// roll-off, the sRGB and PQ curves): the HDR paths cannot be seen on
/// lavapipe's window, so this is where their pixels are checked.
final class PresentKernelTests: XCTestCase {
    /// Linear Display P3 RGBA: HDR, a negative (outside P3 → BT.709 too), half alpha, transparent.
    let source: [SIMD4<Double>] = [
        SIMD4(0.18, 0.18, 0.18, 1), SIMD4(2.5, 1.0, 0.2, 1), SIMD4(-0.05, 0.6, 0.9, 1), SIMD4(1, 0, 0, 1),
        SIMD4(0.5, 0.25, 0.75, 0.5), SIMD4(0.9, 0.9, 0.9, 0), SIMD4(0, 1, 0, 1), SIMD4(40, 40, 40, 1),
    ]
    let width = 4, height = 2

    func testSDR() throws {
        for format in [SurfaceFormat(.bgra8Unorm, .srgbNonlinear), SurfaceFormat(.rgba8Unorm, .srgbNonlinear)] {
            let words = try run(.sdr, format, target: (width, height))
            let m = Self.matrix(from: Self.p3, to: Self.bt709)
            for (i, pixel) in source.enumerated() {
                var rgb = SIMD3(max(pixel.x, 0), max(pixel.y, 0), max(pixel.z, 0))
                let peak = max(rgb.x, rgb.y, rgb.z)
                if peak > 0.75 { rgb *= (0.75 + 0.25 * (1 - exp(-(peak - 0.75) / 0.25))) / peak }
                let out = Self.apply(m, rgb).clamped(lowerBound: .zero, upperBound: .one) * pixel.w
                let codes = (0..<3).map { Int((Self.srgb(out[$0]) * 255).rounded()) }
                let word = words[i]
                let got =
                    format.pixels == .rgba8Unorm
                    ? [word & 255, word >> 8 & 255, word >> 16 & 255] : [word >> 16 & 255, word >> 8 & 255, word & 255]
                for c in 0..<3 {
                    XCTAssertEqual(Double(got[c]), Double(codes[c]), accuracy: 1, "pixel \(i) channel \(c) \(format)")
                }
                XCTAssertEqual(word >> 24, 255, "opaque")
            }
        }
    }

    func testExtendedLinear() throws {
        let words = try run(.scRGBLinear, SurfaceFormat(.rgba16Float, .extendedSRGBLinear), target: (width, height))
        let m = Self.matrix(from: Self.p3, to: Self.bt709)
        for (i, pixel) in source.enumerated() {
            let expected = Self.apply(m, SIMD3(pixel.x, pixel.y, pixel.z)) * pixel.w
            let got = [
                Float(Float16(bitPattern: UInt16(words[2 * i] & 0xFFFF))),
                Float(Float16(bitPattern: UInt16(words[2 * i] >> 16))),
                Float(Float16(bitPattern: UInt16(words[2 * i + 1] & 0xFFFF))),
            ]
            for c in 0..<3 {
                XCTAssertEqual(
                    Double(got[c]), expected[c], accuracy: max(abs(expected[c]) * 2e-3, 1e-3), "pixel \(i) channel \(c)"
                )
            }
        }
        XCTAssertLessThan(
            Double(Float(Float16(bitPattern: UInt16(words[4] & 0xFFFF)))), 0, "a colour outside BT.709 stays negative")
    }

    func testPQ() throws {
        let words = try run(.pq, SurfaceFormat(.a2b10g10r10, .hdr10ST2084), target: (width, height))
        let m = Self.matrix(from: Self.p3, to: Self.bt2020)
        for (i, pixel) in source.enumerated() {
            let nits = Self.apply(m, SIMD3(pixel.x, pixel.y, pixel.z)) * pixel.w * 203
            let codes = (0..<3).map { Int((Self.pq(nits[$0] / 10000) * 1023).rounded()) }
            let got = [words[i] & 1023, words[i] >> 10 & 1023, words[i] >> 20 & 1023]
            for c in 0..<3 { XCTAssertEqual(Double(got[c]), Double(codes[c]), accuracy: 1, "pixel \(i) channel \(c)") }
        }
    }

    /// A wider image: the frame centred at its own size, black either side.
    func testFitKeepsAspectWithBlackBars() throws {
        let words = try run(.sdr, SurfaceFormat(.bgra8Unorm, .srgbNonlinear), target: (8, 2))
        let rows = stride(from: 0, to: 16, by: 8).map { Array(words[$0..<$0 + 8]) }
        for row in rows {
            XCTAssertEqual(row[0] & 0xFFFFFF, 0)
            XCTAssertEqual(row[1] & 0xFFFFFF, 0)
            XCTAssertEqual(row[6] & 0xFFFFFF, 0)
            XCTAssertEqual(row[7] & 0xFFFFFF, 0)
        }
        let straight = try run(.sdr, SurfaceFormat(.bgra8Unorm, .srgbNonlinear), target: (width, height))
        XCTAssertEqual(Array(rows[0][2..<6]), Array(straight[0..<4]))
        XCTAssertEqual(Array(rows[1][2..<6]), Array(straight[4..<8]))
    }

    /// Pixels twice as wide as tall (sample aspect 2:1) fill an image twice
    /// the frame's width: each frame pixel shown in two columns, no bars.
    func testSampleAspectStretchesAcross() throws {
        let format = SurfaceFormat(.bgra8Unorm, .srgbNonlinear)
        let straight = try run(.sdr, format, target: (width, height))
        let wide = try run(.sdr, format, target: (2 * width, height), pixelAspect: 2)
        for row in 0..<height {
            for column in 0..<2 * width {
                XCTAssertEqual(
                    wide[row * 2 * width + column], straight[row * width + column / 2], "row \(row), column \(column)")
            }
        }
    }

    // MARK: - The pass, run alone

    private func run(
        _ path: DisplayColourPath, _ format: SurfaceFormat, target: (width: Int, height: Int),
        pixelAspect: Double = 1
    ) throws -> [UInt32] {
        let context = try VulkanContext(options: .init(validation: true))
        let kernel = try KernelCache(context: context, compiler: ShaderCompiler(cacheDirectory: nil)).kernel(
            PresentKernel.interface)
        let halves = source.flatMap { p in [p.x, p.y, p.z, p.w].map { Float16(Float($0)).bitPattern } }
        let frame = try VulkanBuffer(context, size: halves.count * 2, usage: .storage, memory: .host)
        halves.withUnsafeBytes { frame.mapped!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let words = target.width * target.height * format.pixels.bytesPerPixel / 4
        let output = try VulkanBuffer(context, size: words * 4, usage: .storage, memory: .host)
        // Not zeros: black bars the kernel did not write must not pass for black.
        output.mapped!.initializeMemory(as: UInt32.self, repeating: 0xA5A5_A5A5, count: words)
        let recorder = try CommandRecorder(context: context, count: 1)
        let cb = try recorder.begin(0)
        cb.dispatch(
            kernel, set: try kernel.makeBindingSets(1)[0], buffers: [BufferRange(frame), BufferRange(output)],
            push: PresentKernel.values(
                path: path, format: format, source: (width, height), target: target, referenceWhite: 203,
                pixelAspect: pixelAspect),
            groups: (kernel.interface.groups(covering: target.width), target.height, 1))
        try recorder.wait(for: try recorder.submit(cb))
        XCTAssertEqual(context.validation?.messages ?? [], [])
        return Array(UnsafeBufferPointer(start: output.mapped!.assumingMemoryBound(to: UInt32.self), count: words))
    }

    // MARK: - The reference maths

    static let p3 = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
    static let bt709 = [(0.640, 0.330), (0.300, 0.600), (0.150, 0.060)]
    static let bt2020 = [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]

    /// Rows of the linear RGB → RGB matrix between two sets of primaries, both D65.
    static func matrix(from a: [(Double, Double)], to b: [(Double, Double)]) -> [[Double]] {
        multiply(inverse(toXYZ(b)), toXYZ(a))
    }

    static func toXYZ(_ primaries: [(Double, Double)]) -> [[Double]] {
        let xyz = primaries.map { [$0.0 / $0.1, 1, (1 - $0.0 - $0.1) / $0.1] }
        let columns = [
            [xyz[0][0], xyz[1][0], xyz[2][0]], [xyz[0][1], xyz[1][1], xyz[2][1]], [xyz[0][2], xyz[1][2], xyz[2][2]],
        ]
        let white = [0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290]
        let scale = inverse(columns).map { row in zip(row, white).map(*).reduce(0, +) }
        return columns.map { row in (0..<3).map { row[$0] * scale[$0] } }
    }

    static func inverse(_ m: [[Double]]) -> [[Double]] {
        let det =
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        func cofactor(_ r: Int, _ c: Int) -> Double {
            let rows = (0..<3).filter { $0 != r }
            let cols = (0..<3).filter { $0 != c }
            let minor = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
            return (r + c) % 2 == 0 ? minor : -minor
        }
        return (0..<3).map { r in (0..<3).map { c in cofactor(c, r) / det } }
    }

    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { r in (0..<3).map { c in (0..<3).map { a[r][$0] * b[$0][c] }.reduce(0, +) } }
    }

    static func apply(_ m: [[Double]], _ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((0..<3).map { r in m[r][0] * v.x + m[r][1] * v.y + m[r][2] * v.z })
    }

    static func srgb(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    static func pq(_ y: Double) -> Double {
        let (m1, m2, c1, c2, c3) = (
            2610.0 / 16384, 2523.0 / 4096 * 128, 3424.0 / 4096, 2413.0 / 4096 * 32, 2392.0 / 4096 * 32
        )
        let p = pow(min(max(y, 0), 1), m1)
        return pow((c1 + c2 * p) / (1 + c3 * p), m2)
    }
}
