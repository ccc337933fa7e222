import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The CPU colour maths behind the Y'CbCr → extended linear Display P3 shader
/// (Sources/ProResDecode/Color). Every expected value comes from a published
/// table (IEC 61966-2-1, BT.2087, SMPTE EG 432-1, SMPTE RP 219, BT.2408,
/// Lindbloom's Bradford table) or from the standards' forward formulas
/// written out again here (the Y'CbCr encoder, the PQ inverse EOTF, the HLG
/// OETF) — never by calling the code under test to make the expectation.
final class ColorMathTests: XCTestCase {

    // MARK: - Helpers

    func assertMatrix(
        _ m: Matrix3, _ expected: [[Double]], accuracy: Double,
        _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        for r in 0..<3 {
            for c in 0..<3 {
                XCTAssertEqual(
                    m[r, c], expected[r][c], accuracy: accuracy,
                    "element (\(r), \(c)) \(message)\n\(m)", file: file, line: line)
            }
        }
    }

    func assertVector(
        _ v: SIMD3<Double>, _ expected: SIMD3<Double>, accuracy: Double,
        _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        for i in 0..<3 {
            XCTAssertEqual(
                v[i], expected[i], accuracy: accuracy, "component \(i) of \(v) \(message)", file: file, line: line)
        }
    }

    func assertPixel(
        _ p: (r: Double, g: Double, b: Double, a: Double), _ expected: (Double, Double, Double, Double),
        accuracy: Double, _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(p.r, expected.0, accuracy: accuracy, "r \(message)", file: file, line: line)
        XCTAssertEqual(p.g, expected.1, accuracy: accuracy, "g \(message)", file: file, line: line)
        XCTAssertEqual(p.b, expected.2, accuracy: accuracy, "b \(message)", file: file, line: line)
        XCTAssertEqual(p.a, expected.3, accuracy: accuracy, "a \(message)", file: file, line: line)
    }

    /// An ideal Y'CbCr encoder, written from the BT.601/709/2020 definitions:
    /// Y' = Kr R' + Kg G' + Kb B', Cb = (B' − Y') / (2(1 − Kb)),
    /// Cr = (R' − Y') / (2(1 − Kr)), then quantised to 16-bit MSB-aligned
    /// codes (video: 10-bit 64 + 876 Y', 512 + 896 C, times 64; full:
    /// 65535 Y', 32768 + 65535 C). Codes are not rounded.
    func encode(_ rgb: SIMD3<Double>, kr: Double, kb: Double, range: ColorRange) -> SIMD3<Double> {
        let kg = 1 - kr - kb
        let y = kr * rgb.x + kg * rgb.y + kb * rgb.z
        let cb = (rgb.z - y) / (2 * (1 - kb))
        let cr = (rgb.x - y) / (2 * (1 - kr))
        switch range {
        case .video: return SIMD3(64 * (64 + 876 * y), 64 * (512 + 896 * cb), 64 * (512 + 896 * cr))
        case .full: return SIMD3(65535 * y, 32768 + 65535 * cb, 32768 + 65535 * cr)
        }
    }

