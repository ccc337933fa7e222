/// The colour parameters of the Y'CbCr → linear Display P3 compute shader.
///
/// Why: following libplacebo, all colour maths happens on the CPU in Double
/// (`ConversionSpec`); the shader only receives the results as Floats and does
///
///     n      = (Y, Cb, Cr) / 65535          // 16-bit UNORM / unpackUnorm2x16
///     rgb'   = M · n + o                    // Y'CbCr → R'G'B'
///     rgb    = EOTF[transfer](rgb')         // / referenceWhite for PQ, HLG
///     p3     = G · rgb                      // source primaries → P3-D65
///     alpha  = A / 65535                    // straight, untouched
///
/// with no clamping anywhere except the PQ/HLG signal domain [0, 1].
///
/// The shader's push block (`ConversionKernel` in ProResGPU) takes these
/// fields in order; the matrices are column-major like GLSL's:
/// `mat3(c0.xyz, c1.xyz, c2.xyz)`, the offset and the HLG weights in w.
public struct ConversionParameters: Equatable, Sendable {
    public var ycbcrColumn0: SIMD4<Float>
    public var ycbcrColumn1: SIMD4<Float>
    public var ycbcrColumn2: SIMD4<Float>
    public var gamutColumn0: SIMD4<Float>
    public var gamutColumn1: SIMD4<Float>
    public var gamutColumn2: SIMD4<Float>
    public var transfer: UInt32
    public var referenceWhite: Float
    public var hlgPeakLuminance: Float
    public var hlgSystemGamma: Float

    /// Packs a resolved conversion (Double → Float, rounded to nearest).
    public init(_ spec: ConversionSpec) {
        let (m, o) = spec.ycbcr.affine(range: spec.range)
        let g = spec.rgbToP3D65
        let w = spec.hlgLuminanceWeights
        func vec4(_ c: SIMD3<Double>, _ last: Double) -> SIMD4<Float> {
            SIMD4(Float(c.x), Float(c.y), Float(c.z), Float(last))
        }
        ycbcrColumn0 = vec4(m.column(0), o.x)
        ycbcrColumn1 = vec4(m.column(1), o.y)
        ycbcrColumn2 = vec4(m.column(2), o.z)
        gamutColumn0 = vec4(g.column(0), w.x)
        gamutColumn1 = vec4(g.column(1), w.y)
        gamutColumn2 = vec4(g.column(2), w.z)
        transfer = spec.transfer.rawValue
        referenceWhite = Float(spec.referenceWhite)
        hlgPeakLuminance = Float(spec.hlgPeakLuminance)
        hlgSystemGamma = Float(TransferFunction.hlgSystemGamma(peakLuminance: spec.hlgPeakLuminance))
    }

    /// From H.273 codes; throws `UnsupportedColorCode` for codes without maths.
    public init(
        matrixCode: Int, transferCode: Int, primariesCode: Int, range: ColorRange,
        referenceWhite: Double = TransferFunction.defaultReferenceWhite
    ) throws {
        self.init(
            try ConversionSpec(
                matrixCode: matrixCode, transferCode: transferCode,
                primariesCode: primariesCode, range: range, referenceWhite: referenceWhite))
    }
}
