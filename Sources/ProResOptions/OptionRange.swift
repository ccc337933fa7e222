/// The numbers an option accepts, declared once with the option
/// (`OptionSpec.range`): the parser refuses anything else with these words,
/// and `--help` shows them. Each range is what produces finite, meaningful
/// output (docs/inputs.md says why for each).
package enum OptionRange: Sendable, Equatable {
    /// Whole numbers, both ends included.
    case integer(ClosedRange<Int>)
    /// Finite numbers from `lower` (excluded when `lowerExcluded`) to `upper` (included).
    case real(lower: Double, upper: Double, lowerExcluded: Bool)

    /// "a whole number from 1 to 256", "a number above 0, at most 604800".
    package var words: String {
        switch self {
        case .integer(let range):
            return range.upperBound == Int.max
                ? "a whole number ≥ \(range.lowerBound)"
                : "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .real(let lower, let upper, let excluded):
            return excluded
                ? "a number above \(Self.text(lower)), at most \(Self.text(upper))"
                : "a number from \(Self.text(lower)) to \(Self.text(upper))"
        }
    }

    /// What `--help` adds to the option's line.
    package var helpNote: String {
        switch self {
        case .integer(let range):
            return range.upperBound == Int.max
                ? "[≥ \(range.lowerBound)]" : "[\(range.lowerBound) to \(range.upperBound)]"
        case .real(let lower, let upper, let excluded):
            return excluded
                ? "[above \(Self.text(lower)), at most \(Self.text(upper))]"
                : "[\(Self.text(lower)) to \(Self.text(upper))]"
        }
    }

    package func contains(_ value: Double) -> Bool {
        switch self {
        case .integer(let range):
            return value.rounded() == value && Double(range.lowerBound) <= value && value <= Double(range.upperBound)
        case .real(let lower, let upper, let excluded):
            return value.isFinite && (excluded ? value > lower : value >= lower) && value <= upper
        }
    }

    private static func text(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
