/// A frame rate as an exact fraction of frames per second, so that tick k of
/// a long run lands at k · denominator / numerator seconds with no drift
/// (29.97 fps is 30000/1001, not 33366667 ns repeated).
public struct FrameRate: Equatable, Sendable, CustomStringConvertible {
    public let numerator: Int
    public let denominator: Int

    /// The rates `--realtime` paces at: a tick at most a second apart keeps
    /// cancellation prompt, and a millisecond is about what a thread can wake to.
    public static let supported = 1.0...1000.0

    public init?(numerator: Int, denominator: Int) {
        guard numerator > 0, denominator > 0, Self.supported.contains(Double(numerator) / Double(denominator)) else { return nil }
        self.numerator = numerator
        self.denominator = denominator
    }

    /// `--rate`: "25", "29.97" (kept to 1/1000 fps) or "30000/1001".
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]) {
            self.init(numerator: n, denominator: d)
        } else if parts.count == 1, let fps = Double(text), fps.isFinite, Self.supported.contains(fps) {
            self.init(numerator: Int((fps * 1000).rounded()), denominator: 1000)
        } else {
            return nil
        }
    }

    public var framesPerSecond: Double { Double(numerator) / Double(denominator) }

    /// Nanoseconds from tick 0 to tick `k`, exact to the nanosecond below.
    public func nanoseconds(ticks k: Int) -> UInt64 {
        let (high, low) = UInt64(k).multipliedFullWidth(by: UInt64(denominator) * 1_000_000_000)
        return UInt64(numerator).dividingFullWidth((high, low)).quotient
    }

    /// The last tick at or before `nanoseconds` after tick 0.
    public func ticks(in nanoseconds: UInt64) -> Int {
        let (high, low) = nanoseconds.multipliedFullWidth(by: UInt64(numerator))
        return Int((UInt64(denominator) * 1_000_000_000).dividingFullWidth((high, low)).quotient)
    }

    public var description: String {
        denominator == 1 ? "\(numerator)" : JSON.number(framesPerSecond, digits: 3)
    }
}
