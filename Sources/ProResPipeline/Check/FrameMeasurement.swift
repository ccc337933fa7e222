import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// What one decoded frame looked like: its md5 and the raw sums the file's
/// statistics are built from. Measured on the session's output thread while
/// the frame's surface is still held; kept (about a hundred bytes a frame)
/// until the run ends.
///
/// Why keep per-frame records rather than running totals: whether a frame
/// was damaged is known for certain only from the run's report, and a
/// damaged frame must not count. FFmpeg leaves the slices it could not
/// decode untouched, so their pixels are whatever the pooled surface held
/// before: the picture (and its md5) differs from run to run.
public struct FrameMeasurement: Sendable {
    public let index: Int
    /// Of the native planar frame: `ffmpeg -f framemd5`'s md5.
    public let md5: String
    public let lumaMin: Int
    public let lumaMax: Int
    public let lumaSum: UInt64
    /// Pixels in the frame (luma samples, and alpha samples when there is alpha).
    public let samples: UInt64
    /// Alpha samples at 0 and at the maximum code; nil without alpha.
    public let alphaCounts: (transparent: UInt64, opaque: UInt64)?
    /// PQ/HLG light of the frame in nits; nil for other transfers.
    public let light: (peak: Double, average: Double)?

    public init(_ frame: NativeFrameView, index: Int, md5: String, light meter: LightLevelMeter?) {
        self.index = index
        self.md5 = md5
        var low = Int.max, high = Int.min
        var sum: UInt64 = 0
        for y in 0..<frame.height {
            var rowSum: UInt64 = 0
            for sample in frame.row(plane: 0, y: y) {
                let value = Int(sample)
                if value < low { low = value }
                if value > high { high = value }
                rowSum += UInt64(sample)
            }
            sum += rowSum
        }
        lumaMin = low
        lumaMax = high
        lumaSum = sum
        samples = UInt64(frame.width * frame.height)
        if frame.format.hasAlpha {
            let opaque = UInt16((1 << frame.format.bitDepth) - 1)
            var zeros: UInt64 = 0, full: UInt64 = 0
            for y in 0..<frame.height {
                for sample in frame.row(plane: 3, y: y) {
                    if sample == 0 { zeros += 1 } else if sample >= opaque { full += 1 }
                }
            }
            alphaCounts = (zeros, full)
        } else {
            alphaCounts = nil
        }
        light = meter?.measure(frame)
    }
}
