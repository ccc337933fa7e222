import CFFmpeg
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The GPU conversion on the machine's Vulkan device (lavapipe in CI), with
/// the Khronos validation layer on, against the float64 reference.
///
/// Tolerance: RGBA16F keeps 11 significant bits, so each channel may differ
/// from the float64 value by 1e-3 relative (half-float rounding plus float32
/// maths in the shader) and 2e-5 absolute near zero. "Relative" is to the
/// larger of the channel and the pixel's largest colour channel: the gamut
/// matrix subtracts terms as large as the largest channel, so float32
/// rounding scales with that, not with a small result.
final class VulkanConversionTests: XCTestCase {
    static let relativeTolerance = 1e-3
    static let absoluteTolerance = 2e-5

    // nonisolated(unsafe): XCTest runs a class's tests one after another, on one thread.
    nonisolated(unsafe) private static var shared: (VulkanContext, ShaderCompiler)?

    private func gpu() throws -> (VulkanContext, ShaderCompiler) {
        if let shared = Self.shared { return shared }
        let context = try VulkanContext(options: .init(validation: true))
        let made = (context, try ShaderCompiler(cacheDirectory: nil))
        Self.shared = made
        return made
    }

    override func tearDownWithError() throws {
        if let log = Self.shared?.0.validation {
            XCTAssertEqual(log.messages, [], "the validation layer reported problems")
        }
    }

    /// A y416 surface holding `pixels` (A, Y, Cb, Cr codes) in one row each of `width`.
    private func y416Surface(_ pixels: [(UInt16, UInt16, UInt16, UInt16)], width: Int, pool: PixelBufferPool? = nil)
        throws -> (PixelBufferPool, PixelBuffer)
    {
        let height = pixels.count / width
        let pool = pool ?? PixelBufferPool(layout: .packed(.y416, width: width, height: height))
        let surface = try pool.makeBuffer()
        let words = surface.baseAddress.assumingMemoryBound(to: UInt16.self)
        for (i, p) in pixels.enumerated() {
            words[4 * i] = p.0.littleEndian
            words[4 * i + 1] = p.1.littleEndian
            words[4 * i + 2] = p.2.littleEndian
            words[4 * i + 3] = p.3.littleEndian
        }
        return (pool, surface)
    }

