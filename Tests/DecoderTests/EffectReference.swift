import Foundation

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The effects in float64, written from their documented definitions (docs/colour.md,
/// "Effects") and deliberately not through `ColorMatrixEffects`,
/// `ChromaKey.keyChroma` or `ChromaKeyKernel`: the yardstick the GPU
/// passes are compared with. Constants are typed in from the standards.
enum EffectReference {
    /// Display P3 (D65) luminance: the Y row of its RGB→XYZ matrix, as
    /// published for SMPTE EG 432-1 primaries with a D65 white.
    static let p3Luminance = SIMD3<Double>(0.2289745641, 0.6917385218, 0.0792869141)

    static func luminance(_ rgb: SIMD3<Double>) -> Double {
        p3Luminance.x * rgb.x + p3Luminance.y * rgb.y + p3Luminance.z * rgb.z
    }

    /// (1 − a) · rgb + a · Y · tone, tone = (1, 0.7, 0.4) of luminance 1.
    static func sepia(_ rgb: SIMD3<Double>, amount a: Double) -> SIMD3<Double> {
        let raw = SIMD3<Double>(1, 0.7, 0.4)
        let tone = raw / luminance(raw)
        return (1 - a) * rgb + a * luminance(rgb) * tone
    }

    static func exposure(_ rgb: SIMD3<Double>, stops: Double) -> SIMD3<Double> { rgb * pow(2, stops) }

    static func saturation(_ rgb: SIMD3<Double>, _ s: Double) -> SIMD3<Double> {
        let y = luminance(rgb)
        return SIMD3(repeating: y) + s * (rgb - SIMD3(repeating: y))
    }

    /// The alpha factor of a pixel with chroma codes (cb, cr): the key colour
    /// encoded with Kr/Kb, the codes de-quantised for `range`, the distance
    /// ramped from the tolerance over the softness.
    static func keep(
        cb: Double, cr: Double, range: ColorRange, kr: Double, kb: Double,
        key: SIMD3<Double>, tolerance: Double, softness: Double
    ) -> Double {
        let luma = kr * key.x + (1 - kr - kb) * key.y + kb * key.z
        let keyCb = (key.z - luma) / (2 * (1 - kb))
        let keyCr = (key.x - luma) / (2 * (1 - kr))
        let excursion = range == .video ? 57344.0 : 65535.0
        let pixelCb = (cb - 32768) / excursion
        let pixelCr = (cr - 32768) / excursion
        let d = ((pixelCb - keyCb) * (pixelCb - keyCb) + (pixelCr - keyCr) * (pixelCr - keyCr)).squareRoot()
        guard softness > 0 else { return d > tolerance ? 1 : 0 }
        return min(max((d - tolerance) / softness, 0), 1)
    }

    /// SMPTE ST 2084, here from its constants.
    static func pqEncode(nits: Double) -> Double {
        let m1 = 2610.0 / 16384
        let m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096
        let c2 = 2413.0 / 4096 * 32
        let c3 = 2392.0 / 4096 * 32
        let y = pow(min(max(nits / 10000, 0), 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    static func pqDecodeNits(_ signal: Double) -> Double {
        let m1 = 2610.0 / 16384
        let m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096
        let c2 = 2413.0 / 4096 * 32
        let c3 = 2392.0 / 4096 * 32
        let p = pow(min(max(signal, 0), 1), 1 / m2)
        return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// The LUT effect: shaper, domain clamp, tetrahedral lookup, shaper back.
    static func lut(_ rgb: SIMD3<Double>, _ effect: LUTEffect) -> SIMD3<Double> {
        let lut = effect.lut
        var shaped = rgb
        if case .pq(let white) = effect.shaper {
            shaped = SIMD3(pqEncode(nits: rgb.x * white), pqEncode(nits: rgb.y * white), pqEncode(nits: rgb.z * white))
        }
        var coordinate = SIMD3<Double>()
        for c in 0..<3 {
            coordinate[c] = min(max((shaped[c] - lut.domainMin[c]) / (lut.domainMax[c] - lut.domainMin[c]), 0), 1)
        }
        let out = tetrahedral(lut, coordinate)
        guard case .pq(let white) = effect.shaper else { return out }
        return SIMD3(pqDecodeNits(out.x), pqDecodeNits(out.y), pqDecodeNits(out.z)) / white
    }

    /// Tetrahedral interpolation as a walk from the cell's low corner to its
    /// high corner, one axis at a time in order of decreasing fraction: each
    /// step adds that fraction times the change along the edge it crosses.
    static func tetrahedral(_ lut: CubeLUT, _ coordinate: SIMD3<Double>) -> SIMD3<Double> {
        let last = lut.size - 1
        var corner = [0, 0, 0]
        var fraction = [0.0, 0.0, 0.0]
        for c in 0..<3 {
            let position = coordinate[c] * Double(last)
            corner[c] = min(Int(position.rounded(.down)), last - 1)
            fraction[c] = position - Double(corner[c])
        }
        var value = lut.entry(r: corner[0], g: corner[1], b: corner[2])
        for axis in [0, 1, 2].sorted(by: { fraction[$0] > fraction[$1] }) {
            let before = lut.entry(r: corner[0], g: corner[1], b: corner[2])
            corner[axis] += 1
            value += fraction[axis] * (lut.entry(r: corner[0], g: corner[1], b: corner[2]) - before)
        }
        return value
    }
}
