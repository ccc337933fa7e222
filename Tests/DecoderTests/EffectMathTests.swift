import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The CPU side of the effects: the matrices and key chroma handed to the
/// shaders, against hand-computed values and the float64 reference, and the
/// push-constant blocks against the shaders that mirror them.
final class EffectMathTests: XCTestCase {
    private let samples: [SIMD3<Double>] = [
        SIMD3(1, 1, 1), SIMD3(0.18, 0.18, 0.18), SIMD3(4.93, 2.1, 0.3), SIMD3(-0.05, 0.7, 1.6),
        SIMD3(0, 0, 0), SIMD3(12, -0.4, 38), SIMD3(0.25, 0.5, 0.75),
    ]

    private func assertClose(
        _ a: SIMD3<Double>, _ b: SIMD3<Double>, _ what: String, accuracy: Double = 1e-12,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for c in 0..<3 {
            XCTAssertEqual(a[c], b[c], accuracy: accuracy, "\(what) channel \(c)", file: file, line: line)
        }
    }

    func testP3LuminanceWeightsMatchThePublishedValues() {
        assertClose(ColorMatrixEffects.luminanceWeights, EffectReference.p3Luminance, "P3 luminance", accuracy: 1e-9)
    }

    func testExposureIsAPowerOfTwoGain() {
        assertClose(ColorMatrixEffects.exposure(stops: 1).apply(SIMD3(0.5, 2, -0.25)), SIMD3(1, 4, -0.5), "+1 stop")
        assertClose(ColorMatrixEffects.exposure(stops: -2).apply(SIMD3(8, 1, 0)), SIMD3(2, 0.25, 0), "-2 stops")
        assertClose(
            ColorMatrixEffects.exposure(stops: 0.5).apply(SIMD3(1, 1, 1)), SIMD3(repeating: 2.0.squareRoot()),
            "half a stop")
    }

    func testSaturationZeroIsGreyOfTheSameLuminanceAndOneIsIdentity() {
        // Y of (2, 0.5, -0.1) by hand: 0.2289745641·2 + 0.6917385218·0.5 − 0.0792869141·0.1
        let y = 0.4579491282 + 0.3458692609 - 0.00792869141
        assertClose(
            ColorMatrixEffects.saturation(0).apply(SIMD3(2, 0.5, -0.1)), SIMD3(repeating: y), "saturation 0",
            accuracy: 1e-9)
        for rgb in samples {
            assertClose(ColorMatrixEffects.saturation(1).apply(rgb), rgb, "saturation 1")
        }
    }

    func testSepiaOfWhiteIsTheToneAndKeepsHDR() {
        let white = ColorMatrixEffects.sepia(amount: 1).apply(SIMD3(1, 1, 1))
        XCTAssertEqual(white.y / white.x, 0.7, accuracy: 1e-12)
        XCTAssertEqual(white.z / white.x, 0.4, accuracy: 1e-12)
        XCTAssertEqual(EffectReference.luminance(white), 1, accuracy: 1e-9, "sepia keeps luminance")
        // (1, 0.7, 0.4) has luminance 0.2289745641 + 0.48421696526 + 0.03171476564 = 0.744906295.
        XCTAssertEqual(white.x, 1 / 0.744906295, accuracy: 1e-8)
        let hdr = ColorMatrixEffects.sepia(amount: 1).apply(SIMD3(4, 4, 4))
        XCTAssertGreaterThan(hdr.x, 5.3, "HDR white stays above 1: nothing is clamped")
        for rgb in samples { assertClose(ColorMatrixEffects.sepia(amount: 0).apply(rgb), rgb, "sepia 0") }
    }