    /// Converts `surface` once per spec, all through one converter (frames in flight).
    private func convert(_ surface: PixelBuffer, specs: [ConversionSpec]) throws -> [[[Float]]] {
        let (context, compiler) = try gpu()
        var results: [[[Float]]] = []
        let converter = try GPUFrameConverter(
            context: context, kernels: KernelCache(context: context, compiler: compiler)
        ) { frame in
            XCTAssertEqual(frame.index, results.count, "frames must come back in submission order")
            var pixels: [[Float]] = []
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    pixels.append((0..<4).map { frame.value(x: x, y: y, channel: $0) })
                }
            }
            results.append(pixels)
        }
        for (i, spec) in specs.enumerated() {
            try converter.submit(surface, parameters: ConversionParameters(spec), index: i, pts: nil)
        }
        try converter.finish()
        return results
    }

    private func convert(_ surface: PixelBuffer, spec: ConversionSpec) throws -> [[Float]] {
        try convert(surface, specs: [spec])[0]
    }

    private func assertClose(
        _ gpu: [Float], _ reference: (r: Double, g: Double, b: Double, a: Double), _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let expected = [reference.r, reference.g, reference.b, reference.a]
        let largest = expected[0..<3].map(abs).max()!
        for c in 0..<4 {
            let error = abs(Double(gpu[c]) - expected[c])
            let scale = c == 3 ? abs(expected[c]) : max(abs(expected[c]), largest)
            XCTAssertLessThanOrEqual(
                error, Self.relativeTolerance * scale + Self.absoluteTolerance,
                "\(what) channel \(c): GPU \(gpu[c]) vs float64 \(expected[c])", file: file, line: line)
        }
    }

    func testKnownValuesMatchTheFloat64Reference() throws {
        let sdr = try ConversionSpec(
            matrixCode: 1, transferCode: 1, primariesCode: 1, range: .video, referenceWhite: 203)
        let codes: [(UInt16, UInt16, UInt16, UInt16)] = [
            (65535, 4096, 32768, 32768),  // video black → 0
            (65535, 60160, 32768, 32768),  // video white → 1
            (32768, 46080, 32768, 32768),  // 75% grey, half alpha
            (0, 0, 32768, 32768),  // below black: negative, mirrored
            (65535, 65535, 32768, 32768),  // above white: > 1 survives
            (65535, 41976, 10752, 36864),  // a 75% yellow-ish bar
            (65535, 30000, 60000, 5000),  // out of gamut: negatives survive
            (65535, 20000, 1000, 64000),
        ]
        let (_, surface) = try y416Surface(codes, width: 4)
        defer { surface.releaseUse() }
        let out = try convert(surface, spec: sdr)
        XCTAssertEqual(out.count, codes.count)
        for (i, c) in codes.enumerated() {
            assertClose(out[i], ReferenceConverter.convert(y: c.1, cb: c.2, cr: c.3, a: c.0, params: sdr), "pixel \(i)")
        }
        XCTAssertEqual(out[0][0], 0, accuracy: 1e-6)
        XCTAssertEqual(out[1][1], 1, accuracy: 1e-3)
        XCTAssertLessThan(out[3][1], 0, "below-black codes must stay negative")
        XCTAssertGreaterThan(out[4][1], 1, "above-white codes must stay above 1")
    }

    func testPQReferenceWhiteIsOne() throws {
        // PQ signal of 203 nits, computed here from ST 2084's inverse EOTF.
        func pqSignal(_ nits: Double) -> Double {
            let m1 = 2610.0 / 16384
            let m2 = 2523.0 / 4096 * 128
            let c1 = 3424.0 / 4096
            let c2 = 2413.0 / 4096 * 32
            let c3 = 2392.0 / 4096 * 32
            let y = pow(nits / 10000, m1)
            return pow((c1 + c2 * y) / (1 + c3 * y), m2)
        }
        let pq = try ConversionSpec(
            matrixCode: 9, transferCode: 16, primariesCode: 9, range: .full, referenceWhite: 203)
        // Full range, neutral chroma: Y' = code / 65535 exactly.
        let y203 = UInt16((pqSignal(203) * 65535).rounded())
        let y1000 = UInt16((pqSignal(1000) * 65535).rounded())
        let (_, surface) = try y416Surface([(65535, y203, 32768, 32768), (65535, y1000, 32768, 32768)], width: 2)
        defer { surface.releaseUse() }
        let out = try convert(surface, spec: pq)
        XCTAssertEqual(Double(out[0][1]), 1.0, accuracy: 3e-3)
        XCTAssertEqual(Double(out[1][1]), 1000.0 / 203, accuracy: 1000.0 / 203 * 3e-3)
        for (i, y) in [y203, y1000].enumerated() {
            assertClose(
                out[i], ReferenceConverter.convert(y: y, cb: 32768, cr: 32768, a: 65535, params: pq), "PQ pixel \(i)")
        }
    }

    func testEveryTransferAndPrimariesAgainstTheReference() throws {
        var codes: [(UInt16, UInt16, UInt16, UInt16)] = []
        for y in stride(from: 0, through: 65535, by: 8191) {
            for (cb, cr) in [(32768, 32768), (8000, 50000), (60000, 12000), (1000, 1000)] {
                codes.append((UInt16(y), UInt16(y), UInt16(cb), UInt16(cr)))
            }
        }
        XCTAssertEqual(codes.count, 36)
        let (_, surface) = try y416Surface(codes, width: 6)
        defer { surface.releaseUse() }
        var specs: [ConversionSpec] = []
        for matrix in [1, 6, 9] {
            for transfer in [1, 13, 16, 18, 8] {
                for primaries in [1, 5, 6, 9, 11, 12] {
                    for range in [ColorRange.video, .full] {
                        specs.append(
                            try ConversionSpec(
                                matrixCode: matrix, transferCode: transfer, primariesCode: primaries, range: range,
                                referenceWhite: 203))
                    }
                }
            }
        }
        let outputs = try convert(surface, specs: specs)
        XCTAssertEqual(outputs.count, specs.count)
        for (spec, out) in zip(specs, outputs) {
            for (i, c) in codes.enumerated() {
                assertClose(
                    out[i], ReferenceConverter.convert(y: c.1, cb: c.2, cr: c.3, a: c.0, params: spec),
                    "\(spec) pixel \(i)")
            }
        }
    }
}
