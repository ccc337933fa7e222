/// A resolved, full-precision description of one Y'CbCr → linear Display P3
/// conversion: what the H.273 codes, the range and the reference white mean.
///
/// Why: the same description feeds two consumers that must agree: the Float
/// push constants for the shader (`ConversionParameters`) and the Double
/// reference pipeline the GPU output is compared with (`ReferenceConverter`).
/// Resolving the codes once, here, with a clear error for anything unknown,
/// keeps the two from drifting apart.
public struct ConversionSpec: Hashable, Sendable {
    public let ycbcr: YCbCrToRGB
    public let range: ColorRange
    public let transfer: TransferFunction
    public let primaries: ColorPrimariesSpec
    /// Nits that map to 1.0 for PQ and HLG (BT.2408: 203). Unused for SDR.
    public let referenceWhite: Double

    public init(
        ycbcr: YCbCrToRGB, range: ColorRange, transfer: TransferFunction,
        primaries: ColorPrimariesSpec, referenceWhite: Double = TransferFunction.defaultReferenceWhite
    ) {
        precondition(referenceWhite > 0 && referenceWhite.isFinite, "reference white must be a positive number of nits")
        self.ycbcr = ycbcr
        self.range = range
        self.transfer = transfer
        self.primaries = primaries
        self.referenceWhite = referenceWhite
    }

    /// From H.273 codes. Throws `UnsupportedColorCode` naming the first code
    /// (matrix, transfer, primaries) that this module has no maths for; the
    /// caller decides the fallback.
    public init(
        matrixCode: Int, transferCode: Int, primariesCode: Int, range: ColorRange,
        referenceWhite: Double = TransferFunction.defaultReferenceWhite
    ) throws {
        guard let ycbcr = YCbCrToRGB(matrixCode: matrixCode) else {
            throw UnsupportedColorCode(ColorCode(.matrix, matrixCode))
        }
        guard let transfer = TransferFunction(code: transferCode) else {
            throw UnsupportedColorCode(ColorCode(.transfer, transferCode))
        }
        guard let primaries = ColorPrimariesSpec(code: primariesCode) else {
            throw UnsupportedColorCode(ColorCode(.primaries, primariesCode))
        }
        self.init(ycbcr: ycbcr, range: range, transfer: transfer, primaries: primaries, referenceWhite: referenceWhite)
    }

    /// From resolved stream tags.
    public init(tags: ColorTags, referenceWhite: Double = TransferFunction.defaultReferenceWhite) throws {
        try self.init(
            matrixCode: tags.matrix.value.code, transferCode: tags.transfer.value.code,
            primariesCode: tags.primaries.value.code, range: tags.range.value,
            referenceWhite: referenceWhite)
    }

    /// Linear source RGB → linear Display P3 (D65).
    public var rgbToP3D65: Matrix3 { primaries.rgbToP3D65 }

    /// Weights of the luminance Ys in the HLG OOTF. BT.2100 defines HLG in
    /// BT.2020 primaries and gives 0.2627, 0.6780, 0.0593; for HLG carried in
    /// other primaries we use that space's own luminance row (the middle row
    /// of its RGB→XYZ), so Ys is still the luminance of the colour shown.
    public var hlgLuminanceWeights: SIMD3<Double> {
        primaries.code == 9 ? TransferFunction.bt2100LuminanceWeights : primaries.chromaticities.luminanceWeights
    }

    /// Nominal peak of the HLG reference display (nits).
    public var hlgPeakLuminance: Double { TransferFunction.hlgNominalPeak }
}