    /// SMPTE ST 2084 inverse EOTF, written from the standard:
    /// E' = ((c1 + c2 Y^m1) / (1 + c3 Y^m1))^m2, Y = nits / 10000.
    func pqSignal(nits: Double) -> Double {
        let m1 = 2610.0 / 4096 / 4
        let m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096
        let c2 = 2413.0 / 4096 * 32
        let c3 = 2392.0 / 4096 * 32
        let y = pow(nits / 10000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// BT.2100 HLG OETF, written from the standard: E' = sqrt(3E) for
    /// E ≤ 1/12, else a ln(12E − b) + c.
    func hlgSignal(scene e: Double) -> Double {
        let a = 0.17883277
        let b = 1 - 4 * a
        let c = 0.5 - a * log(4 * a)
        return e <= 1.0 / 12 ? (3 * e).squareRoot() : a * log(12 * e - b) + c
    }

    static let d65Codes = [1, 5, 6, 7, 9, 12, 22]
    static let matrixCodes = [1, 5, 6, 9]
    /// Published Kr, Kb (H.273 Table 4).
    static let krkb: [Int: (Double, Double)] = [
        1: (0.2126, 0.0722), 5: (0.299, 0.114), 6: (0.299, 0.114), 9: (0.2627, 0.0593),
    ]

    // MARK: - Matrix3

    func testMatrix3InverseMultiplyAndApply() throws {
        // A hand-inverted matrix: [[2,0,0],[0,0,4],[0,1,0]]⁻¹ = [[.5,0,0],[0,0,1],[0,.25,0]].
        let m = Matrix3(rows: [[2, 0, 0], [0, 0, 4], [0, 1, 0]])
        XCTAssertEqual(m.determinant, -8)
        assertMatrix(try XCTUnwrap(m.inverse), [[0.5, 0, 0], [0, 0, 1], [0, 0.25, 0]], accuracy: 0)
        assertVector(m * SIMD3(1, 2, 3), SIMD3(2, 12, 2), accuracy: 0)
        let n = Matrix3(rows: [[1, 2, 3], [0, 1, 4], [5, 6, 0]])
        // (n · m) computed by hand.
        assertMatrix(n * m, [[2, 3, 8], [0, 4, 4], [10, 0, 24]], accuracy: 0)
        // Known inverse of n: [[-24, 18, 5], [20, -15, -4], [-5, 4, 1]].
        assertMatrix(try XCTUnwrap(n.inverse), [[-24, 18, 5], [20, -15, -4], [-5, 4, 1]], accuracy: 1e-12)
        XCTAssertLessThan((n * n.inverse!).maxAbsDifference(.identity), 1e-12)
        XCTAssertNil(Matrix3(rows: [[1, 2, 3], [2, 4, 6], [0, 0, 1]]).inverse)
        XCTAssertEqual(n.transposed[0, 2], 5)
        XCTAssertEqual(n.column(1), SIMD3(2, 1, 6))
    }

    // MARK: - Primaries and gamut

    func testBT709ToXYZMatchesIEC61966() throws {
        let m = try XCTUnwrap(ColorPrimariesSpec(code: 1)).rgbToXYZ
        // IEC 61966-2-1 (sRGB), same primaries and white as BT.709.
        assertMatrix(
            m,
            [
                [0.4124, 0.3576, 0.1805],
                [0.2126, 0.7152, 0.0722],
                [0.0193, 0.1192, 0.9505],
            ], accuracy: 1e-4)
        // The middle row is the luminance: BT.709's Kr, Kg, Kb.
        assertVector(m.row1, SIMD3(0.2126, 0.7152, 0.0722), accuracy: 1e-4)
    }

    func testBT2020ToXYZMatchesPublished() throws {
        let m = try XCTUnwrap(ColorPrimariesSpec(code: 9)).rgbToXYZ
        // ITU-R BT.2087 / BT.2020 NPM.
        assertMatrix(
            m,
            [
                [0.6370, 0.1446, 0.1689],
                [0.2627, 0.6780, 0.0593],
                [0.0000, 0.0281, 1.0610],
            ], accuracy: 1e-4)
        assertVector(m.row1, SIMD3(0.2627, 0.6780, 0.0593), accuracy: 1e-4)
    }

    func testP3D65ToXYZMatchesSMPTEEG432() throws {
        let m = try XCTUnwrap(ColorPrimariesSpec(code: 12)).rgbToXYZ
        assertMatrix(
            m,
            [
                [0.4866, 0.2657, 0.1982],
                [0.2290, 0.6917, 0.0793],
                [0.0000, 0.0451, 1.0439],
            ], accuracy: 1e-4)
    }

    func testBT601LuminanceRowsMatchTheirOwnPrimaries() throws {
        // Sanity for the NCL matrices' provenance: SMPTE 170M primaries give
        // Y ≈ 0.2124 R + 0.7011 G + 0.0866 B (SMPTE RP 145 / 170M NPM), which
        // is *not* the 0.299/0.587/0.114 of the BT.601 matrix (an NTSC-1953
        // legacy); the derivation must not confuse the two.
        let m = try XCTUnwrap(ColorPrimariesSpec(code: 6)).rgbToXYZ
        assertVector(m.row1, SIMD3(0.2124, 0.7011, 0.0866), accuracy: 1e-4)
        XCTAssertEqual(ColorPrimariesSpec(code: 7)?.chromaticities, ColorPrimariesSpec(code: 6)?.chromaticities)
    }

    func testP3D65ToP3D65IsIdentity() throws {
        let m = try XCTUnwrap(ColorPrimariesSpec.rgbToP3D65(primaries: 12))
        XCTAssertLessThan(m.maxAbsDifference(.identity), 1e-12, "\(m)")
        XCTAssertLessThan(ColorPrimariesSpec.rgbToP3D65(primaries: .displayP3).maxAbsDifference(.identity), 1e-12)
    }

    func testWhiteMapsToWhiteForEveryD65Space() throws {
        for code in Self.d65Codes {
            let spec = try XCTUnwrap(ColorPrimariesSpec(code: code))
            XCTAssertEqual(spec.chromaticities.white, CIExy(0.3127, 0.3290))
            assertVector(spec.rgbToP3D65 * SIMD3(1, 1, 1), SIMD3(1, 1, 1), accuracy: 1e-9, "primaries \(code)")
        }
    }

    func testDCIP3WhiteIsBradfordAdaptedToD65White() throws {
        let dci = try XCTUnwrap(ColorPrimariesSpec(code: 11))
        XCTAssertEqual(dci.chromaticities.white, CIExy(0.314, 0.351))
        // Adaptation means the DCI white (1,1,1) is shown as D65 white (1,1,1).
        assertVector(dci.rgbToP3D65 * SIMD3(1, 1, 1), SIMD3(1, 1, 1), accuracy: 1e-9)
        // Without adaptation it would not be: XYZ of the DCI white in P3-D65 RGB.
        let unadapted = ColorPrimariesSpec.displayP3.chromaticities.xyzToRGB * dci.rgbToXYZ * SIMD3(1, 1, 1)
        XCTAssertGreaterThan(abs(unadapted.z - 1), 0.05, "the two whites differ noticeably")
        // Same primaries: the adapted matrix is close to, but not, the identity.
        let m = dci.rgbToP3D65
        XCTAssertGreaterThan(m.maxAbsDifference(.identity), 1e-3)
        XCTAssertLessThan(m.maxAbsDifference(.identity), 0.1)
    }

    func testBradfordMatchesLindbloomD65ToD50() {
        // Bruce Lindbloom, "Chromatic Adaptation": Bradford, D65 → D50, with
        // XYZ whites (0.95047, 1, 1.08883) and (0.96422, 1, 0.82521).
        let m = ChromaticAdaptation.bradford(fromWhite: SIMD3(0.95047, 1, 1.08883), toWhite: SIMD3(0.96422, 1, 0.82521))
        assertMatrix(
            m,
            [
                [1.0478112, 0.0228866, -0.0501270],
                [0.0295424, 0.9904844, -0.0170491],
                [-0.0092345, 0.0150436, 0.7521316],
            ], accuracy: 2e-7)
        XCTAssertLessThan(ChromaticAdaptation.bradford(from: .d65, to: .d65).maxAbsDifference(.identity), 1e-12)
    }

    func testBT709ToP3D65MatchesPublished() throws {
        let m = try XCTUnwrap(ColorPrimariesSpec.rgbToP3D65(primaries: 1))
        assertMatrix(
            m,
            [
                [0.8225, 0.1774, 0.0000],
                [0.0332, 0.9669, 0.0000],
                [0.0171, 0.0724, 0.9108],
            ], accuracy: 1e-3)
    }

    func testBT709ToBT2020MatchesBT2087() throws {
        // The same derivation between two other spaces, against BT.2087's matrix.
        let m = ColorPrimariesSpec.bt2020.chromaticities.xyzToRGB * ColorPrimariesSpec.bt709.rgbToXYZ
        assertMatrix(
            m,
            [
                [0.6274, 0.3293, 0.0433],
                [0.0691, 0.9195, 0.0114],
                [0.0164, 0.0880, 0.8956],
            ], accuracy: 1e-4)
    }

    func testPrimariesCodeTable() {
        XCTAssertEqual(ColorPrimariesSpec(code: 5)?.chromaticities.green, CIExy(0.29, 0.60))
        XCTAssertEqual(ColorPrimariesSpec(code: 22)?.chromaticities.blue, CIExy(0.155, 0.077))
        XCTAssertEqual(ColorPrimariesSpec(code: 9)?.chromaticities.red, CIExy(0.708, 0.292))
        for unknown in [0, 2, 3, 4, 8, 10, 23, 255] {
            XCTAssertNil(ColorPrimariesSpec(code: unknown), "code \(unknown)")
        }
        XCTAssertNil(ColorPrimariesSpec(ColorCode(.transfer, 1)), "a transfer tag is not primaries")
        XCTAssertEqual(ColorPrimariesSpec(.bt709Primaries), .bt709)
    }

    // MARK: - Y'CbCr → R'G'B'

    func testVideoAndFullRangeBlackAndWhite() throws {
        for code in Self.matrixCodes {
            let ycc = try XCTUnwrap(YCbCrToRGB(matrixCode: code))
            assertVector(
                ycc.rgbPrime(y: 4096, cb: 32768, cr: 32768, range: .video), .zero, accuracy: 1e-12,
                "video black, matrix \(code)")
            assertVector(
                ycc.rgbPrime(y: 60160, cb: 32768, cr: 32768, range: .video), SIMD3(1, 1, 1), accuracy: 1e-12,
                "video white, matrix \(code)")
            assertVector(
                ycc.rgbPrime(y: 0, cb: 32768, cr: 32768, range: .full), .zero, accuracy: 1e-12,
                "full black, matrix \(code)")
            assertVector(
                ycc.rgbPrime(y: 65535, cb: 32768, cr: 32768, range: .full), SIMD3(1, 1, 1), accuracy: 1e-12,
                "full white, matrix \(code)")
        }
    }

    func testKrKbFromH273() throws {
        for (code, (kr, kb)) in Self.krkb {
            let ycc = try XCTUnwrap(YCbCrToRGB(matrixCode: code))
            XCTAssertEqual(ycc.kr, kr)
            XCTAssertEqual(ycc.kb, kb)
        }
        for unknown in [0, 2, 3, 4, 7, 8, 10, 14] {
            XCTAssertNil(YCbCrToRGB(matrixCode: unknown), "code \(unknown)")
        }
    }

    func testSMPTERP219SeventyFivePercentBars() throws {
        // SMPTE RP 219 10-bit 75% colour bars (BT.709), shifted to 16 bits.
        let bars: [(String, (Int, Int, Int), SIMD3<Double>)] = [
            ("white", (721, 512, 512), SIMD3(0.75, 0.75, 0.75)),
            ("yellow", (674, 176, 543), SIMD3(0.75, 0.75, 0)),
            ("cyan", (581, 589, 176), SIMD3(0, 0.75, 0.75)),
            ("green", (534, 253, 207), SIMD3(0, 0.75, 0)),
            ("magenta", (251, 771, 817), SIMD3(0.75, 0, 0.75)),
            ("red", (204, 435, 848), SIMD3(0.75, 0, 0)),
            ("blue", (111, 848, 481), SIMD3(0, 0, 0.75)),
        ]
        for (name, codes, rgb) in bars {
            let out = YCbCrToRGB.bt709.rgbPrime(
                y: Double(codes.0 << 6), cb: Double(codes.1 << 6), cr: Double(codes.2 << 6), range: .video)
            // 10-bit rounding: ≤ ½ LSB in Y' (1/1752) and in C (1/1792) → < 2e-3 in R'G'B'.
            assertVector(out, rgb, accuracy: 2e-3, name)
        }
    }

    func testBarsRoundTripThroughIndependentEncoder() throws {
        var colours: [SIMD3<Double>] = []
        for level in [0.75, 1.0] {
            for bits in 0..<8 {
                colours.append(level * SIMD3(Double(bits >> 2 & 1), Double(bits >> 1 & 1), Double(bits & 1)))
            }
        }
        colours.append(SIMD3(0.1, 0.5, 0.9))
        colours.append(SIMD3(-0.05, 1.1, 0.3))  // out of range survives
        for code in Self.matrixCodes {
            let (kr, kb) = try XCTUnwrap(Self.krkb[code])
            let ycc = try XCTUnwrap(YCbCrToRGB(matrixCode: code))
            for range in [ColorRange.video, .full] {
                for rgb in colours {
                    let c = encode(rgb, kr: kr, kb: kb, range: range)
                    assertVector(
                        ycc.rgbPrime(y: c.x, cb: c.y, cr: c.z, range: range), rgb, accuracy: 1e-9,
                        "matrix \(code) \(range) \(rgb)")
                }
            }
        }
    }

    func testAffineMapIsOnUnormCodes() {
        // R'G'B' = M · (code / 65535) + o; for black the offset cancels M · black.
        let (m, o) = YCbCrToRGB.bt709.affine(range: .video)
        assertVector(m * (SIMD3(4096, 32768, 32768) / 65535) + o, .zero, accuracy: 1e-12)
        // Y column: a Y' step of one 16-bit code is 1/56064, i.e. 65535/56064 per unit of n.
        assertVector(m.column(0), SIMD3(repeating: 65535.0 / 56064), accuracy: 1e-12)
        // Cr into R: 2(1 − Kr) · 65535 / 57344.
        XCTAssertEqual(m[0, 2], 2 * (1 - 0.2126) * 65535 / 57344, accuracy: 1e-12)
        XCTAssertEqual(m[0, 1], 0)
        XCTAssertEqual(m[2, 2], 0)
    }

    // MARK: - Transfer functions

    func testTransferCodeTable() {
        XCTAssertEqual(TransferFunction(code: 8), .linear)
        for code in [1, 6, 14, 15] { XCTAssertEqual(TransferFunction(code: code), .bt1886, "code \(code)") }
        XCTAssertEqual(TransferFunction(code: 13), .srgb)
        XCTAssertEqual(TransferFunction(code: 16), .pq)
        XCTAssertEqual(TransferFunction(code: 18), .hlg)
        for unknown in [0, 2, 3, 4, 5, 7, 9, 10, 11, 12, 17, 19] {
            XCTAssertNil(TransferFunction(code: unknown), "code \(unknown)")
        }
        XCTAssertEqual(TransferFunction.allCases.map(\.rawValue), [0, 1, 2, 3, 4])
        XCTAssertTrue(TransferFunction.hlg.mixesChannels)
        XCTAssertFalse(TransferFunction.pq.mixesChannels)
    }

    func testBT1886IsGamma24MirroredAndUnclamped() {
        XCTAssertEqual(TransferFunction.bt1886EOTF(0), 0)
        XCTAssertEqual(TransferFunction.bt1886EOTF(1), 1)
        XCTAssertEqual(TransferFunction.bt1886EOTF(0.5), 0.18946457081379978, accuracy: 1e-12)  // 2^-2.4
        XCTAssertEqual(TransferFunction.bt1886EOTF(-0.5), -0.18946457081379978, accuracy: 1e-12)
        XCTAssertEqual(TransferFunction.bt1886EOTF(1.1), 1.257021, accuracy: 1e-6)  // 1.1^2.4 = e^(2.4 ln 1.1)
    }

    func testSRGBPiecewiseContinuityAndMirroring() {
        let knee = 0.04045
        XCTAssertEqual(TransferFunction.srgbEOTF(knee), knee / 12.92, accuracy: 1e-15)
        XCTAssertEqual(
            TransferFunction.srgbEOTF(knee.nextUp), TransferFunction.srgbEOTF(knee), accuracy: 1e-8,
            "the two pieces meet at 0.04045 (to the standard's rounding)")
        XCTAssertEqual(TransferFunction.srgbEOTF(knee), 0.0031308, accuracy: 1e-7)
        XCTAssertEqual(TransferFunction.srgbEOTF(128.0 / 255), 0.2158605, accuracy: 1e-7)  // published 8-bit 128
        XCTAssertEqual(TransferFunction.srgbEOTF(1), 1, accuracy: 1e-15)
        XCTAssertEqual(TransferFunction.srgbEOTF(-0.5), -TransferFunction.srgbEOTF(0.5))
        XCTAssertEqual(TransferFunction.srgbEOTF(-0.02), -0.02 / 12.92, accuracy: 1e-15)
        XCTAssertGreaterThan(TransferFunction.srgbEOTF(1.2), 1.2)  // continues above 1: ((1.255)/1.055)^2.4
        XCTAssertEqual(TransferFunction.srgbEOTF(1.2), pow(1.255 / 1.055, 2.4), accuracy: 1e-12)
    }

    func testPQReferenceWhiteAndPeaks() {
        // The test's own inverse EOTF against BT.2408's published signal levels.
        XCTAssertEqual(pqSignal(nits: 203), 0.58, accuracy: 0.001)
        XCTAssertEqual(pqSignal(nits: 100), 0.508, accuracy: 0.001)
        XCTAssertEqual(pqSignal(nits: 1000), 0.752, accuracy: 0.001)

        let pq = TransferFunction.pq
        assertVector(pq.toDisplayLinear(SIMD3(repeating: pqSignal(nits: 203))), SIMD3(1, 1, 1), accuracy: 1e-9)
        assertVector(
            pq.toDisplayLinear(SIMD3(repeating: pqSignal(nits: 1000))), SIMD3(repeating: 1000.0 / 203), accuracy: 1e-9)
        assertVector(pq.toDisplayLinear(SIMD3(1, 1, 1)), SIMD3(repeating: 10000.0 / 203), accuracy: 1e-9)
        XCTAssertEqual(TransferFunction.pqEOTF(1), 10000, accuracy: 1e-9)
        XCTAssertEqual(TransferFunction.pqEOTF(0), 0)
        // Out-of-domain signals clamp: negative → 0, above 1 → 10000 nits.
        XCTAssertEqual(TransferFunction.pqEOTF(-0.1), 0)
        XCTAssertEqual(TransferFunction.pqEOTF(1.2), 10000, accuracy: 1e-9)
        // Another reference white scales linearly.
        assertVector(
            pq.toDisplayLinear(SIMD3(repeating: pqSignal(nits: 100)), referenceWhite: 100), SIMD3(1, 1, 1),
            accuracy: 1e-9)
    }

    func testHLGInverseOETFAndOOTF() {
        XCTAssertEqual(TransferFunction.hlgInverseOETF(0.5), 1.0 / 12, accuracy: 1e-15)
        XCTAssertEqual(TransferFunction.hlgInverseOETF(1), 1, accuracy: 1e-7)  // a, b, c are rounded
        XCTAssertEqual(TransferFunction.hlgInverseOETF(-0.2), 0)
        for e in [0.0, 0.01, 1.0 / 12, 0.2, 0.5, 0.9] {
            XCTAssertEqual(TransferFunction.hlgInverseOETF(hlgSignal(scene: e)), e, accuracy: 1e-12, "E = \(e)")
        }
        XCTAssertEqual(TransferFunction.hlgSystemGamma(), 1.2, accuracy: 1e-15)

        let hlg = TransferFunction.hlg
        // Full white, R = G = B: 1000 nits → 1000 / 203.
        assertVector(hlg.toDisplayLinear(SIMD3(1, 1, 1)), SIMD3(repeating: 1000.0 / 203), accuracy: 1e-6)
        // A grey: Ys = E, so Fd = 1000 · E^1.2 (the OOTF's gamma 1.2).
        let e = 0.3
        let grey = hlg.toDisplayLinear(SIMD3(repeating: hlgSignal(scene: e)))
        assertVector(grey, SIMD3(repeating: 1000 * pow(e, 1.2) / 203), accuracy: 1e-9)
        // BT.2408: HLG reference white is the 75% signal, ≈ 203 nits on a 1000-nit display.
        XCTAssertEqual(hlg.toDisplayLinear(SIMD3(repeating: 0.75)).x, 1, accuracy: 0.01)
        // The OOTF mixes channels: pure red is scaled by its luminance 0.2627^0.2.
        let red = hlg.toDisplayLinear(SIMD3(1, 0, 0))
        assertVector(red, SIMD3(1000 * pow(0.2627, 0.2) / 203, 0, 0), accuracy: 1e-6)
        XCTAssertLessThan(red.x, 1000.0 / 203)
    }

    // MARK: - Reference converter, whole pipeline

    func testSDRKnownCodesThroughTheWholePipeline() throws {
        for code in Self.matrixCodes {
            for primaries in Self.d65Codes {
                let spec = try ConversionSpec(
                    matrixCode: code, transferCode: 1, primariesCode: primaries, range: .video)
                assertPixel(
                    ReferenceConverter.convert(y: 4096, cb: 32768, cr: 32768, params: spec), (0, 0, 0, 1),
                    accuracy: 1e-12, "black")
                assertPixel(
                    ReferenceConverter.convert(y: 60160, cb: 32768, cr: 32768, params: spec), (1, 1, 1, 1),
                    accuracy: 1e-9, "white")
                // 10-bit 75% grey: 64 + 0.75 · 876 = 721 → 721 << 6.
                let g = pow(0.75, 2.4)
                assertPixel(
                    ReferenceConverter.convert(y: 721 << 6, cb: 512 << 6, cr: 512 << 6, a: 32768, params: spec),
                    (g, g, g, 32768.0 / 65535), accuracy: 1e-9, "75% grey")
            }
        }
    }

    func testBelowBlackAndAboveWhiteSurvive() throws {
        let spec = try ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 1, range: .video)
        // Y = 0 is 4096 codes below black: Y' = −4096/56064, mirrored EOTF.
        let below = -pow(4096.0 / 56064, 2.4)
        assertPixel(
            ReferenceConverter.convert(y: 0, cb: 32768, cr: 32768, params: spec), (below, below, below, 1),
            accuracy: 1e-12)
        XCTAssertLessThan(below, 0)
        // Y = 65535: Y' = 61439/56064 > 1, and the curve continues.
        let above = pow(61439.0 / 56064, 2.4)
        assertPixel(
            ReferenceConverter.convert(y: 65535, cb: 32768, cr: 32768, params: spec), (above, above, above, 1),
            accuracy: 1e-9)
        XCTAssertGreaterThan(above, 1)
        // Alpha is straight and untouched by the colour.
        XCTAssertEqual(ReferenceConverter.convert(y: 4096, cb: 32768, cr: 32768, a: 0, params: spec).a, 0)
    }

    func testBT709RedLandsOnThePublishedP3Column() throws {
        // 100% red, video range, linear BT.709 (1,0,0) → first column of the
        // published BT.709 → P3-D65 matrix.
        let spec = try ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 1, range: .video)
        let c = encode(SIMD3(1, 0, 0), kr: 0.2126, kb: 0.0722, range: .video)
        let p = ReferenceConverter.convert(codes: c, params: spec)
        assertPixel(p, (0.8225, 0.0332, 0.0171, 1), accuracy: 1e-3)
    }

