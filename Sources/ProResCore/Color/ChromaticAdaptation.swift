/// Bradford chromatic adaptation between two white points.
///
/// Why: DCI-P3 (SMPTE RP 431-2) is defined with a greenish theatre white,
/// while our output, Display P3, uses D65. Converting between spaces with
/// different whites needs a von Kries-type adaptation so that the source white
/// is shown as the display's white; Bradford (Lam 1985, as used by ICC
/// profiles and ColorSync) is the customary choice. The cone-response matrix
/// below is the published Bradford definition (a constant, not derived).
public enum ChromaticAdaptation {
    /// The Bradford "sharpened cone" matrix: XYZ → ρ γ β.
    public static let bradfordCone = Matrix3(rows: [
        [0.8951, 0.2664, -0.1614],
        [-0.7502, 1.7135, 0.0367],
        [0.0389, -0.0685, 1.0296],
    ])

    /// XYZ → XYZ adaptation taking `source` white to `destination` white:
    /// M_A⁻¹ · diag(cone(dst) / cone(src)) · M_A.
    public static func bradford(fromWhite source: SIMD3<Double>, toWhite destination: SIMD3<Double>) -> Matrix3 {
        let coneSource = bradfordCone.apply(source)
        let coneDestination = bradfordCone.apply(destination)
        guard let coneInverse = bradfordCone.inverse else { preconditionFailure("Bradford matrix is invertible") }
        return coneInverse * Matrix3(diagonal: coneDestination / coneSource) * bradfordCone
    }

    /// The same, for whites given as xy chromaticities (each at Y = 1).
    public static func bradford(from source: CIExy, to destination: CIExy) -> Matrix3 {
        bradford(fromWhite: source.xyzUnitLuminance, toWhite: destination.xyzUnitLuminance)
    }
}
