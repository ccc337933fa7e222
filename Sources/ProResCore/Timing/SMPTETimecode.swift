/// A SMPTE 12M time code: hours, minutes, seconds and frames at a whole
/// number of frames per second, with or without drop-frame counting.
///
/// Why: sources carry one start time code (a QuickTime `tmcd` track, MXF's
/// material package), and each saved frame is stamped with its own, the
/// start advanced by the frame's index.
public struct SMPTETimecode: Equatable, Sendable {
    public let hours: Int, minutes: Int, seconds: Int, frames: Int
    /// Frames counted per second: 30 for 29.97, 24 for 23.976.
    public let framesPerSecond: Int
    /// Drop-frame counting (29.97 and 59.94 only): numbers 0 and 1 (0-3 at 60)
    /// are skipped at the start of every minute except each tenth.
    public let dropFrame: Bool

    public init?(hours: Int, minutes: Int, seconds: Int, frames: Int, framesPerSecond: Int, dropFrame: Bool) {
        guard framesPerSecond > 0, (0..<24).contains(hours), (0..<60).contains(minutes), (0..<60).contains(seconds),
            (0..<framesPerSecond).contains(frames), !dropFrame || framesPerSecond % 30 == 0
        else { return nil }
        if dropFrame, minutes % 10 != 0, seconds == 0, frames < framesPerSecond / 15 { return nil }
        (self.hours, self.minutes, self.seconds, self.frames) = (hours, minutes, seconds, frames)
        self.framesPerSecond = framesPerSecond
        self.dropFrame = dropFrame
    }

    /// From libavformat's `timecode` metadata, "HH:MM:SS:FF", drop-frame
    /// written with ';' (or '.') before the frames. `rate` is the stream's
    /// frame rate; its rounded value is the frames counted per second.
    public init?(_ text: String, rate: (numerator: Int, denominator: Int)) {
        guard rate.numerator > 0, rate.denominator > 0 else { return nil }
        let drop = text.contains(";") || text.contains(".")
        let fields = text.split(whereSeparator: { ":;.".contains($0) }).map { Int($0) }
        guard fields.count == 4, let h = fields[0], let m = fields[1], let s = fields[2], let f = fields[3] else {
            return nil
        }
        let counted = Int((Double(rate.numerator) / Double(rate.denominator)).rounded())
        self.init(hours: h, minutes: m, seconds: s, frames: f, framesPerSecond: counted, dropFrame: drop)
    }

    /// Frames dropped at the start of each minute that is not a tenth.
    private var droppedPerMinute: Int { dropFrame ? framesPerSecond / 15 : 0 }

    /// The frame number since 00:00:00:00.
    public var frameNumber: Int {
        let totalMinutes = hours * 60 + minutes
        let nominal = (totalMinutes * 60 + seconds) * framesPerSecond + frames
        return nominal - droppedPerMinute * (totalMinutes - totalMinutes / 10)
    }

    /// This time code `count` frames later, wrapping at 24 hours.
    public func advanced(by count: Int) -> SMPTETimecode {
        let perMinute = framesPerSecond * 60 - droppedPerMinute
        let perTenMinutes = framesPerSecond * 600 - droppedPerMinute * 9
        let perDay = perTenMinutes * 144
        var n = ((frameNumber + count) % perDay + perDay) % perDay
        // Back to nominal numbering: add the labels skipped before frame n.
        let tens = n / perTenMinutes
        let rest = n % perTenMinutes
        n += droppedPerMinute * 9 * tens
        if rest >= droppedPerMinute { n += droppedPerMinute * ((rest - droppedPerMinute) / perMinute) }
        let seconds = n / framesPerSecond
        return SMPTETimecode(
            hours: seconds / 3600, minutes: seconds / 60 % 60, seconds: seconds % 60, frames: n % framesPerSecond,
            framesPerSecond: framesPerSecond, dropFrame: dropFrame)!
    }

    /// "HH:MM:SS:FF" (';' before the frames when drop-frame).
    public var text: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(hours)):\(two(minutes)):\(two(seconds))\(dropFrame ? ";" : ":")\(two(frames))"
    }

    /// SMPTE 12M's time-and-flags word as OpenEXR stores it (its 60-field
    /// packing): binary-coded decimal frames in bits 0-5, the drop-frame
    /// flag in bit 6, seconds 8-14, minutes 16-22, hours 24-29; colour-frame,
    /// field-phase and binary-group flags 0. Frame numbers past 39 (50 and
    /// 60 fps) do not fit 12M's two-bit tens digit and are counted in pairs,
    /// as 12M does at those rates.
    public var packedTimeAndFlags: UInt32 {
        func bcd(_ v: Int) -> UInt32 { UInt32(v / 10) << 4 | UInt32(v % 10) }
        let frameLabel = framesPerSecond > 30 ? frames / 2 : frames
        return bcd(frameLabel) | (dropFrame ? 1 << 6 : 0) | bcd(seconds) << 8 | bcd(minutes) << 16 | bcd(hours) << 24
    }
}
