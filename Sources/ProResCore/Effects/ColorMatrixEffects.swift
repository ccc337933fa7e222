import Foundation

/// Sepia, exposure and saturation are linear maps of linear light, so each is
/// one 3×3 matrix on extended linear Display P3, built here in Double and
/// applied by `Shaders/effect_matrix.comp`. Being linear, they scale HDR
/// highlights and out-of-gamut negatives like any other value: nothing is
/// clamped and nothing is bent towards SDR.
///
/// Luminance Y = w · rgb uses Display P3's own weights w (the middle row of its
/// RGB→XYZ matrix, ≈ 0.2290, 0.6917, 0.0793), so "same luminance" means the
/// same light on a P3 display.
public enum ColorMatrixEffects {
    /// Display P3 (D65) luminance weights.
    public static let luminanceWeights = ColorPrimariesSpec.displayP3.chromaticities.luminanceWeights

    /// The sepia tone: linear Display P3 (1, 0.7, 0.4), a warm brown, scaled
    /// so that its luminance is 1. A pixel of luminance Y becomes Y · tone.
    public static let sepiaTone: SIMD3<Double> = {
        let tone = SIMD3<Double>(1, 0.7, 0.4)
        return tone / dot(luminanceWeights, tone)
    }()

    /// rgb' = (1 − a) · rgb + a · (w · rgb) · tone: a = 1 is a full sepia
    /// print, a = 0 leaves the picture alone. Luminance is kept at every amount.
    public static func sepia(amount a: Double) -> Matrix3 {
        let toned = outer(sepiaTone, luminanceWeights)
        return Matrix3.identity.scaled(1 - a).adding(toned.scaled(a))
    }

    /// rgb' = 2^stops · rgb.
    public static func exposure(stops: Double) -> Matrix3 {
        let gain = pow(2, stops)
        return Matrix3(diagonal: SIMD3(gain, gain, gain))
    }

    /// rgb' = Y + s · (rgb − Y) with Y = w · rgb: 0 gives grey of the same
    /// luminance, 1 changes nothing, above 1 saturates (and may leave the gamut).
    public static func saturation(_ s: Double) -> Matrix3 {
        let grey = outer(SIMD3(1, 1, 1), luminanceWeights)
        return Matrix3.identity.scaled(s).adding(grey.scaled(1 - s))
    }

    /// The matrix of a colour-matrix effect; nil for the others.
    public static func matrix(for effect: Effect) -> Matrix3? {
        switch effect {
        case .sepia(let amount): return sepia(amount: amount)
        case .exposure(let stops): return exposure(stops: stops)
        case .saturation(let factor): return saturation(factor)
        case .chromaKey, .lut: return nil
        }
    }

    /// u · vᵀ.
    private static func outer(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> Matrix3 {
        Matrix3(u.x * v, u.y * v, u.z * v)
    }

    private static func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }
}

extension Matrix3 {
    fileprivate func scaled(_ k: Double) -> Matrix3 { Matrix3(row0 * k, row1 * k, row2 * k) }
    fileprivate func adding(_ other: Matrix3) -> Matrix3 {
        Matrix3(row0 + other.row0, row1 + other.row1, row2 + other.row2)
    }
}
