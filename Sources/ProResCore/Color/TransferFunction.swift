import Foundation

/// The electro-optical transfer functions we linearise with, as the shader
/// selects them. Output is display-referred linear light relative to SDR
/// reference white = 1.0.
///
/// Why: the decoder outputs extended linear Display P3, so every source
/// transfer must be undone: the SDR curves by their display EOTF (BT.1886 with
/// zero black, sRGB), PQ by ST 2084 scaled so that reference white (203 nits,
/// ITU-R BT.2408) is 1.0, and HLG by its inverse OETF plus the BT.2100 OOTF.
/// The raw value is the `transfer` push constant the shader switches on.
///
/// Extended range: the SDR curves are mirrored for negative input
/// (f(−x) = −f(x)) and continue their formula above 1, so out-of-gamut and
/// super-white values survive. PQ and HLG are defined on [0, 1] only and
/// clamp their signal first.
public enum TransferFunction: UInt32, CaseIterable, Sendable {
    /// H.273 code 8: already linear, passed through.
    case linear = 0
    /// H.273 codes 1, 6, 14, 15 (BT.709, BT.601, BT.2020 10/12-bit): displayed
    /// with BT.1886 at black level 0, L = V^2.4.
    case bt1886 = 1
    /// H.273 code 13: IEC 61966-2-1 sRGB, piecewise.
    case srgb = 2
    /// H.273 code 16: SMPTE ST 2084 (PQ).
    case pq = 3
    /// H.273 code 18: ARIB STD-B67 / BT.2100 HLG.
    case hlg = 4

    /// The transfer for an H.273 `transfer_characteristics` code, or nil when
    /// this module has no EOTF for it (0/2 unknown, 4/5 plain gammas, 7 240M,
    /// 17 ST 428, ...): the caller applies its documented fallback.
    public init?(code: Int) {
        switch code {
        case 8: self = .linear
        case 1, 6, 14, 15: self = .bt1886
        case 13: self = .srgb
        case 16: self = .pq
        case 18: self = .hlg
        default: return nil
        }
    }

    public init?(_ tag: ColorCode) {
        guard tag.kind == .transfer else { return nil }
        self.init(code: tag.code)
    }

    /// HLG's OOTF mixes the channels (it scales by a power of luminance), so
    /// it cannot be applied one channel at a time.
    public var mixesChannels: Bool { self == .hlg }

    /// True for the HDR transfers whose absolute luminance is divided by the
    /// reference white.
    public var usesReferenceWhite: Bool { self == .pq || self == .hlg }

    // MARK: - Whole pipeline step

    /// Non-linear R'G'B' → display-linear RGB in the source primaries, SDR
    /// white = 1.0. `referenceWhite` (nits) applies to PQ and HLG only;
    /// `hlgLuminanceWeights` are the weights of Ys in the HLG OOTF.
    public func toDisplayLinear(
        _ rgb: SIMD3<Double>,
        referenceWhite: Double = TransferFunction.defaultReferenceWhite,
        hlgLuminanceWeights: SIMD3<Double> = TransferFunction.bt2100LuminanceWeights,
        hlgPeakLuminance: Double = TransferFunction.hlgNominalPeak
    ) -> SIMD3<Double> {
        switch self {
        case .linear:
            return rgb
        case .bt1886:
            return SIMD3(Self.bt1886EOTF(rgb.x), Self.bt1886EOTF(rgb.y), Self.bt1886EOTF(rgb.z))
        case .srgb:
            return SIMD3(Self.srgbEOTF(rgb.x), Self.srgbEOTF(rgb.y), Self.srgbEOTF(rgb.z))
        case .pq:
            return SIMD3(Self.pqEOTF(rgb.x), Self.pqEOTF(rgb.y), Self.pqEOTF(rgb.z)) / referenceWhite
        case .hlg:
            let scene = SIMD3(Self.hlgInverseOETF(rgb.x), Self.hlgInverseOETF(rgb.y), Self.hlgInverseOETF(rgb.z))
            return Self.hlgOOTF(
                scene, luminanceWeights: hlgLuminanceWeights,
                peakLuminance: hlgPeakLuminance) / referenceWhite
        }
    }

