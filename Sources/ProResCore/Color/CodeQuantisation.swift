/// How 16-bit MSB-aligned Y'CbCr code values map to normalised signals.
///
/// Why: Apple's y416/v216 layouts (and our packer) store every sample
/// MSB-aligned in 16 bits, so 10-bit and 12-bit video-range codes land on the
/// same 16-bit values (10-bit 64..940 << 6 = 12-bit 256..3760 << 4 =
/// 4096..60160) and one set of constants serves every bit depth.
///
///     Y'      = (Y  − yBlack)  / yExcursion
///     Cb, Cr  = (C  − cCentre) / cExcursion
public struct CodeQuantisation: Hashable, Sendable {
    /// Code of Y' = 0.
    public let yBlack: Double
    /// Code span of Y' from 0 to 1.
    public let yExcursion: Double
    /// Code of Cb = Cr = 0.
    public let cCentre: Double
    /// Code span of Cb or Cr from −½ to +½.
    public let cExcursion: Double

    public init(yBlack: Double, yExcursion: Double, cCentre: Double, cExcursion: Double) {
        self.yBlack = yBlack
        self.yExcursion = yExcursion
        self.cCentre = cCentre
        self.cExcursion = cExcursion
    }

    /// Video ("limited", "narrow") range, BT.601/709/2020: Y' 16..235 and
    /// C 16..240 at 8 bits, scaled by 2^(n−8); here n = 16 with MSB alignment:
    /// Y' 4096..60160 (span 876·64 = 56064), C 4096..61440 centred on 32768
    /// (span 896·64 = 57344).
    public static let video = CodeQuantisation(yBlack: 4096, yExcursion: 56064, cCentre: 32768, cExcursion: 57344)

    /// Full range: Y' = Y / 65535, C = (C − 32768) / 65535.
    public static let full = CodeQuantisation(yBlack: 0, yExcursion: 65535, cCentre: 32768, cExcursion: 65535)

    public init(_ range: ColorRange) {
        switch range {
        case .video: self = .video
        case .full: self = .full
        }
    }

    /// Raw codes (as Doubles, so out-of-range and fractional values are allowed)
    /// → (Y', Cb, Cr) with Y' nominally in [0, 1] and Cb, Cr in [−½, ½].
    public func normalise(y: Double, cb: Double, cr: Double) -> SIMD3<Double> {
        SIMD3((y - yBlack) / yExcursion, (cb - cCentre) / cExcursion, (cr - cCentre) / cExcursion)
    }
}