    func testPQAndHLGThroughTheWholePipeline() throws {
        let pq = try ConversionSpec(matrixCode: 9, transferCode: 16, primariesCode: 9, range: .video)
        let s203 = pqSignal(nits: 203)
        let c = encode(SIMD3(repeating: s203), kr: 0.2627, kb: 0.0593, range: .video)
        assertPixel(ReferenceConverter.convert(codes: c, params: pq), (1, 1, 1, 1), accuracy: 1e-9, "PQ 203 nits")
        // Below-black codes clamp to 0 for PQ.
        assertPixel(ReferenceConverter.convert(y: 0, cb: 32768, cr: 32768, params: pq), (0, 0, 0, 1), accuracy: 1e-12)

        let hlg = try ConversionSpec(matrixCode: 9, transferCode: 18, primariesCode: 9, range: .video)
        let w = encode(SIMD3(1, 1, 1), kr: 0.2627, kb: 0.0593, range: .video)
        let white = 1000.0 / 203
        assertPixel(
            ReferenceConverter.convert(codes: w, params: hlg), (white, white, white, 1), accuracy: 1e-6, "HLG peak")
        XCTAssertEqual(hlg.hlgLuminanceWeights, SIMD3(0.2627, 0.6780, 0.0593))
        // HLG in BT.709 primaries uses BT.709's luminance.
        let hlg709 = try ConversionSpec(matrixCode: 1, transferCode: 18, primariesCode: 1, range: .video)
        assertVector(hlg709.hlgLuminanceWeights, SIMD3(0.2126, 0.7152, 0.0722), accuracy: 1e-4)
    }

