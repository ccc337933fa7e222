/// A CIE 1931 xy chromaticity coordinate.
///
/// Why: colour standards (H.273, BT.709, BT.2020, SMPTE 431/432) publish
/// primaries and white points as xy pairs; every matrix here is derived from
/// these numbers rather than typed in, so they are the single source of truth.
public struct CIExy: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    /// The XYZ tristimulus of this chromaticity scaled to luminance Y = 1:
    /// (x/y, 1, (1 − x − y)/y).
    public var xyzUnitLuminance: SIMD3<Double> {
        SIMD3(x / y, 1, (1 - x - y) / y)
    }

    /// CIE standard illuminant D65 as H.273 and BT.709/BT.2020 write it.
    public static let d65 = CIExy(0.3127, 0.3290)
    /// The DCI theatre white of SMPTE RP 431-2 (greenish, ~6300 K).
    public static let dciWhite = CIExy(0.314, 0.351)
}
