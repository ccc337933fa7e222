/// Pixels whose R′G′B′ leaves the legal cube: from the stream's Y′CbCr
/// matrix and quantisation (`ConversionSpec`), a pixel is out of gamut when
/// any of R′, G′, B′ lies below −`tolerance` or above 1 + `tolerance`. This
/// is to colour what `signalstats`' BRNG is to levels: legal Y′, Cb and Cr
/// codes can still make an R′G′B′ no display shows (saturated chroma on
/// dark or bright luma).
///
/// Why on a grid: the matrix costs nine multiply-adds a pixel; the light
/// grid (`LightLevelMeter.gridStep`: every 4th pixel of every 4th row from
/// (0, 0)) is 1/16 of the work and estimates the share closely. 4:2:2
/// chroma is taken from sample x/2. `FrameStatisticsPass` counts the same
/// grid in float32, so a pixel within float32 rounding of the tolerance may
/// count on one side only.
public struct GamutMeter: Sendable {
    /// How far outside [0, 1] a component may lie before the pixel counts:
    /// 1% of the nominal range, above the rounding of a 10-bit code.
    public static let tolerance = 0.01

    public let spec: ConversionSpec
    public let bitDepth: Int
    // The spec's parts the pixel loop reads, taken out once: reaching them
    // through the spec a pixel made the loop several times slower.
    private let quantisation: CodeQuantisation
    private let matrix: Matrix3
    private let shift: Int

    /// Throws `UnsupportedColorCode` when the matrix has no maths here.
    public init(tags: ColorTags, bitDepth: Int) throws {
        spec = try ConversionSpec(tags: tags)
        self.bitDepth = bitDepth
        quantisation = CodeQuantisation(spec.range)
        matrix = spec.ycbcr.matrix
        shift = 16 - bitDepth
    }

    /// Whether one pixel, from its native (LSB-aligned) codes, is out of gamut.
    public func isOutside(y: UInt16, cb: UInt16, cr: UInt16) -> Bool {
        let n = quantisation.normalise(
            y: Double(Int(y) << shift), cb: Double(Int(cb) << shift), cr: Double(Int(cr) << shift))
        let rgb = matrix.apply(n)
        let low = -Self.tolerance
        let high = 1 + Self.tolerance
        return rgb.x < low || rgb.y < low || rgb.z < low || rgb.x > high || rgb.y > high || rgb.z > high
    }

    /// Grid pixels of one frame out of gamut, and grid pixels.
    public func count(_ frame: NativeFrameView) -> PictureSums.GamutCount {
        let step = LightLevelMeter.gridStep
        let halfChroma = frame.format.chroma == .c422
        var outside: UInt64 = 0
        var points: UInt64 = 0
        for y in stride(from: 0, to: frame.height, by: step) {
            let luma = frame.row(plane: 0, y: y)
            let cb = frame.row(plane: 1, y: y)
            let cr = frame.row(plane: 2, y: y)
            for x in stride(from: 0, to: frame.width, by: step) {
                let c = halfChroma ? x / 2 : x
                if isOutside(y: luma[x], cb: cb[c], cr: cr[c]) { outside += 1 }
                points += 1
            }
        }
        return .init(outside: outside, points: points)
    }
}
