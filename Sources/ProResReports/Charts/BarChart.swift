import HostSupport

/// Horizontal bars in groups: one group per row label (a decoder, a stage),
/// one bar per series in each (p50, p95, p99), each bar labelled with its
/// value. Written as one standalone SVG element.
public struct BarChart: Sendable {
    public var title: String
    /// The value axis (along the bars).
    public var axis: ChartAxis
    /// Series names, one colour each (the legend).
    public var seriesNames: [String]
    /// Row labels and, for each, one value per series.
    public var groups: [(label: String, values: [Double])]
    public var width: Int

    public init(
        title: String, axis: ChartAxis, seriesNames: [String], groups: [(label: String, values: [Double])],
        width: Int = 720
    ) {
        precondition(groups.allSatisfy { $0.values.count == seriesNames.count }, "one value per series in every group")
        self.title = title
        self.axis = axis
        self.seriesNames = seriesNames
        self.groups = groups
        self.width = width
    }

    static let bar = 14.0, gap = 10.0, top = 46.0

    private var left: Double { min(Double(width) / 3, 16 + Double(groups.map(\.label.count).max() ?? 4) * 6.6) }
    private var plotBottom: Double {
        Self.top + Double(groups.count) * (Double(seriesNames.count) * Self.bar + Self.gap)
    }
    public var height: Int { Int(plotBottom + 40) }

    public var svg: String {
        let right = Double(width) - 64
        let high = groups.flatMap(\.values).filter(\.isFinite).max() ?? 1
        let nice = ChartScale.niceDomain(lower: 0, upper: axis.upper ?? high, count: 5)
        let xs = ChartScale(lower: 0, upper: nice.upper, from: left, to: right)
        var svg = SVGWriter()
        svg.open(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("width", "\(width)"), ("height", "\(height)"),
                ("viewBox", "0 0 \(width) \(height)"), ("role", "img"), ("font-family", "sans-serif"),
                ("font-size", "11"),
                ("class", "chart"),
            ])
        svg.text("title", [], title + " — " + axis.title)
        svg.rect(x: 0, y: 0, width: Double(width), height: Double(height), fill: "#ffffff")
        svg.text("text", [("x", "8"), ("y", "18"), ("font-weight", "bold"), ("font-size", "13")], title)
        var cursor = left
        for (i, name) in seriesNames.enumerated() {
            svg.rect(x: cursor, y: 26, width: 12, height: 10, fill: ChartPalette.series(i))
            svg.text("text", [("x", SVGWriter.number(cursor + 17)), ("y", "35")], name)
            cursor += 18 + Double(name.count) * 6.2 + 14
        }
        for value in xs.ticks(step: nice.step) {
            svg.line(x1: xs(value), y1: Self.top - 4, x2: xs(value), y2: plotBottom, stroke: "#e4e4e4")
            svg.text(
                "text",
                [
                    ("x", SVGWriter.number(xs(value))), ("y", SVGWriter.number(plotBottom + 14)),
                    ("text-anchor", "middle"),
                ],
                ChartScale.label(value, step: nice.step))
        }
        var y = Self.top
        for group in groups {
            let groupHeight = Double(seriesNames.count) * Self.bar
            svg.text(
                "text",
                [
                    ("x", SVGWriter.number(left - 6)), ("y", SVGWriter.number(y + groupHeight / 2 + 4)),
                    ("text-anchor", "end"),
                ],
                group.label)
            for (i, value) in group.values.enumerated() {
                let length = value.isFinite ? xs(value) - left : 0
                let top = y + Double(i) * Self.bar
                svg.rect(x: left, y: top + 1, width: length, height: Self.bar - 2, fill: ChartPalette.series(i))
                svg.text(
                    "text",
                    [
                        ("x", SVGWriter.number(left + length + 4)), ("y", SVGWriter.number(top + Self.bar - 3)),
                        ("font-size", "10"),
                    ],
                    value.isFinite ? JSON.number(value, digits: value < 10 ? 2 : 1) : "–")
            }
            y += groupHeight + Self.gap
        }
        svg.line(x1: left, y1: Self.top - 4, x2: left, y2: plotBottom, stroke: "#888888")
        svg.text(
            "text",
            [
                ("x", SVGWriter.number((left + right) / 2)), ("y", SVGWriter.number(plotBottom + 32)),
                ("text-anchor", "middle"),
            ],
            axis.title)
        svg.close("svg")
        return svg.markup
    }
}
