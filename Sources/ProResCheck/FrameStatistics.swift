import HostSupport
import ProResCore

/// Per-file picture statistics from the measured frames: luma range and
/// mean, black frames, frozen frames, alpha coverage and, for PQ/HLG, light
/// levels. They inform a report, and the rules that name them (`black-run`,
/// `out-of-range-luma`, ...: `ExpectRule`) judge them. Damaged frames are
/// left out (their concealed pixels are not reproducible, see
/// `FrameMeasurement`), so `frames` counts the clean frames measured.
///
/// Definitions (code values at the native depth, LSB-aligned):
/// * luma min/max over every Y' sample of every measured frame; mean over all
///   of them (every frame has the same size, so also the mean of frame means).
/// * black: a frame whose mean Y' is at most black + 2% of the nominal span
///   black..white (video range 16..235 scaled to the depth, 64..940 at 10
///   bits, so ≤ 81.52; full range 0..2^depth − 1). Sub-black counts as black.
/// * frozen: a frame whose digest (md5) equals that of the frame measured just before
///   it (with `--sample`, the previous sampled frame; a frame that failed or
///   was damaged is skipped, not compared).
/// * alpha: frames whose alpha is 0 everywhere (transparent), maximal
///   everywhere (opaque) or neither (partial), and the fractions of all
///   measured alpha samples that are 0 or maximal.
/// * light: the largest per-frame peak and the largest per-frame average
///   (`LightLevelMeter`).
/// * out of range (video range only; null for full range, where every code
///   is legal): Y' samples below 64 or above 940, Cb and Cr samples below 64
///   or above 960 at 10 bits (×4 at 12 bits: 256, 3760, 3840;
///   `VideoRangeLimits`), summed over the measured frames, with the frames
///   that have any. 4:2:2 chroma counts the samples of the half-width planes.
public struct FrameStatistics: Sendable {
    public let bitDepth: Int
    public let range: ColorRange
    public let hasAlpha: Bool
    public let measuresLight: Bool

    public private(set) var frames = 0
    public private(set) var lumaMin = Int.max
    public private(set) var lumaMax = Int.min
    private var lumaSum: UInt64 = 0
    private var lumaSamples: UInt64 = 0
    public private(set) var black = FrameRanges()
    public private(set) var frozen = FrameRanges()
    public private(set) var transparentFrames = 0
    public private(set) var partialFrames = 0
    public private(set) var opaqueFrames = 0
    private var transparentSamples: UInt64 = 0
    private var opaqueSamples: UInt64 = 0
    private var alphaSamples: UInt64 = 0
    public private(set) var maxNits: Double?
    public private(set) var maxFrameAverageNits: Double?
    public private(set) var outOfRange = PictureSums.OutOfRangeCounts()
    public private(set) var outOfRangeFrames = 0
    private var previousDigest: String?

    public init(bitDepth: Int, range: ColorRange, hasAlpha: Bool, measuresLight: Bool = false) {
        self.bitDepth = bitDepth
        self.range = range
        self.hasAlpha = hasAlpha
        self.measuresLight = measuresLight
    }

    /// Mean Y' at or below this is a black frame.
    public var blackThreshold: Double {
        let (black, white) =
            range == .video
            ? (Double(16 << (bitDepth - 8)), Double(235 << (bitDepth - 8)))
            : (0, Double((1 << bitDepth) - 1))
        return black + 0.02 * (white - black)
    }

    public var lumaMean: Double? { lumaSamples > 0 ? Double(lumaSum) / Double(lumaSamples) : nil }

    /// Y′ samples below or above the video range, as a share of every Y′
    /// sample measured; nil for full range or without a frame.
    public var outOfRangeLumaFraction: Double? {
        guard range == .video, lumaSamples > 0 else { return nil }
        return Double(outOfRange.lumaBelow + outOfRange.lumaAbove) / Double(lumaSamples)
    }

