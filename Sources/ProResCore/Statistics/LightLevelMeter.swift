/// Light level of PQ and HLG content in nits, per frame: the brightest pixel
/// (MaxCLL's measure) and the frame average (MaxFALL's), as CTA-861.3 defines
/// them: a pixel's light is the largest of its linear R, G, B in the
/// content's own primaries.
///
/// Why estimated on a grid: the maths (de-quantisation, the Y'CbCr matrix,
/// the ST 2084 EOTF or the HLG inverse OETF + OOTF for a 1000-nit display,
/// from `Color/`) costs three `pow` per pixel; every `gridStep`-th pixel of
/// every `gridStep`-th row, starting at (0, 0), is 1/16 of the work and close
/// enough to inform. A lone bright pixel between grid points is missed.
/// 4:2:2 chroma is taken from sample x/2 (as y416 packing repeats it).
/// The stream's resolved tags are used for every frame. `FrameStatisticsPass`
/// (ProResGPU) computes the same in float32, within 1e-4 relative.
public struct LightLevelMeter: Sendable {
    public static let gridStep = 4

    /// The resolved conversion, reference white 1 nit (the GPU pass pushes
    /// its matrix, quantisation and HLG parameters).
    public let spec: ConversionSpec
    public let bitDepth: Int

    /// Nil unless the transfer is PQ or HLG; throws `UnsupportedColorCode`
    /// when the matrix or primaries have no maths here.
    public init?(tags: ColorTags, bitDepth: Int) throws {
        guard let transfer = TransferFunction(tags.transfer.value), transfer.usesReferenceWhite else { return nil }
        // Reference white 1 nit: PQ and HLG then come out in nits.
        spec = try ConversionSpec(tags: tags, referenceWhite: 1)
        self.bitDepth = bitDepth
    }

    /// The light of one pixel from its native (LSB-aligned) codes, in nits.
    public func nits(y: UInt16, cb: UInt16, cr: UInt16) -> Double {
        let shift = 16 - bitDepth
        let n = CodeQuantisation(spec.range).normalise(
            y: Double(Int(y) << shift), cb: Double(Int(cb) << shift),
            cr: Double(Int(cr) << shift))
        let nonLinear = spec.ycbcr.matrix.apply(n)
        let linear = spec.transfer.toDisplayLinear(
            nonLinear, referenceWhite: 1,
            hlgLuminanceWeights: spec.hlgLuminanceWeights,
            hlgPeakLuminance: spec.hlgPeakLuminance)
        return max(linear.x, linear.y, linear.z, 0)
    }

    /// The brightest grid pixel and the grid average of one frame, in nits.
    public func measure(_ frame: NativeFrameView) -> (peak: Double, average: Double) {
        let halfChroma = frame.format.chroma == .c422
        var peak = 0.0
        var total = 0.0
        var count = 0
        for y in stride(from: 0, to: frame.height, by: Self.gridStep) {
            let luma = frame.row(plane: 0, y: y)
            let cb = frame.row(plane: 1, y: y)
            let cr = frame.row(plane: 2, y: y)
            for x in stride(from: 0, to: frame.width, by: Self.gridStep) {
                let c = halfChroma ? x / 2 : x
                let light = nits(y: luma[x], cb: cb[c], cr: cr[c])
                peak = max(peak, light)
                total += light
                count += 1
            }
        }
        return (peak, count > 0 ? total / Double(count) : 0)
    }
}
