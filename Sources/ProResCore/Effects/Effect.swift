/// One `--effect` pass, run on the GPU on the converted half-float extended
/// linear Display P3 frame, in the order given. None clamps: values above 1.0
/// (HDR) and below 0 (out of gamut) go through every effect except where its
/// definition says otherwise (the LUT's domain, the key's alpha).
public enum Effect: Equatable, Sendable, CustomStringConvertible {
    /// Mixes each pixel towards a sepia tone of the same luminance
    /// (`ColorMatrixEffects.sepia`); amount 0…1.
    case sepia(amount: Double)
    /// Multiplies R, G, B by 2^stops.
    case exposure(stops: Double)
    /// Scales each pixel's distance from its own luminance by `factor`.
    case saturation(factor: Double)
    /// Multiplies alpha by how far the source's chroma lies from the key's.
    case chromaKey(ChromaKey)
    /// A 3D LUT from a .cube file behind a documented input shaper.
    case lut(LUTEffect)

    public var name: String {
        switch self {
        case .sepia: return "sepia"
        case .exposure: return "exposure"
        case .saturation: return "saturation"
        case .chromaKey: return "chroma-key"
        case .lut: return "lut"
        }
    }

    /// The effect with every default filled in, in `--effect` syntax.
    public var description: String {
        switch self {
        case .sepia(let amount): return "sepia:\(EffectParser.format(amount))"
        case .exposure(let stops): return "exposure:\(EffectParser.format(stops))"
        case .saturation(let factor): return "saturation:\(EffectParser.format(factor))"
        case .chromaKey(let key): return "chroma-key:\(key)"
        case .lut(let lut): return "lut:\(lut)"
        }
    }
}
