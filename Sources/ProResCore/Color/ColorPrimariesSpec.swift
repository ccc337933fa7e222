/// The colour primaries an H.273 `colour_primaries` code stands for, and the
/// derived matrix into our output space, linear Display P3 (D65).
///
/// Why: the decoder's output is extended linear Display P3 whatever the source
/// was tagged with; the gamut step is one 3×3 matrix, derived here in Double
/// from the published chromaticities (never typed in) so it can be checked
/// against published values in tests and handed to the shader as Floats.
public struct ColorPrimariesSpec: Hashable, Sendable {
    /// The H.273 code point.
    public let code: Int
    /// Short human-readable name of the standard.
    public let name: String
    public let chromaticities: Chromaticities

    public init(code: Int, name: String, chromaticities: Chromaticities) {
        self.code = code
        self.name = name
        self.chromaticities = chromaticities
    }

    /// The spec for an H.273 primaries code, or nil for codes this module does
    /// not know (0 reserved, 2 unspecified, 4 BT.470M, 8 film, 10 XYZ, ...):
    /// the caller applies its documented fallback.
    ///
    /// Values from ITU-T H.273 Table 2 (and the standards it cites).
    public init?(code: Int) {
        switch code {
        case 1: self = .bt709
        case 5: self = .bt470bg
        case 6: self = .smpte170m
        case 7: self = Self(code: 7, name: "SMPTE 240M", chromaticities: Self.smpte170m.chromaticities)
        case 9: self = .bt2020
        case 11: self = .dciP3
        case 12: self = .displayP3
        case 22: self = .ebu3213
        default: return nil
        }
    }

    /// The same, from a tag. Nil when the tag is not a primaries code or is unknown.
    public init?(_ tag: ColorCode) {
        guard tag.kind == .primaries else { return nil }
        self.init(code: tag.code)
    }

    private static func make(
        _ code: Int, _ name: String,
        _ r: (Double, Double), _ g: (Double, Double), _ b: (Double, Double),
        white: CIExy = .d65
    ) -> ColorPrimariesSpec {
        ColorPrimariesSpec(
            code: code, name: name,
            chromaticities: Chromaticities(
                red: CIExy(r.0, r.1), green: CIExy(g.0, g.1), blue: CIExy(b.0, b.1), white: white))
    }

    /// 1: ITU-R BT.709 (also sRGB).
    public static let bt709 = make(1, "BT.709", (0.640, 0.330), (0.300, 0.600), (0.150, 0.060))
    /// 5: ITU-R BT.470 System B/G, BT.601 625-line (EBU Tech 3213).
    public static let bt470bg = make(5, "BT.470BG", (0.640, 0.330), (0.290, 0.600), (0.150, 0.060))
    /// 6: SMPTE 170M, BT.601 525-line ("SMPTE C"). Code 7 (SMPTE 240M) is identical.
    public static let smpte170m = make(6, "SMPTE 170M", (0.630, 0.340), (0.310, 0.595), (0.155, 0.070))
    /// 9: ITU-R BT.2020 / BT.2100.
    public static let bt2020 = make(9, "BT.2020", (0.708, 0.292), (0.170, 0.797), (0.131, 0.046))
    /// 11: SMPTE RP 431-2, DCI-P3 with the DCI theatre white (0.314, 0.351).
    public static let dciP3 = make(
        11, "DCI-P3 (SMPTE 431)", (0.680, 0.320), (0.265, 0.690), (0.150, 0.060),
        white: .dciWhite)
    /// 12: SMPTE EG 432-1, P3 primaries with D65 white: Display P3, our output space.
    public static let displayP3 = make(12, "P3-D65 (SMPTE 432)", (0.680, 0.320), (0.265, 0.690), (0.150, 0.060))
    /// 22: EBU Tech 3213-E.
    public static let ebu3213 = make(22, "EBU 3213-E", (0.630, 0.340), (0.295, 0.605), (0.155, 0.077))

    /// Linear RGB → XYZ (white at Y = 1), derived from the chromaticities.
    public var rgbToXYZ: Matrix3 { chromaticities.rgbToXYZ }

    /// Linear RGB of this space → linear Display P3 (D65):
    /// XYZ→P3 · [Bradford(white → D65) when the whites differ] · RGB→XYZ.
    /// (1,1,1) maps to (1,1,1): the source white is shown as D65 white.
    public var rgbToP3D65: Matrix3 {
        let target = ColorPrimariesSpec.displayP3.chromaticities
        var toXYZ = rgbToXYZ
        if chromaticities.white != target.white {
            toXYZ = ChromaticAdaptation.bradford(from: chromaticities.white, to: target.white) * toXYZ
        }
        return target.xyzToRGB * toXYZ
    }

    /// Linear RGB in `primaries` → linear Display P3 (D65). Identity (to
    /// rounding, ~1e-16) for code 12.
    public static func rgbToP3D65(primaries: ColorPrimariesSpec) -> Matrix3 {
        primaries.rgbToP3D65
    }

    /// The same for an H.273 primaries code; nil when the code is unknown.
    public static func rgbToP3D65(primaries code: Int) -> Matrix3? {
        ColorPrimariesSpec(code: code)?.rgbToP3D65
    }
}
