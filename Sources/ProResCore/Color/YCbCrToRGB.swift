/// Y'CbCr → R'G'B' for the non-constant-luminance matrices of H.273, built
/// from the luma coefficients Kr and Kb.
///
/// Why: the shader must turn decoded 16-bit Y'CbCr codes into non-linear
/// R'G'B' with one matrix multiply and one add. The matrix is derived here (in
/// Double, from Kr/Kb as BT.601/709/2020 define Y' = Kr R' + Kg G' + Kb B',
/// Cb = (B' − Y') / (2(1 − Kb)), Cr = (R' − Y') / (2(1 − Kr))), and folded
/// together with the range quantisation into an affine map on the codes.
///
/// Convention for the affine map (what `ConversionParameters` packs):
///
///     R'G'B' = M · n + o,   n = (Y, Cb, Cr) / 65535
///
/// where Y, Cb, Cr are the raw 16-bit MSB-aligned codes, so n is exactly what
/// a shader gets from a 16-bit UNORM texel or `unpackUnorm2x16`.
public struct YCbCrToRGB: Hashable, Sendable {
    /// Luma weight of red.
    public let kr: Double
    /// Luma weight of blue.
    public let kb: Double
    /// Luma weight of green: 1 − Kr − Kb.
    public var kg: Double { 1 - kr - kb }

    public init(kr: Double, kb: Double) {
        self.kr = kr
        self.kb = kb
    }

    /// H.273 Table 4 matrix codes: 1 BT.709, 5 and 6 BT.601 (BT.470BG /
    /// SMPTE 170M), 9 BT.2020 non-constant luminance. Nil for anything else
    /// (0 identity/GBR, 10 BT.2020 CL, 14 ICtCp, ... or unspecified): the
    /// caller applies its documented fallback.
    public init?(matrixCode: Int) {
        switch matrixCode {
        case 1: self = .bt709
        case 5, 6: self = .bt601
        case 9: self = .bt2020
        default: return nil
        }
    }

    public init?(_ tag: ColorCode) {
        guard tag.kind == .matrix else { return nil }
        self.init(matrixCode: tag.code)
    }

    public static let bt709 = YCbCrToRGB(kr: 0.2126, kb: 0.0722)
    public static let bt601 = YCbCrToRGB(kr: 0.299, kb: 0.114)
    public static let bt2020 = YCbCrToRGB(kr: 0.2627, kb: 0.0593)

    /// (Y', Cb, Cr) → (R', G', B'), the inverse of the encoding equations:
    ///
    ///     R' = Y' + 2(1 − Kr) Cr
    ///     G' = Y' − 2 Kb (1 − Kb) / Kg · Cb − 2 Kr (1 − Kr) / Kg · Cr
    ///     B' = Y' + 2(1 − Kb) Cb
    public var matrix: Matrix3 {
        Matrix3(rows: [
            [1, 0, 2 * (1 - kr)],
            [1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg],
            [1, 2 * (1 - kb), 0],
        ])
    }

    /// The affine map on normalised codes n = code / 65535:
    /// R'G'B' = matrix · n + offset. With q the range quantisation,
    /// (Y', Cb, Cr) = D · n + b where D = 65535 · diag(1/yExc, 1/cExc, 1/cExc)
    /// and b = −(yBlack/yExc, cCentre/cExc, cCentre/cExc); hence
    /// matrix = K · D and offset = K · b.
    public func affine(range: ColorRange) -> (matrix: Matrix3, offset: SIMD3<Double>) {
        let q = CodeQuantisation(range)
        let d = Matrix3(diagonal: SIMD3(65535 / q.yExcursion, 65535 / q.cExcursion, 65535 / q.cExcursion))
        let b = SIMD3(-q.yBlack / q.yExcursion, -q.cCentre / q.cExcursion, -q.cCentre / q.cExcursion)
        let k = matrix
        return (k * d, k.apply(b))
    }

    /// R'G'B' for raw 16-bit codes (Doubles, so fractional and out-of-range
    /// codes are allowed), through the affine map.
    public func rgbPrime(y: Double, cb: Double, cr: Double, range: ColorRange) -> SIMD3<Double> {
        let (m, o) = affine(range: range)
        return m.apply(SIMD3(y, cb, cr) / 65535) + o
    }
}
