import Foundation

/// What a track's sample timestamps say about its rate: the nominal step
/// between frames (the most common one, as ffprobe's `r_frame_rate` finds
/// it for a track with dropped or doubled frames), whether every frame
/// keeps it, and where they do not.
///
/// Why: a container's average rate (frames over duration) of a clip with
/// three dropped frames is a rate no frame has (23.5 for 25); the nominal
/// rate is the one the frames were shot at, and the gaps are the finding.
public struct TrackTiming: Equatable, Sendable {
    /// A place where the step is not the nominal one.
    public struct Irregularity: Equatable, Sendable {
        public enum Kind: String, Sendable {
            /// More than 1.5 steps after the frame before: frames missing.
            case gap
            /// Less than half a step after the frame before (or at the same time).
            case duplicate
            /// Before the frame before it.
            case backwards
            /// Any other step off the nominal one by more than a tick.
            case uneven
        }
        public let kind: Kind
        /// The frame whose time is off; the step is from frame − 1.
        public let frame: Int
        public let ticks: Int64
        public let previousTicks: Int64
    }

    /// The nominal step, in time-base ticks.
    public let step: Int64
    public let timeBase: (numerator: Int, denominator: Int)
    public let irregularities: [Irregularity]
    /// The first frame's timestamp, in ticks.
    public let start: Int64
    /// The last frame's timestamp, in ticks.
    public let end: Int64
    public let frames: Int

    public static func == (a: TrackTiming, b: TrackTiming) -> Bool {
        a.step == b.step && a.timeBase == b.timeBase && a.irregularities == b.irregularities && a.start == b.start
            && a.end == b.end
            && a.frames == b.frames
    }

    /// Timestamps this far from 0 keep every sum and difference below in 64 bits.
    static let largestTimestamp: Int64 = 1 << 60

    /// nil for fewer than two frames, a time base that is not one, a
    /// timestamp beyond ±2^60 ticks (a forged table), or no forward step
    /// between frames.
    public init?(timestamps: [Int64], timeBase: (numerator: Int, denominator: Int)) {
        guard timestamps.count >= 2, timeBase.numerator > 0, timeBase.denominator > 0,
            timestamps.allSatisfy({ (-Self.largestTimestamp...Self.largestTimestamp).contains($0) })
        else { return nil }
        var counts: [Int64: Int] = [:]
        for i in 1..<timestamps.count {
            let delta = timestamps[i] - timestamps[i - 1]
            if delta > 0 { counts[delta, default: 0] += 1 }
        }
        // The most common forward step; of equally common ones, the shortest.
        guard let step = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key })?.key
        else { return nil }
        self.step = step
        self.timeBase = timeBase
        start = timestamps[0]
        end = timestamps[timestamps.count - 1]
        frames = timestamps.count
        irregularities = Self.irregularities(timestamps, step: step)
    }

    /// Each frame's step judged from the place of the frame before: its own
    /// time, or for a duplicated one the slot after the place before it, so
    /// that the frame after a doubled time is not also a gap.
    private static func irregularities(_ timestamps: [Int64], step: Int64) -> [Irregularity] {
        var found: [Irregularity] = []
        // In Double: a place advanced step by step over many doubled frames may pass the timestamps' range.
        var place = Double(timestamps[0])
        let step = Double(step)
        for i in 1..<timestamps.count {
            let delta = Double(timestamps[i]) - place
            let kind: Irregularity.Kind?
            if timestamps[i] < timestamps[i - 1] {
                kind = .backwards
            } else if Double(timestamps[i] - timestamps[i - 1]) < step / 2 {
                kind = .duplicate
            } else if delta > step * 1.5 {
                kind = .gap
            } else if abs(delta - step) > 1 {
                kind = .uneven
            } else {
                kind = nil
            }
            if let kind {
                found.append(
                    Irregularity(kind: kind, frame: i, ticks: timestamps[i], previousTicks: timestamps[i - 1]))
            }
            place = kind == .duplicate || kind == .backwards ? place + step : Double(timestamps[i])
        }
        return found
    }

    /// The nominal rate in lowest terms: the time base's ticks a second over the step.
    public var nominalRate: (numerator: Int, denominator: Int)? {
        let (ticks, overflow) = Int64(timeBase.numerator).multipliedReportingOverflow(by: step)
        guard !overflow, let den = Int(exactly: ticks) else { return nil }
        var (a, b) = (timeBase.denominator, den)
        while b != 0 { (a, b) = (b, a % b) }
        return (timeBase.denominator / a, den / a)
    }

    /// Every frame one nominal step (±1 tick) after the one before.
    public var isConstant: Bool { irregularities.isEmpty }

    /// Seconds of `ticks`, from the first frame.
    public func seconds(_ ticks: Int64) -> Double {
        Double(ticks - start) * Double(timeBase.numerator) / Double(timeBase.denominator)
    }

    /// Seconds from the first frame's start to the last frame's end (a nominal step after its start).
    public var durationSeconds: Double { seconds(end) + seconds(start + step) }

    /// One sentence per irregularity, frame and time named:
    /// "frames 9–11 missing: frame 9 at 0.480 s follows frame 8 at 0.320 s (3 frames' time)".
    public var findings: [String] {
        irregularities.map { words($0) }
    }

    private func words(_ i: Irregularity) -> String {
        let at = "frame \(i.frame) at \(Self.clock(seconds(i.ticks)))"
        let before = "frame \(i.frame - 1) at \(Self.clock(seconds(i.previousTicks)))"
        switch i.kind {
        case .gap:
            let missing = max(1, Int((Double(i.ticks - i.previousTicks) / Double(step)).rounded()) - 1)
            return
                "timestamp gap: \(at) follows \(before), \(missing == 1 ? "1 frame's" : "\(missing) frames'") time missing"
        case .duplicate:
            return i.ticks == i.previousTicks
                ? "duplicated timestamp: \(at), the same time as frame \(i.frame - 1)"
                : "duplicated timestamp: \(at), \(i.ticks - i.previousTicks) tick\(i.ticks - i.previousTicks == 1 ? "" : "s") after \(before)"
        case .backwards:
            return "timestamp goes back: \(at) comes before \(before)"
        case .uneven:
            return "uneven step: \(at) follows \(before) (\(i.ticks - i.previousTicks) ticks, nominal \(step))"
        }
    }

    /// "0.480 s".
    static func clock(_ seconds: Double) -> String { String(format: "%.3f s", seconds) }

    /// "variable frame rate: 4 irregular steps (nominal 25/1, average 625/28)"-style summary.
    public var summary: String {
        let rate = nominalRate.map { "\($0.numerator)/\($0.denominator)" } ?? "unknown"
        if isConstant { return "constant frame rate \(rate)" }
        let kinds = Set(irregularities.map(\.kind))
        let names: [(Irregularity.Kind, String)] = [
            (.gap, "gaps"), (.duplicate, "duplicated timestamps"), (.backwards, "steps back"),
            (.uneven, "uneven steps"),
        ]
        let shown = names.filter { kinds.contains($0.0) }.map(\.1)
        return "variable frame rate (nominal \(rate); \(shown.joined(separator: ", ")))"
    }
}
