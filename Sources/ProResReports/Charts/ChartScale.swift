import HostSupport

/// A linear map from data values to SVG coordinates, with "nice" tick
/// values (1, 2 or 5 × a power of ten) for the axis.
struct ChartScale: Sendable, Equatable {
    public let lower: Double
    public let upper: Double
    /// The SVG coordinates `lower` and `upper` land on (`from` may exceed
    /// `to`: y grows downwards in SVG).
    public let from: Double
    public let to: Double

    public init(lower: Double, upper: Double, from: Double, to: Double) {
        // A flat domain (one frame, a constant series) still needs a width.
        let (low, high) = upper > lower ? (lower, upper) : (lower - 0.5, lower + 0.5)
        self.lower = low
        self.upper = high
        self.from = from
        self.to = to
    }

    public func callAsFunction(_ value: Double) -> Double {
        from + (value - lower) / (upper - lower) * (to - from)
    }

    /// The spacing of about `count` ticks over `span`: 1, 2 or 5 × 10^k.
    public static func tickStep(span: Double, count: Int) -> Double {
        guard span > 0, span.isFinite, count > 0 else { return 1 }
        let raw = span / Double(count)
        var power = 1.0
        while power * 10 <= raw { power *= 10 }
        while power > raw { power /= 10 }
        let mantissa = raw / power
        return (mantissa <= 1 ? 1 : mantissa <= 2 ? 2 : mantissa <= 5 ? 5 : 10) * power
    }

    /// `lower`...`upper` widened to whole tick steps (a y axis that starts and
    /// ends on a labelled tick).
    public static func niceDomain(lower: Double, upper: Double, count: Int) -> (
        lower: Double, upper: Double, step: Double
    ) {
        let high = upper > lower ? upper : lower + 1
        let step = tickStep(span: high - lower, count: count)
        return ((lower / step).rounded(.down) * step, (high / step).rounded(.up) * step, step)
    }

    /// Tick values within the domain, every `step`.
    public func ticks(step: Double) -> [Double] {
        guard step > 0 else { return [] }
        var values: [Double] = []
        var k = (lower / step).rounded(.up)
        while k * step <= upper + step * 1e-9, values.count < 1000 {
            values.append(k * step)
            k += 1
        }
        return values
    }

    /// A tick label with as many decimals as the step needs (0.25 → 2, 50 → 0).
    public static func label(_ value: Double, step: Double) -> String {
        var digits = 0
        var scaled = step
        while scaled < 1 && digits < 9 {
            scaled *= 10
            digits += 1
        }
        return JSON.number(value, digits: digits)
    }
}
