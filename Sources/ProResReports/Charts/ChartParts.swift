/// An axis: what it measures and in which unit ("frame", "µs", "nits").
public struct ChartAxis: Sendable {
    public var label: String
    public var unit: String
    /// Forced domain ends; nil: from the data (and, for y, rounded out to ticks).
    public var lower: Double?
    public var upper: Double?
    /// Ticks only on whole numbers (frame indices).
    public var wholeNumbers: Bool

    public init(_ label: String, unit: String, lower: Double? = nil, upper: Double? = nil, wholeNumbers: Bool = false) {
        self.label = label
        self.unit = unit
        self.lower = lower
        self.upper = upper
        self.wholeNumbers = wholeNumbers
    }

    /// "luma (code value)", or the label alone without a unit.
    public var title: String { unit.isEmpty ? label : "\(label) (\(unit))" }
}

/// One series of a line chart, points in ascending x.
public struct ChartSeries: Sendable {
    public enum Style: Sendable {
        /// A line through the points.
        case line
        /// Filled between `lower` (or the x axis) and the points.
        case area
    }

    public var name: String
    public var colour: String
    public var x: [Double]
    public var y: [Double]
    /// For `.area`: the bottom edge at each x (a stacked chart passes the
    /// running total below); nil: the bottom of the plot.
    public var lower: [Double]?
    public var style: Style
    public var dashed: Bool
    /// A line is broken where consecutive x differ by more than this
    /// (frames left out of a series, say); nil: never broken.
    public var breakAbove: Double?

    public init(
        _ name: String, colour: String, x: [Double], y: [Double], lower: [Double]? = nil, style: Style = .line,
        dashed: Bool = false, breakAbove: Double? = nil
    ) {
        precondition(x.count == y.count && (lower?.count ?? x.count) == x.count, "one y (and lower) per x")
        self.name = name
        self.colour = colour
        self.x = x
        self.y = y
        self.lower = lower
        self.style = style
        self.dashed = dashed
        self.breakAbove = breakAbove
    }
}

/// Runs of x values marked on the x axis (damaged, black or frozen frames;
/// late or dropped frames), each run as wide as its frames, in a lane of its
/// own under the plot and as a light shade over it.
public struct ChartBand: Sendable {
    public var name: String
    public var colour: String
    public var runs: [ClosedRange<Double>]
    /// Also shade the plot above the runs; false for a band that only
    /// informs (frames on a contact sheet), so problems stand out.
    public var shadesPlot: Bool

    public init(_ name: String, colour: String, runs: [ClosedRange<Double>], shadesPlot: Bool = true) {
        self.name = name
        self.colour = colour
        self.runs = runs
        self.shadesPlot = shadesPlot
    }
}

/// A horizontal line at one y value, labelled (a percentile, a limit).
public struct ChartRule: Sendable {
    public var name: String
    public var colour: String
    public var value: Double

    public init(_ name: String, colour: String, value: Double) {
        self.name = name
        self.colour = colour
        self.value = value
    }
}