    /// Cb and Cr samples outside the video range, as a share of every Cb
    /// and Cr sample measured (`chromaSamplesPerFrame` a frame: the native
    /// planes' own, so 4:2:2 counts half-width planes).
    public func outOfRangeChromaFraction(chromaSamplesPerFrame: Int) -> Double? {
        guard range == .video, frames > 0, chromaSamplesPerFrame > 0 else { return nil }
        let all = Double(frames) * Double(chromaSamplesPerFrame)
        return Double(outOfRange.chromaBelow + outOfRange.chromaAbove) / all
    }
    public var transparentFraction: Double? {
        alphaSamples > 0 ? Double(transparentSamples) / Double(alphaSamples) : nil
    }
    public var opaqueFraction: Double? { alphaSamples > 0 ? Double(opaqueSamples) / Double(alphaSamples) : nil }

    /// Frames must arrive in ascending index order.
    public mutating func add(_ measured: FrameMeasurement) {
        let frame = measured.sums
        frames += 1
        lumaMin = min(lumaMin, frame.lumaMin)
        lumaMax = max(lumaMax, frame.lumaMax)
        lumaSum += frame.lumaSum
        lumaSamples += frame.samples
        if frame.samples > 0, Double(frame.lumaSum) / Double(frame.samples) <= blackThreshold {
            black.add(measured.index)
        }
        if previousDigest == measured.digest { frozen.add(measured.index) }
        previousDigest = measured.digest
        if let light = frame.light {
            maxNits = max(maxNits ?? 0, light.peak)
            maxFrameAverageNits = max(maxFrameAverageNits ?? 0, light.average)
        }
        if let outside = frame.outOfRange {
            outOfRange = outOfRange + outside
            if outside.total > 0 { outOfRangeFrames += 1 }
        }
        guard let alpha = frame.alpha else { return }
        transparentSamples += alpha.transparent
        opaqueSamples += alpha.opaque
        alphaSamples += frame.samples
        if alpha.transparent == frame.samples {
            transparentFrames += 1
        } else if alpha.opaque == frame.samples {
            opaqueFrames += 1
        } else {
            partialFrames += 1
        }
    }

    public var jsonFields: [(String, String)] {
        let alpha =
            hasAlpha
            ? JSON.object([
                ("transparent_frames", "\(transparentFrames)"), ("partial_frames", "\(partialFrames)"),
                ("opaque_frames", "\(opaqueFrames)"),
                ("transparent_fraction", transparentFraction.map { JSON.number($0, digits: 4) } ?? "null"),
                ("opaque_fraction", opaqueFraction.map { JSON.number($0, digits: 4) } ?? "null"),
            ]) : "null"
        let light =
            measuresLight
            ? JSON.object([
                ("max_nits", maxNits.map { JSON.number($0, digits: 1) } ?? "null"),
                ("max_frame_average_nits", maxFrameAverageNits.map { JSON.number($0, digits: 1) } ?? "null"),
                ("grid_step", "\(LightLevelMeter.gridStep)"),
            ]) : "null"
        let outOfRange =
            range == .video
            ? JSON.object([
                ("luma_below", "\(self.outOfRange.lumaBelow)"), ("luma_above", "\(self.outOfRange.lumaAbove)"),
                ("chroma_below", "\(self.outOfRange.chromaBelow)"), ("chroma_above", "\(self.outOfRange.chromaAbove)"),
                ("frames", "\(outOfRangeFrames)"),
            ]) : "null"
        return [
            ("frames", "\(frames)"),
            (
                "luma",
                frames > 0
                    ? JSON.object([
                        ("min", "\(lumaMin)"), ("mean", lumaMean.map { JSON.number($0, digits: 2) } ?? "null"),
                        ("max", "\(lumaMax)"),
                    ]) : "null"
            ),
            ("black_frames", black.json),
            ("frozen_frames", frozen.json),
            ("alpha", alpha),
            ("light", light),
            ("out_of_range", outOfRange),
        ]
    }
}