    /// The reference's weights are typed to 10 decimals, so large values and
    /// gains allow a matching 1e-9 relative difference.
    func testMatricesMatchTheReference() {
        for rgb in samples {
            for a in [0.0, 0.3, 1] {
                assertClose(
                    ColorMatrixEffects.sepia(amount: a).apply(rgb), EffectReference.sepia(rgb, amount: a),
                    "sepia \(a) of \(rgb)", accuracy: 1e-9)
            }
            for s in [0.0, 0.5, 2, 10] {
                assertClose(
                    ColorMatrixEffects.saturation(s).apply(rgb), EffectReference.saturation(rgb, s),
                    "saturation \(s) of \(rgb)",
                    accuracy: 1e-9 * max(1, s) * (1 + abs(rgb.x) + abs(rgb.y) + abs(rgb.z)))
            }
            for stops in [-20.0, -1.5, 3, 20] {
                assertClose(
                    ColorMatrixEffects.exposure(stops: stops).apply(rgb), EffectReference.exposure(rgb, stops: stops),
                    "exposure \(stops) of \(rgb)", accuracy: 1e-9 * pow(2, max(stops, 0)))
            }
        }
    }

    func testKeyChromaOfPureGreen() {
        // BT.709: Y' = 0.7152, Cb = −0.7152 / 1.8556, Cr = −0.7152 / 1.5748.
        let bt709 = ChromaKey(color: SIMD3(0, 1, 0)).keyChroma(.bt709)
        XCTAssertEqual(bt709.x, -0.385428, accuracy: 1e-6)
        XCTAssertEqual(bt709.y, -0.454153, accuracy: 1e-6)
        // BT.2020: Kg = 0.678, Cb = −0.678 / 1.8814, Cr = −0.678 / 1.4746.
        let bt2020 = ChromaKey(color: SIMD3(0, 1, 0)).keyChroma(.bt2020)
        XCTAssertEqual(bt2020.x, -0.360370, accuracy: 1e-6)
        XCTAssertEqual(bt2020.y, -0.459786, accuracy: 1e-6)
        // Neutral keys have no chroma.
        let grey = ChromaKey(color: SIMD3(0.5, 0.5, 0.5)).keyChroma(.bt601)
        XCTAssertEqual(grey.x, 0, accuracy: 1e-15)
        XCTAssertEqual(grey.y, 0, accuracy: 1e-15)
    }

    func testEffectShadersDeclareNoInterfaceOfTheirOwn() throws {
        // Their blocks are generated from each EffectKernel's declaration
        // (KernelInterfaceTests checks the generated GLSL on the GPU).
        for file in ["effect_matrix.comp", "effect_chroma_key.comp", "effect_lut3d.comp"] {
            let source = try XCTUnwrap(EmbeddedShaders.sources[file], file)
            XCTAssertFalse(
                source.contains("push_constant") || source.contains("binding ="),
                "\(file) declares its interface by hand")
            XCTAssertTrue(source.contains("// @interface"), file)
        }
        XCTAssertEqual(MatrixEffectKernel.push.size, 56)
        XCTAssertEqual(ChromaKeyKernel.push.size, 36)
        XCTAssertEqual(LUTKernel.push.size, 48)
    }

    func testChromaKeyBlockCarriesTheKeyAndRange() {
        let bytes = ChromaKeyKernel.push.bytes(
            ChromaKeyKernel.values(
                ChromaKey(color: SIMD3(0, 1, 0), tolerance: 0.2, softness: 0),
                matrix: .bt709, range: .full, width: 7, height: 5, sourceBytesPerRow: 64))
        let floats = stride(from: 0, to: 24, by: 4).map { i in
            Float(bitPattern: bytes[i..<i + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        }
        XCTAssertEqual(Double(floats[0]), -0.385428, accuracy: 1e-6)
        XCTAssertEqual(floats[2], 0.2)
        XCTAssertEqual(floats[3], .greatestFiniteMagnitude, "softness 0 is a step")
        XCTAssertEqual(floats[4], 32768)
        XCTAssertEqual(floats[5], 1 / 65535)
        let words = stride(from: 24, to: 36, by: 4).map { i in
            bytes[i..<i + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        }
        XCTAssertEqual(words, [7, 5, 16])
    }
}
