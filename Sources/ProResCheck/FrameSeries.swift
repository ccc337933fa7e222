import ProResCore

/// A few numbers per measured frame, kept for the check page's graphs
/// (`check --html`): luma min/mean/max, PQ/HLG light, alpha coverage, and
/// which frames were damaged, not decoded or missing.
///
/// Why a copy rather than the measurements themselves: a `FrameMeasurement`
/// holds a hash string and every sum (about a hundred bytes); these columns
/// hold 16 to 36 bytes a frame, for every file of the run until the page is
/// written. Damaged frames are left out, as from the statistics: their
/// concealed pixels are not the picture.
public struct FrameSeries: Sendable {
    /// Frame indices of the measured clean frames, ascending.
    public private(set) var frames: [Int] = []
    public private(set) var lumaMin: [Int32] = []
    public private(set) var lumaMax: [Int32] = []
    public private(set) var lumaMean: [Float] = []
    /// PQ/HLG only: the brightest grid pixel and the grid average, in nits.
    public private(set) var peakNits: [Float]?
    public private(set) var averageNits: [Float]?
    /// With alpha only: fractions of the alpha samples at 0 and at the top code.
    public private(set) var transparent: [Float]?
    public private(set) var opaque: [Float]?
    /// Frames the run reported damaged, could not decode, or never saw.
    public var damaged = FrameRanges()
    public var notDecoded = FrameRanges()
    public var missing = FrameRanges()
    /// Frames in the file (the container's count), when known.
    public var frameCount: Int?

    public init(light: Bool, alpha: Bool) {
        if light { (peakNits, averageNits) = ([], []) }
        if alpha { (transparent, opaque) = ([], []) }
    }

    /// Frames must arrive in ascending index order.
    public mutating func add(_ measured: FrameMeasurement) {
        let sums = measured.sums
        frames.append(measured.index)
        lumaMin.append(Int32(clamping: sums.lumaMin))
        lumaMax.append(Int32(clamping: sums.lumaMax))
        lumaMean.append(sums.samples > 0 ? Float(Double(sums.lumaSum) / Double(sums.samples)) : 0)
        if peakNits != nil {
            peakNits!.append(Float(sums.light?.peak ?? 0))
            averageNits!.append(Float(sums.light?.average ?? 0))
        }
        if transparent != nil {
            let total = Double(max(1, sums.samples))
            transparent!.append(Float(Double(sums.alpha?.transparent ?? 0) / total))
            opaque!.append(Float(Double(sums.alpha?.opaque ?? 0) / total))
        }
    }

    /// The last frame index the graphs must reach.
    public var lastFrame: Int {
        max(
            frameCount.map { $0 - 1 } ?? -1, frames.last ?? -1, damaged.runs.last?.upperBound ?? -1,
            notDecoded.runs.last?.upperBound ?? -1, missing.runs.last?.upperBound ?? -1)
    }
}