    // MARK: - Constants

    /// Reference (diffuse, graphics) white in nits, ITU-R BT.2408: HDR signal
    /// at this luminance maps to 1.0, matching SDR white.
    public static let defaultReferenceWhite = 203.0

    /// BT.2100 luminance weights for BT.2020 primaries (Ys in the HLG OOTF).
    public static let bt2100LuminanceWeights = SIMD3<Double>(0.2627, 0.6780, 0.0593)

    /// The nominal peak luminance of the HLG reference display (BT.2100), nits.
    public static let hlgNominalPeak = 1000.0

    // MARK: - SDR

    /// BT.1886 EOTF with black level 0 (Lb = 0, Lw = 1): L = V^2.4,
    /// sign-mirrored and unclamped.
    public static func bt1886EOTF(_ v: Double) -> Double {
        mirrored(v) { pow($0, 2.4) }
    }

    /// IEC 61966-2-1 sRGB EOTF: V ≤ 0.04045 → V / 12.92, else
    /// ((V + 0.055) / 1.055)^2.4; sign-mirrored and unclamped.
    public static func srgbEOTF(_ v: Double) -> Double {
        mirrored(v) { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
    }

    private static func mirrored(_ v: Double, _ f: (Double) -> Double) -> Double {
        v < 0 ? -f(-v) : f(v)
    }

    // MARK: - PQ, SMPTE ST 2084

    public static let pqM1 = 2610.0 / 16384
    public static let pqM2 = 2523.0 / 4096 * 128
    public static let pqC1 = 3424.0 / 4096
    public static let pqC2 = 2413.0 / 4096 * 32
    public static let pqC3 = 2392.0 / 4096 * 32
    /// Luminance of PQ signal 1.0, nits.
    public static let pqPeak = 10000.0

    /// ST 2084 EOTF: signal E' (clamped to [0, 1]) → absolute luminance in nits:
    /// 10000 · (max(E'^(1/m2) − c1, 0) / (c2 − c3 · E'^(1/m2)))^(1/m1).
    public static func pqEOTF(_ signal: Double) -> Double {
        let e = min(max(signal, 0), 1)
        let p = pow(e, 1 / pqM2)
        return pqPeak * pow(max(p - pqC1, 0) / (pqC2 - pqC3 * p), 1 / pqM1)
    }

    // MARK: - HLG, ARIB STD-B67 / BT.2100

    public static let hlgA = 0.17883277
    public static let hlgB = 1 - 4 * hlgA
    public static let hlgC = 0.5 - hlgA * log(4 * hlgA)

    /// Inverse of the HLG OETF: signal E' (clamped to [0, 1]) → normalised
    /// scene light E in [0, 1]: E'²/3 for E' ≤ ½, else (exp((E' − c)/a) + b)/12.
    public static func hlgInverseOETF(_ signal: Double) -> Double {
        let e = min(max(signal, 0), 1)
        return e <= 0.5 ? e * e / 3 : (exp((e - hlgC) / hlgA) + hlgB) / 12
    }

    /// BT.2100 system gamma for a display of nominal peak `peak` nits:
    /// 1.2 + 0.42 · log10(peak / 1000); 1.2 at 1000 nits.
    public static func hlgSystemGamma(peakLuminance peak: Double = hlgNominalPeak) -> Double {
        1.2 + 0.42 * log10(peak / 1000)
    }

    /// BT.2100 HLG OOTF: scene light Es (per channel, [0, 1]) → display light
    /// in nits: Fd = Lw · Ys^(γ − 1) · Es, Ys = weights · Es.
    public static func hlgOOTF(
        _ scene: SIMD3<Double>,
        luminanceWeights w: SIMD3<Double> = bt2100LuminanceWeights,
        peakLuminance: Double = hlgNominalPeak
    ) -> SIMD3<Double> {
        let gamma = hlgSystemGamma(peakLuminance: peakLuminance)
        let ys = w.x * scene.x + w.y * scene.y + w.z * scene.z
        return peakLuminance * pow(ys, gamma - 1) * scene
    }
}
