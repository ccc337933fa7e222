/// `chroma-key:color=R,G,B[,tolerance=T,softness=S]`: keys out pixels whose
/// chroma is near the key colour's, measured in the clip's own Cb/Cr plane.
///
/// The key colour is the clip's R'G'B' (0…1, the non-linear values a colour
/// picker on the footage shows, e.g. 0,1,0 for a pure green screen). It is
/// turned into (Cb, Cr) with the frame's own matrix, as the encoder did:
///
///     Y' = Kr R' + Kg G' + Kb B',  Cb = (B' − Y') / (2(1 − Kb)),  Cr = (R' − Y') / (2(1 − Kr))
///
/// Each pixel's (Cb, Cr) comes straight from its decoded codes (range
/// de-quantised: (C − 32768) / 57344 in video range), so luma, the transfer
/// curve and earlier effects do not move the key. With d the distance between
/// the two in the Cb/Cr plane (where the nominal extremes are ±½):
///
///     keep = clamp((d − T) / S, 0, 1)       (S = 0: 0 up to T, 1 beyond)
///     alpha' = alpha · keep
///
/// Defaults T = 0.1, S = 0.1: a clean screen within 0.1 of the key (noise,
/// compression, uneven light) is fully transparent, anything 0.2 or more away
/// is untouched; a pure green screen's chroma lies about 0.6 from neutral
/// grey and skin. Only alpha changes (straight alpha; colour is not despilled).
public struct ChromaKey: Equatable, Sendable, CustomStringConvertible {
    public static let defaultTolerance = 0.1
    public static let defaultSoftness = 0.1

    /// The key colour as the clip's non-linear R'G'B', each 0…1.
    public let color: SIMD3<Double>
    public let tolerance: Double
    public let softness: Double

    public init(color: SIMD3<Double>, tolerance: Double = defaultTolerance, softness: Double = defaultSoftness) {
        self.color = color
        self.tolerance = tolerance
        self.softness = softness
    }

    /// The key colour's (Cb, Cr) under `matrix`.
    public func keyChroma(_ matrix: YCbCrToRGB) -> SIMD2<Double> {
        let luma = matrix.kr * color.x + matrix.kg * color.y + matrix.kb * color.z
        return SIMD2((color.z - luma) / (2 * (1 - matrix.kb)), (color.x - luma) / (2 * (1 - matrix.kr)))
    }

    public var description: String {
        "color=" + [color.x, color.y, color.z].map(EffectParser.format).joined(separator: ",")
            + ",tolerance=\(EffectParser.format(tolerance)),softness=\(EffectParser.format(softness))"
    }
}