    func testUnsupportedCodesAreNamed() {
        XCTAssertThrowsError(try ConversionSpec(matrixCode: 1, transferCode: 17, primariesCode: 1, range: .video)) {
            error in
            XCTAssertEqual(error as? UnsupportedColorCode, UnsupportedColorCode(ColorCode(.transfer, 17)))
            XCTAssertTrue("\(error)".contains("transfer") && "\(error)".contains("17"), "\(error)")
        }
        XCTAssertThrowsError(try ConversionSpec(matrixCode: 2, transferCode: 1, primariesCode: 1, range: .video))
        XCTAssertThrowsError(try ConversionSpec(matrixCode: 1, transferCode: 1, primariesCode: 2, range: .video))
    }

    // MARK: - Push constants

    /// Reads the packed block back by its documented offsets.
    struct Unpacked {
        let bytes: [UInt8]
        func u32(_ offset: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
        }
        func f32(_ offset: Int) -> Double { Double(Float(bitPattern: u32(offset))) }
        func vec4(_ offset: Int) -> [Double] { (0..<4).map { f32(offset + 4 * $0) } }
    }

    func testPushConstantLayout() throws {
        let push = ConversionKernel.push
        XCTAssertLessThanOrEqual(push.size, 128)
        XCTAssertEqual(push.fields.first { $0.name == "width" }?.offset, 112, "the colour parameters take 112 bytes")
        let offsets = push.fields.prefix(10).map(\.offset)
        XCTAssertEqual(offsets, [0, 16, 32, 48, 64, 80, 96, 100, 104, 108])
        // The generated GLSL declares the same fields in the same order.
        let names = [
            "ycbcrColumn0", "ycbcrColumn1", "ycbcrColumn2", "gamutColumn0", "gamutColumn1", "gamutColumn2",
            "transfer", "referenceWhite", "hlgPeakLuminance", "hlgSystemGamma",
        ]
        let glsl = ConversionKernel.interface(.y416, pairs: true).glslPrelude
        let positions = try names.map { try XCTUnwrap(glsl.range(of: " \($0);")?.lowerBound, $0) }
        XCTAssertEqual(positions, positions.sorted())
        for (name, offset) in zip(names, offsets) {
            XCTAssertTrue(glsl.contains("\(name);") && glsl.contains(String(format: "offset %3d", offset)), name)
        }

        let params = try ConversionParameters(
            matrixCode: 9, transferCode: 18, primariesCode: 9, range: .video, referenceWhite: 203)
        let bytes = Array(
            push.bytes(ConversionKernel.values(params, width: 1, height: 1, layout: .y416, sourceBytesPerRow: 8))
                .prefix(112))
        XCTAssertEqual(bytes.count, 112)
        let u = Unpacked(bytes: bytes)
        XCTAssertEqual(u.u32(96), 4, "HLG")
        XCTAssertEqual(u.f32(100), 203)
        XCTAssertEqual(u.f32(104), 1000)
        XCTAssertEqual(u.f32(108), 1.2, accuracy: 1e-7)
        // HLG weights in the gamut columns' w.
        XCTAssertEqual([u.f32(60), u.f32(76), u.f32(92)], [0.2627, 0.6780, 0.0593].map { Double(Float($0)) })
        // Y column of the BT.2020 video-range matrix: 65535/56064 in every row; offsets in w.
        XCTAssertEqual(Array(u.vec4(0).prefix(3)), Array(repeating: Double(Float(65535.0 / 56064)), count: 3))
        // Black: offset + M · black = 0 (to Float rounding).
        let black = SIMD3<Double>(4096, 32768, 32768) / 65535
        let c0 = u.vec4(0)
        let c1 = u.vec4(16)
        let c2 = u.vec4(32)
        for row in 0..<3 {
            let v = c0[row] * black.x + c1[row] * black.y + c2[row] * black.z + [c0[3], c1[3], c2[3]][row]
            XCTAssertEqual(v, 0, accuracy: 1e-6, "row \(row)")
        }
        for (code, raw) in [(8, 0), (1, 1), (13, 2), (16, 3), (18, 4)] {
            XCTAssertEqual(
                Unpacked(
                    bytes: try ConversionParameters(matrixCode: 1, transferCode: code, primariesCode: 1, range: .video)
                        .bytes
                ).u32(96),
                UInt32(raw))
        }
    }

