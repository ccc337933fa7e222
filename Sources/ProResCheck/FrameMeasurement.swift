import ProResCore

/// What one decoded frame looked like: a hash of it and the raw sums the
/// file's statistics are built from. Measured while the frame is still held
/// (on the session's output thread by the CPU, or on the device by
/// `FrameStatisticsPass`); kept (about a hundred bytes a frame) until the
/// run ends.
///
/// Why keep per-frame records rather than running totals: whether a frame
/// was damaged is known for certain only from the run's report, and a
/// damaged frame must not count. FFmpeg leaves the slices it could not
/// decode untouched, so their pixels are whatever the pooled surface held
/// before: the picture (and its hash) differs from run to run.
public struct FrameMeasurement: Sendable {
    public let index: Int
    /// A hash string of the native planar frame, compared between
    /// neighbours to find frozen frames (today `ffmpeg -f framemd5`'s md5).
    public let digest: String
    public let sums: PictureSums
    /// `freezedetect`'s measure against the first frame of the hold this
    /// frame may belong to (`StillGrid.difference`, compared in frame order
    /// as the frames arrive); nil for the first frame or without a grid.
    public let stillDifference: Double?

    public init(index: Int, digest: String, sums: PictureSums, stillDifference: Double? = nil) {
        self.index = index
        self.digest = digest
        self.sums = sums
        self.stillDifference = stillDifference
    }

    /// Measures `frame` on the CPU.
    public init(_ frame: NativeFrameView, index: Int, digest: String, range: ColorRange, light: LightLevelMeter?) {
        self.init(index: index, digest: digest, sums: PictureSums(frame: frame, range: range, light: light))
    }
}
