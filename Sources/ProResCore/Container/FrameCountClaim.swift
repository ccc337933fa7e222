/// A container's frame count, duration or index size is a claim made by the
/// file, not a fact: a forged or damaged header can state 2^63 frames for a
/// 70 KB file. Each claim is converted with arithmetic that cannot trap and
/// judged against what the file can hold before anything uses it.
public enum FrameCountClaim {
    /// The fewest bytes a stored ProRes frame takes: its 20-byte frame header
    /// (Matroska stores frames without their 8-byte size and 'icpf').
    public static let minimumFrameBytes = 20

    /// The most frames `bytes` of file can hold.
    public static func limit(fileBytes bytes: Int) -> Int { max(0, bytes) / minimumFrameBytes }

    /// Frames in `duration` ticks of `timeBase` seconds at `rate` frames per
    /// second, rounded; nil when a part is not positive or the result is not
    /// a plausible count (beyond 2^53, where Double stops counting exactly).
    public static func frames(
        duration: Int64, timeBase: (numerator: Int, denominator: Int),
        rate: (numerator: Int, denominator: Int)
    ) -> Int? {
        guard duration > 0, timeBase.numerator > 0, timeBase.denominator > 0,
            rate.numerator > 0, rate.denominator > 0
        else { return nil }
        let seconds = Double(duration) * Double(timeBase.numerator) / Double(timeBase.denominator)
        let frames = (seconds * Double(rate.numerator) / Double(rate.denominator)).rounded()
        guard frames.isFinite, frames >= 0, frames <= 9_007_199_254_740_992 else { return nil }
        return Int(frames)
    }

    /// Seconds in a Matroska-style "HH:MM:SS.nnnnnnnnn" duration tag (what
    /// FFmpeg's muxer writes per track), as ticks of 1/1e9 s.
    public static func nanoseconds(durationTag text: String) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hours = Int64(parts[0]), let minutes = Int64(parts[1]),
            hours >= 0, hours < 1_000_000, minutes >= 0, minutes < 60
        else { return nil }
        let secondParts = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(secondParts.count), let seconds = Int64(secondParts[0]), seconds >= 0, seconds < 60
        else { return nil }
        var fraction: Int64 = 0
        if secondParts.count == 2 {
            let digits = secondParts[1].prefix(9)
            guard !digits.isEmpty, let value = Int64(digits), value >= 0 else { return nil }
            fraction = value * Int64(pow10(9 - digits.count))
        }
        return ((hours * 60 + minutes) * 60 + seconds) * 1_000_000_000 + fraction
    }

    private static func pow10(_ n: Int) -> Int { (0..<n).reduce(1) { result, _ in result * 10 } }

    /// `claim` judged against `fileBytes` (nil: unknown, as for a pipe): the
    /// count to use, and when the claim is impossible, words saying so.
    public static func judge(_ claim: Int?, fileBytes: Int?) -> (count: Int?, overstated: String?) {
        guard let claim, let fileBytes, claim > limit(fileBytes: fileBytes) else { return (claim, nil) }
        return (nil, "the container claims \(claim) frames, more than its \(fileBytes) bytes can hold")
    }
}
