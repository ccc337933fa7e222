import Foundation

/// The whole Y'CbCr → extended linear Display P3 conversion in Double, one
/// pixel at a time: the yardstick the GPU output is compared against.
///
/// Why: a shader bug and a packing bug look alike in a picture; this is a
/// direct transcription of the standards' formulas (range de-quantisation,
/// the Kr/Kb equations, the EOTFs, the gamut matrix) and deliberately does not
/// go through `ConversionParameters` or the folded affine map, so comparing
/// against it checks the packing and the shader together.
public enum ReferenceConverter {
    /// Converts one pixel of raw 16-bit MSB-aligned codes. Alpha is straight
    /// (not premultiplied) and full range: a / 65535; pass 65535 when the
    /// source has none. Nothing is clamped except the PQ/HLG signal domain.
    public static func convert(
        y: UInt16, cb: UInt16, cr: UInt16, a: UInt16 = .max,
        params spec: ConversionSpec
    ) -> (r: Double, g: Double, b: Double, a: Double) {
        convert(codes: SIMD3(Double(y), Double(cb), Double(cr)), alpha: Double(a), params: spec)
    }

    /// The same for (Y, Cb, Cr) codes given as Doubles (fractional or out-of-range codes
    /// are allowed, e.g. from an ideal encoder in a test).
    public static func convert(
        codes: SIMD3<Double>, alpha a: Double = 65535,
        params spec: ConversionSpec
    ) -> (r: Double, g: Double, b: Double, a: Double) {
        let (y, cb, cr) = (codes.x, codes.y, codes.z)
        // 1. Codes → Y' in [0, 1], Cb, Cr in [−½, ½].
        let q = CodeQuantisation(spec.range)
        let yPrime = (y - q.yBlack) / q.yExcursion
        let cbPrime = (cb - q.cCentre) / q.cExcursion
        let crPrime = (cr - q.cCentre) / q.cExcursion

        // 2. Y'CbCr → R'G'B' from Y' = Kr R' + Kg G' + Kb B',
        //    Cb = (B' − Y') / (2(1 − Kb)), Cr = (R' − Y') / (2(1 − Kr)).
        let kr = spec.ycbcr.kr
        let kb = spec.ycbcr.kb
        let kg = 1 - kr - kb
        let rPrime = yPrime + 2 * (1 - kr) * crPrime
        let bPrime = yPrime + 2 * (1 - kb) * cbPrime
        let gPrime = (yPrime - kr * rPrime - kb * bPrime) / kg

        // 3. EOTF → display-linear light in the source primaries, SDR white = 1.
        let linear: SIMD3<Double>
        switch spec.transfer {
        case .linear:
            linear = SIMD3(rPrime, gPrime, bPrime)
        case .bt1886:
            linear = SIMD3(
                TransferFunction.bt1886EOTF(rPrime), TransferFunction.bt1886EOTF(gPrime),
                TransferFunction.bt1886EOTF(bPrime))
        case .srgb:
            linear = SIMD3(
                TransferFunction.srgbEOTF(rPrime), TransferFunction.srgbEOTF(gPrime),
                TransferFunction.srgbEOTF(bPrime))
        case .pq:
            linear =
                SIMD3(
                    TransferFunction.pqEOTF(rPrime), TransferFunction.pqEOTF(gPrime),
                    TransferFunction.pqEOTF(bPrime)) / spec.referenceWhite
        case .hlg:
            let scene = SIMD3(
                TransferFunction.hlgInverseOETF(rPrime), TransferFunction.hlgInverseOETF(gPrime),
                TransferFunction.hlgInverseOETF(bPrime))
            let w = spec.hlgLuminanceWeights
            let ys = w.x * scene.x + w.y * scene.y + w.z * scene.z
            let gamma = TransferFunction.hlgSystemGamma(peakLuminance: spec.hlgPeakLuminance)
            linear = spec.hlgPeakLuminance * pow(ys, gamma - 1) * scene / spec.referenceWhite
        }

        // 4. Source primaries → Display P3 (D65).
        let p3 = spec.rgbToP3D65.apply(linear)
        return (p3.x, p3.y, p3.z, a / 65535)
    }
}