    /// What the shader does, computed from the packed bytes alone (Double
    /// arithmetic on the Float constants), against the reference converter.
    func testPackedParametersReproduceTheReferenceConverter() throws {
        let samples: [(UInt16, UInt16, UInt16, UInt16)] = [
            (4096, 32768, 32768, 65535), (60160, 32768, 32768, 0), (46144, 32768, 32768, 32768),
            (0, 0, 0, 100), (65535, 65535, 65535, 65535), (30000, 20000, 50000, 1234),
            (50000, 40000, 10000, 65535), (12000, 61440, 4096, 7), (40000, 4096, 61440, 65000),
        ]
        for matrix in Self.matrixCodes {
            for transfer in [8, 1, 13, 16, 18] {
                for primaries in [1, 5, 6, 9, 11, 12, 22] {
                    for range in [ColorRange.video, .full] {
                        let spec = try ConversionSpec(
                            matrixCode: matrix, transferCode: transfer, primariesCode: primaries, range: range)
                        let u = Unpacked(bytes: ConversionParameters(spec).bytes)
                        let y0 = u.vec4(0)
                        let y1 = u.vec4(16)
                        let y2 = u.vec4(32)
                        let g0 = u.vec4(48)
                        let g1 = u.vec4(64)
                        let g2 = u.vec4(80)
                        let kind = try XCTUnwrap(TransferFunction(rawValue: u.u32(96)))
                        for (y, cb, cr, a) in samples {
                            let n = SIMD3(Double(y), Double(cb), Double(cr)) / 65535
                            var rgb = SIMD3<Double>.zero
                            for row in 0..<3 {
                                rgb[row] = y0[row] * n.x + y1[row] * n.y + y2[row] * n.z + [y0[3], y1[3], y2[3]][row]
                            }
                            let linear = kind.toDisplayLinear(
                                rgb, referenceWhite: u.f32(100),
                                hlgLuminanceWeights: SIMD3(g0[3], g1[3], g2[3]),
                                hlgPeakLuminance: u.f32(104))
                            var p3 = SIMD3<Double>.zero
                            for row in 0..<3 {
                                p3[row] = g0[row] * linear.x + g1[row] * linear.y + g2[row] * linear.z
                            }
                            let ref = ReferenceConverter.convert(y: y, cb: cb, cr: cr, a: a, params: spec)
                            let label =
                                "matrix \(matrix) transfer \(transfer) primaries \(primaries) \(range) codes \((y, cb, cr))"
                            for (got, want) in zip([p3.x, p3.y, p3.z], [ref.r, ref.g, ref.b]) {
                                XCTAssertEqual(got, want, accuracy: 1e-6 + 2e-5 * abs(want), label)
                            }
                            XCTAssertEqual(Double(a) / 65535, ref.a)
                        }
                    }
                }
            }
        }
    }
}

extension ConversionParameters {
    /// The colour parameters as the conversion kernel's push block packs
    /// them (the geometry fields after offset 112 left at 0).
    var bytes: [UInt8] {
        ConversionKernel.push.bytes(
            ConversionKernel.values(self, width: 0, height: 0, layout: .y416, sourceBytesPerRow: 0))
    }
}
