/// The xy chromaticities of an RGB space's three primaries and its white.
///
/// Why: an RGB colour space is fully described (for linear-light purposes) by
/// these four points; the RGB→XYZ matrix is derived from them with the
/// standard normalised primary matrix (NPM) construction of SMPTE RP 177, so
/// no matrix is ever typed in by hand.
public struct Chromaticities: Hashable, Sendable {
    public var red: CIExy
    public var green: CIExy
    public var blue: CIExy
    public var white: CIExy

    public init(red: CIExy, green: CIExy, blue: CIExy, white: CIExy) {
        self.red = red
        self.green = green
        self.blue = blue
        self.white = white
    }

    /// The normalised primary matrix: linear RGB (white = (1,1,1)) → CIE XYZ
    /// with the white point at Y = 1.
    ///
    /// P has the XYZ (at Y = 1) of each primary as its columns; the scale
    /// S = P⁻¹ · W makes (1,1,1) land on the white W; NPM = P · diag(S).
    /// Its middle row is therefore the luminance weights (Kr, Kg, Kb).
    public var rgbToXYZ: Matrix3 {
        let p = Matrix3(columns: red.xyzUnitLuminance, green.xyzUnitLuminance, blue.xyzUnitLuminance)
        guard let pInverse = p.inverse else {
            preconditionFailure("degenerate primaries: \(self)")
        }
        let s = pInverse.apply(white.xyzUnitLuminance)
        return p * Matrix3(diagonal: s)
    }

    /// CIE XYZ → linear RGB of this space.
    public var xyzToRGB: Matrix3 {
        guard let m = rgbToXYZ.inverse else { preconditionFailure("degenerate primaries: \(self)") }
        return m
    }

    /// The middle row of `rgbToXYZ`: the luminance of each primary at full drive.
    public var luminanceWeights: SIMD3<Double> { rgbToXYZ.row1 }
}
