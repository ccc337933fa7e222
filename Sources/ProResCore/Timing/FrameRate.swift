import HostSupport

/// A frame rate as an exact fraction of frames per second, so that tick k of
/// a long run lands at k · denominator / numerator seconds with no drift
/// (29.97 fps is 30000/1001, not 33366667 ns repeated).
public struct FrameRate: Equatable, Sendable, CustomStringConvertible {
    public let numerator: Int
    public let denominator: Int

    /// The rates `--realtime` paces at: a tick at most a second apart keeps
    /// cancellation prompt, and a millisecond is about what a thread can wake to.
    public static let supported = 1.0...1000.0

    /// Tick times are computed as k · denominator · 10^9 / numerator in 128
    /// bits, so denominator · 10^9 must fit in 64: a larger denominator (after
    /// reducing the fraction) cannot be represented.
    public static let maximumDenominator = Int(UInt64.max / 1_000_000_000)

    /// nil unless the rate is within `supported` and, in lowest terms, its
    /// denominator at most `maximumDenominator`.
    public init?(numerator: Int, denominator: Int) {
        guard numerator > 0, denominator > 0 else { return nil }
        let (n, d) = Self.lowestTerms(numerator, denominator)
        guard d <= Self.maximumDenominator, Self.supported.contains(Double(n) / Double(d)) else { return nil }
        self.numerator = n
        self.denominator = d
    }

    /// Why `text` is not a usable `--rate`, in words, or nil when it is.
    public static func problem(parsing text: String) -> String? {
        guard FrameRate(parsing: text) == nil else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0 else {
            return "expected frames per second from 1 to 1000 (25, 29.97 or 30000/1001)"
        }
        let (rn, rd) = lowestTerms(n, d)
        if rd > maximumDenominator {
            return
                "\(rn)/\(rd) in lowest terms has a denominator above \(maximumDenominator), which nanosecond ticks cannot represent"
        }
        return "\(rn)/\(rd) is \(Double(rn) / Double(rd)) frames per second, outside 1 to 1000"
    }

    /// The fraction divided by its greatest common divisor (both positive).
    static func lowestTerms(_ n: Int, _ d: Int) -> (Int, Int) {
        var (a, b) = (n, d)
        while b != 0 { (a, b) = (b, a % b) }
        return (n / a, d / a)
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
