/// The samples a frame is compared by to find frozen frames: in every
/// `rowStep`-th row from row 0, every `columnStep`-th sample from 0 of each
/// plane's row (Y′, Cb, Cr, and A when there is alpha, in that order; a
/// 4:2:2 chroma row is half as wide), native codes, rows one after another.
///
/// Why a grid rather than the frame: FFmpeg's `freezedetect` compares every
/// sample of a frame with the first frame of the hold, so the first frame
/// would have to be kept whole while frames are measured in parallel and
/// released. The grid holds 1/64 of the samples, and its mean absolute
/// difference estimates the frame's: within a few percent for noise or
/// motion spread over the picture. A change confined between grid points is
/// missed, as it barely moves the frame's mean in `freezedetect` too.
public struct StillGrid: Sendable, Equatable {
    public static let rowStep = 4
    public static let columnStep = 16

    public let bitDepth: Int
    public let samples: [UInt16]

    public init(bitDepth: Int, samples: [UInt16]) {
        self.bitDepth = bitDepth
        self.samples = samples
    }

    /// Samples of one grid row of a `width`-pixel frame.
    public static func samplesPerRow(_ format: PlanarFormat, width: Int) -> Int {
        (0..<format.planeCount).reduce(0) { $0 + gridColumns(format.planeWidth($1, width: width)) }
    }

    /// Grid points along a row of `samples` samples.
    public static func gridColumns(_ samples: Int) -> Int { (samples + columnStep - 1) / columnStep }

    /// The grid of one planar frame.
    public init(frame: NativeFrameView) {
        var samples: [UInt16] = []
        samples.reserveCapacity(
            Self.samplesPerRow(frame.format, width: frame.width) * ((frame.height + Self.rowStep - 1) / Self.rowStep))
        for y in stride(from: 0, to: frame.height, by: Self.rowStep) {
            for plane in 0..<frame.format.planeCount {
                let row = frame.row(plane: plane, y: y)
                for x in stride(from: 0, to: row.count, by: Self.columnStep) { samples.append(row[x]) }
            }
        }
        self.init(bitDepth: frame.format.bitDepth, samples: samples)
    }

    /// `freezedetect`'s measure on the grid: the mean absolute difference
    /// of the samples over 2^depth. Nil when the grids do not match (another
    /// size or depth).
    public func difference(from other: StillGrid) -> Double? {
        guard other.bitDepth == bitDepth, other.samples.count == samples.count, !samples.isEmpty else { return nil }
        var total: UInt64 = 0
        for (a, b) in zip(samples, other.samples) { total += UInt64(a > b ? a - b : b - a) }
        return Double(total) / Double(samples.count) / Double(1 << bitDepth)
    }
}
