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
/// * black: FFmpeg's `blackdetect` at its defaults (`DarkPixels`): at least
///   98% of the frame's Y′ samples at or below black + 10% of the span
///   black..white (151 at 10 bits video range, 102 full range). Each run
///   keeps its smallest dark share.
/// * frozen: FFmpeg's `freezedetect` at its defaults: a frame whose mean
///   absolute difference from the first frame of the hold, over 2^depth, is
///   at most 0.001 (−60 dB), measured on the still grid (`StillGrid`,
///   `FrameMeasurement.stillDifference`), or whose digest equals that of
///   the frame measured just before it (with `--sample`, the previous
///   sampled frame; a frame that failed or was damaged is skipped, not
///   compared). Each run keeps its largest difference.
/// * run times: a black run from its first frame to the frame after its
///   last, a frozen run from the frame before its first (the hold's first)
///   to the frame after its last, at index / nominal rate, as the filters
///   print `black_start`/`black_end` and `freeze_start`/`freeze_end`.
/// * alpha: frames whose alpha is 0 everywhere (transparent), maximal
///   everywhere (opaque) or neither (partial), and the fractions of all
///   measured alpha samples that are 0 or maximal.
/// * light: the largest per-frame peak and the largest per-frame average
///   (`LightLevelMeter`).
/// * out of gamut: light-grid pixels whose R′G′B′ from the stream's matrix
///   lies outside [−0.01, 1.01] (`GamutMeter`), of the grid pixels
///   measured; nil where the matrix has no maths.
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
    /// The nominal rate the run times are in; nil without one (no times).
    public let framesPerSecond: Double?

    /// `freezedetect`'s default noise, −60 dB: 10^(−60/20).
    public static let frozenNoise = 0.001

    public private(set) var frames = 0
    public private(set) var lumaMin = Int.max
    public private(set) var lumaMax = Int.min
    private var lumaSum: UInt64 = 0
    private var lumaSamples: UInt64 = 0
    public private(set) var black = FrameRanges()
    public private(set) var frozen = FrameRanges()
    /// Per run of `black`: its smallest dark share; of `frozen`: its largest
    /// still difference (0 for exact repeats).
    public private(set) var blackRunDarkShares: [Double] = []
    public private(set) var frozenRunDifferences: [Double] = []
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
    /// Grid pixels out of gamut, summed; nil until a frame has them measured.
    public private(set) var outOfGamut: PictureSums.GamutCount?
    private var previousDigest: String?

    public init(
        bitDepth: Int, range: ColorRange, hasAlpha: Bool, measuresLight: Bool = false, framesPerSecond: Double? = nil
    ) {
        self.bitDepth = bitDepth
        self.range = range
        self.hasAlpha = hasAlpha
        self.measuresLight = measuresLight
        self.framesPerSecond = framesPerSecond.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
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
    /// Grid pixels out of gamut as a share of the grid pixels measured.
    public var outOfGamutFraction: Double? {
        outOfGamut.flatMap { $0.points > 0 ? Double($0.outside) / Double($0.points) : nil }
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
        addBlack(measured)
        addFrozen(measured)
        if let light = frame.light {
            maxNits = max(maxNits ?? 0, light.peak)
            maxFrameAverageNits = max(maxFrameAverageNits ?? 0, light.average)
        }
        if let gamut = frame.gamut {
            let sum = outOfGamut ?? .init(outside: 0, points: 0)
            outOfGamut = .init(outside: sum.outside + gamut.outside, points: sum.points + gamut.points)
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

    private mutating func addBlack(_ measured: FrameMeasurement) {
        let sums = measured.sums
        guard DarkPixels.isBlack(dark: sums.darkPixels, of: sums.samples) else { return }
        let share = Double(sums.darkPixels) / Double(sums.samples)
        let runs = black.runs.count
        black.add(measured.index)
        if black.runs.count > runs {
            blackRunDarkShares.append(share)
        } else {
            blackRunDarkShares[runs - 1] = min(blackRunDarkShares[runs - 1], share)
        }
    }

    private mutating func addFrozen(_ measured: FrameMeasurement) {
        defer { previousDigest = measured.digest }
        let repeated = previousDigest == measured.digest
        let still = (measured.stillDifference ?? .infinity) <= Self.frozenNoise
        guard repeated || still else { return }
        let difference = still ? measured.stillDifference ?? 0 : 0
        let runs = frozen.runs.count
        frozen.add(measured.index)
        if frozen.runs.count > runs {
            frozenRunDifferences.append(difference)
        } else {
            frozenRunDifferences[runs - 1] = max(frozenRunDifferences[runs - 1], difference)
        }
    }

    /// A run's start, end and duration in seconds (`from`, `to`: frame
    /// indices, `to` the first frame after the run), or nulls without a rate.
    private func runTimes(from: Int, to: Int) -> [(String, String)] {
        guard let fps = framesPerSecond else { return [("start", "null"), ("end", "null"), ("duration", "null")] }
        let (start, end) = (Double(from) / fps, Double(to) / fps)
        return [
            ("start", JSON.number(start, digits: 6)), ("end", JSON.number(end, digits: 6)),
            ("duration", JSON.number(end - start, digits: 6)),
        ]
    }

    /// `black_runs`: each run's frames, times and smallest dark share.
    public var blackRunsJSON: String {
        JSON.array(
            zip(black.runs, blackRunDarkShares).map { run, share in
                JSON.object(
                    [("frames", "[\(run.lowerBound),\(run.upperBound)]")]
                        + runTimes(from: run.lowerBound, to: run.upperBound + 1)
                        + [("dark_share", JSON.number(share, digits: 6))])
            })
    }

    /// `frozen_runs`: each run's frames (the repeats), the hold's times and
    /// the largest still difference.
    public var frozenRunsJSON: String {
        JSON.array(
            zip(frozen.runs, frozenRunDifferences).map { run, difference in
                JSON.object(
                    [("frames", "[\(run.lowerBound),\(run.upperBound)]")]
                        + runTimes(from: run.lowerBound - 1, to: run.upperBound + 1)
                        + [("difference", JSON.number(difference, digits: 8))])
            })
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
            ("black_runs", blackRunsJSON),
            ("frozen_runs", frozenRunsJSON),
            ("alpha", alpha),
            ("light", light),
            ("out_of_range", outOfRange),
            (
                "out_of_gamut",
                outOfGamut.map {
                    JSON.object([
                        ("outside", "\($0.outside)"), ("grid_points", "\($0.points)"),
                        ("share", outOfGamutFraction.map { JSON.number($0, digits: 6) } ?? "null"),
                        ("grid_step", "\(LightLevelMeter.gridStep)"), ("tolerance", "\(GamutMeter.tolerance)"),
                    ])
                } ?? "null"
            ),
        ]
    }
}
