/// The push constants of the Y'CbCr → linear Display P3 compute shader,
/// declared once here and mirrored field for field in GLSL
/// (`ConversionParameters.glslDeclaration`).
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
/// Byte layout (std430, which Vulkan uses for push-constant blocks; all
/// scalars 4 bytes in host byte order; 112 bytes in all, leaving 16 of the
/// guaranteed 128 for the dispatch's own fields from offset 112):
///
///     offset  size  field
///       0     16    ycbcrColumn0  vec4  xyz = M column 0 (Y weights), w = o.r
///      16     16    ycbcrColumn1  vec4  xyz = M column 1 (Cb weights), w = o.g
///      32     16    ycbcrColumn2  vec4  xyz = M column 2 (Cr weights), w = o.b
///      48     16    gamutColumn0  vec4  xyz = G column 0, w = HLG weight of R
///      64     16    gamutColumn1  vec4  xyz = G column 1, w = HLG weight of G
///      80     16    gamutColumn2  vec4  xyz = G column 2, w = HLG weight of B
///      96      4    transfer      uint  0 linear, 1 bt1886, 2 srgb, 3 pq, 4 hlg
///     100      4    referenceWhite   float  nits mapped to 1.0 (PQ, HLG)
///     104      4    hlgPeakLuminance float  Lw of the HLG OOTF (1000)
///     108      4    hlgSystemGamma   float  γ of the HLG OOTF (1.2)
///
/// The matrices are column-major like GLSL's: `mat3(c0.xyz, c1.xyz, c2.xyz)`.
/// The offset and the HLG weights ride in the w slots that std430 would pad
/// anyway (a std430 mat3 is three 16-byte columns).
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

    /// Byte offsets of the fields in the push-constant block.
    public enum Offset {
        public static let ycbcrColumn0 = 0
        public static let ycbcrColumn1 = 16
        public static let ycbcrColumn2 = 32
        public static let gamutColumn0 = 48
        public static let gamutColumn1 = 64
        public static let gamutColumn2 = 80
        public static let transfer = 96
        public static let referenceWhite = 100
        public static let hlgPeakLuminance = 104
        public static let hlgSystemGamma = 108
    }

    /// Size of the block in bytes (≤ 128, Vulkan's guaranteed minimum
    /// `maxPushConstantsSize`).
    public static let byteCount = 112

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
    public init(matrixCode: Int, transferCode: Int, primariesCode: Int, range: ColorRange,
                referenceWhite: Double = TransferFunction.defaultReferenceWhite) throws {
        self.init(try ConversionSpec(matrixCode: matrixCode, transferCode: transferCode,
                                     primariesCode: primariesCode, range: range, referenceWhite: referenceWhite))
    }

    /// The block as bytes, laid out as documented above (host byte order).
    /// Swift does not promise a struct's memory layout, so the bytes are
    /// written field by field at their documented offsets.
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            Swift.withUnsafeBytes(of: value) { raw in
                for (i, byte) in raw.enumerated() { out[offset + i] = byte }
            }
        }
        func put(_ v: SIMD4<Float>, at offset: Int) {
            for i in 0..<4 { put(v[i].bitPattern, at: offset + 4 * i) }
        }
        put(ycbcrColumn0, at: Offset.ycbcrColumn0)
        put(ycbcrColumn1, at: Offset.ycbcrColumn1)
        put(ycbcrColumn2, at: Offset.ycbcrColumn2)
        put(gamutColumn0, at: Offset.gamutColumn0)
        put(gamutColumn1, at: Offset.gamutColumn1)
        put(gamutColumn2, at: Offset.gamutColumn2)
        put(transfer, at: Offset.transfer)
        put(referenceWhite.bitPattern, at: Offset.referenceWhite)
        put(hlgPeakLuminance.bitPattern, at: Offset.hlgPeakLuminance)
        put(hlgSystemGamma.bitPattern, at: Offset.hlgSystemGamma)
        return out
    }

    /// Calls `body` with the packed bytes (for `vkCmdPushConstants`).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    /// The GLSL mirror of this block, to paste into (or check against) the shader.
    public static let glslDeclaration = """
        layout(push_constant, std430) uniform ConversionParameters {
            vec4 ycbcrColumn0;      // offset   0: xyz = M column 0, w = o.r
            vec4 ycbcrColumn1;      // offset  16: xyz = M column 1, w = o.g
            vec4 ycbcrColumn2;      // offset  32: xyz = M column 2, w = o.b
            vec4 gamutColumn0;      // offset  48: xyz = G column 0, w = HLG weight R
            vec4 gamutColumn1;      // offset  64: xyz = G column 1, w = HLG weight G
            vec4 gamutColumn2;      // offset  80: xyz = G column 2, w = HLG weight B
            uint transfer;          // offset  96: 0 linear, 1 bt1886, 2 srgb, 3 pq, 4 hlg
            float referenceWhite;   // offset 100: nits that map to 1.0 (PQ, HLG)
            float hlgPeakLuminance; // offset 104: HLG OOTF Lw (nits)
            float hlgSystemGamma;   // offset 108: HLG OOTF gamma
        } pc;
        """
}
