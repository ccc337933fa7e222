import Foundation

/// `lut:FILE.cube[,shaper=pq|linear]`: a 3D LUT with tetrahedral
/// interpolation, behind an input shaper that says how our extended linear
/// Display P3 values become the LUT's input:
///
/// * `pq` (default): the LUT maps Display P3 encoded with SMPTE ST 2084 (PQ)
///   to the same, as HDR grading LUTs ("P3-D65 ST2084") do. Input
///   s = PQ⁻¹(v · W / 10000) with W the reference white (1.0 = W nits, 203 by
///   default, `--reference-white`), so the LUT sees 0…10000 nits; its output
///   is decoded back, v' = PQ(clamp(out, 0, 1)) · 10000 / W.
/// * `linear`: the LUT takes and gives linear values; a LUT made for HDR says
///   its range with `DOMAIN_MAX` (e.g. 0 0 0 to 64 64 64).
///
/// Then the lookup coordinate is (s − DOMAIN_MIN) / (DOMAIN_MAX − DOMAIN_MIN),
/// clamped to [0, 1] as the Cube specification prescribes: outside its
/// domain a LUT holds its edge value. With the PQ shaper that means negative
/// (out-of-gamut) components become 0 and light above 10000 nits is held
/// there; with `linear`, whatever the domain leaves out. This is the one
/// effect that can clip, and only where the LUT itself has no data. Alpha is
/// untouched.
public struct LUTEffect: Equatable, Sendable, CustomStringConvertible {
    public enum Shaper: Equatable, Sendable {
        case pq(referenceWhite: Double)
        case linear

        public var name: String {
            switch self {
            case .pq: return "pq"
            case .linear: return "linear"
            }
        }
    }

    public let path: String
    public let lut: CubeLUT
    public let shaper: Shaper

    public init(path: String, lut: CubeLUT, shaper: Shaper) {
        self.path = path
        self.lut = lut
        self.shaper = shaper
    }

    public var description: String { "\(path),shaper=\(shaper.name)" }
}
