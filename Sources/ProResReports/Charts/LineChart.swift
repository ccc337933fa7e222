/// A chart of series over an x axis (frames, most often), with marker bands
/// under it and labelled horizontal rules, written as one standalone SVG
/// element (inline in HTML, or a file of its own).
///
/// Layout, top to bottom: the title, a legend (wrapped to the width), the
/// plot with its y axis on the left, one lane per band (its runs in solid
/// colour, named on the left), then the x axis ticks and its title.
///
/// Why series are thinned: an hour at 25 fps is 90,000 frames, and a
/// polyline of that many points is megabytes drawn into 640 pixels. Past two
/// points a pixel column, a line keeps each column's smallest and largest
/// value (spikes stay visible), an area each column's mean (stacked areas
/// still add up); bands become pixel spans, merged when they touch.
public struct LineChart: Sendable {
    public var title: String
    public var x: ChartAxis
    public var y: ChartAxis
    public var series: [ChartSeries]
    public var bands: [ChartBand]
    public var rules: [ChartRule]
    public var width: Int
    public var plotHeight: Int

    public init(
        title: String, x: ChartAxis, y: ChartAxis, series: [ChartSeries], bands: [ChartBand] = [],
        rules: [ChartRule] = [],
        width: Int = 720, plotHeight: Int = 160
    ) {
        self.title = title
        self.x = x
        self.y = y
        self.series = series
        self.bands = bands
        self.rules = rules
        self.width = width
        self.plotHeight = plotHeight
    }

    static let left = 64.0, right = 16.0, lane = 10.0, fontSize = 11.0

    /// The whole height, legend and lanes included.
    public var height: Int { Int(legendTop + Double(legendRows.count) * 16 + 8 + Double(plotHeight) + bottomSpace) }

    private var legendTop: Double { 30 }
    private var plotTop: Double { legendTop + Double(legendRows.count) * 16 + 8 }
    private var plotBottom: Double { plotTop + Double(plotHeight) }
    private var bottomSpace: Double { Double(bands.count) * Self.lane + 44 }

    /// Legend entries (colour, words, kind) laid out in rows that fit the width.
    private var legendRows: [[(colour: String, name: String, kind: Int, x: Double)]] {
        let entries =
            series.map { ($0.colour, $0.name, $0.style == .area ? 0 : 1) } + bands.map { ($0.colour, $0.name, 0) }
            + rules.map { ($0.colour, $0.name, 2) }
        var rows: [[(colour: String, name: String, kind: Int, x: Double)]] = [[]]
        var cursor = Self.left
        for (colour, name, kind) in entries {
            let advance = 18 + Double(name.count) * 6.2 + 14
            if cursor + advance > Double(width) - Self.right, !rows[rows.count - 1].isEmpty {
                rows.append([])
                cursor = Self.left
            }
            rows[rows.count - 1].append((colour, name, kind, cursor))
            cursor += advance
        }
        return rows.last!.isEmpty && rows.count == 1 ? [] : rows
    }

    private var xDomain: (Double, Double) {
        let xs =
            series.flatMap { [$0.x.first, $0.x.last].compactMap { $0 } }
            + bands.flatMap { $0.runs.flatMap { [$0.lowerBound, $0.upperBound] } }
        return (x.lower ?? xs.min() ?? 0, x.upper ?? xs.max() ?? 1)
    }

    private var yDomain: (lower: Double, upper: Double, step: Double) {
        let values = series.flatMap { $0.y + ($0.lower ?? []) }.filter(\.isFinite) + rules.map(\.value)
        let low = y.lower ?? min(0, values.min() ?? 0)
        let high = y.upper ?? (values.max() ?? 1)
        if y.lower != nil, y.upper != nil {
            return (low, high, ChartScale.tickStep(span: high - low, count: 5))
        }
        let nice = ChartScale.niceDomain(lower: low, upper: high, count: 5)
        return (y.lower ?? nice.lower, y.upper ?? nice.upper, nice.step)
    }

    public var svg: String {
        let plotLeft = Self.left
        let plotRight = Double(width) - Self.right
        let (xLow, xHigh) = xDomain
        let xs = ChartScale(lower: xLow, upper: xHigh, from: plotLeft, to: plotRight)
        let yd = yDomain
        let ys = ChartScale(lower: yd.lower, upper: yd.upper, from: plotBottom, to: plotTop)
        var svg = SVGWriter()
        svg.open(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("width", "\(width)"), ("height", "\(height)"),
                ("viewBox", "0 0 \(width) \(height)"), ("role", "img"), ("font-family", "sans-serif"),
                ("font-size", SVGWriter.number(Self.fontSize)), ("class", "chart"),
            ])
        svg.text("title", [], title + " — " + y.title + " by " + x.title)
        svg.rect(x: 0, y: 0, width: Double(width), height: Double(height), fill: "#ffffff")
        svg.text(
            "text", [("x", SVGWriter.number(plotLeft)), ("y", "18"), ("font-weight", "bold"), ("font-size", "13")],
            title)
        drawLegend(&svg)

        // Grid and y axis.
        for value in ys.ticks(step: yd.step) {
            let py = ys(value)
            svg.line(x1: plotLeft, y1: py, x2: plotRight, y2: py, stroke: "#e4e4e4")
            svg.text(
                "text",
                [("x", SVGWriter.number(plotLeft - 6)), ("y", SVGWriter.number(py + 4)), ("text-anchor", "end")],
                ChartScale.label(value, step: yd.step))
        }
        svg.text(
            "text",
            [
                ("transform", "translate(14,\(SVGWriter.number((plotTop + plotBottom) / 2))) rotate(-90)"),
                ("text-anchor", "middle"),
            ], y.title)

        // Bands: a light shade over the plot, solid runs in their lanes.
        for (i, band) in bands.enumerated() {
            let laneTop = plotBottom + 4 + Double(i) * Self.lane
            svg.text(
                "text",
                [
                    ("x", SVGWriter.number(plotLeft - 6)), ("y", SVGWriter.number(laneTop + 7)), ("text-anchor", "end"),
                    ("font-size", "9"),
                ], band.name)
            svg.rect(x: plotLeft, y: laneTop, width: plotRight - plotLeft, height: Self.lane - 3, fill: "#f2f2f2")
            for span in Self.pixelSpans(band.runs, xs) {
                if band.shadesPlot {
                    svg.rect(
                        x: span.0, y: plotTop, width: span.1 - span.0, height: plotBottom - plotTop, fill: band.colour,
                        opacity: 0.14)
                }
                svg.rect(x: span.0, y: laneTop, width: span.1 - span.0, height: Self.lane - 3, fill: band.colour)
            }
        }

        // Series: areas first so lines stay on top.
        let columns = Int(plotRight - plotLeft)
        for s in series where s.style == .area { drawArea(&svg, Self.thinned(s, xs, columns: columns), xs, ys) }
        for s in series where s.style == .line { drawLine(&svg, Self.thinned(s, xs, columns: columns), xs, ys) }
        // A label that would overlap one already placed moves to the other end
        // (p95 and p99 are often a few pixels apart), then above or below it.
        var placed: [(y: Double, atRight: Bool)] = []
        for rule in rules {
            let py = ys(rule.value)
            svg.line(x1: plotLeft, y1: py, x2: plotRight, y2: py, stroke: rule.colour, width: 1.2, dashed: true)
            var labelY = py - 3
            var atRight = true
            for _ in 0..<4 {
                guard let clash = placed.first(where: { $0.atRight == atRight && abs($0.y - labelY) < 11 }) else {
                    break
                }
                if atRight {
                    atRight = false
                } else {
                    labelY = clash.y + 11
                    atRight = true
                }
            }
            placed.append((labelY, atRight))
            svg.text(
                "text",
                [
                    ("x", SVGWriter.number(atRight ? plotRight - 2 : plotLeft + 2)), ("y", SVGWriter.number(labelY)),
                    ("text-anchor", atRight ? "end" : "start"), ("fill", rule.colour), ("font-size", "10"),
                ], rule.name)
        }
        svg.element(
            "rect",
            [
                ("x", SVGWriter.number(plotLeft)), ("y", SVGWriter.number(plotTop)),
                ("width", SVGWriter.number(plotRight - plotLeft)), ("height", SVGWriter.number(plotBottom - plotTop)),
                ("fill", "none"), ("stroke", "#888888"),
            ])
        if series.allSatisfy({ $0.x.isEmpty }) {
            svg.text(
                "text",
                [
                    ("x", SVGWriter.number((plotLeft + plotRight) / 2)),
                    ("y", SVGWriter.number((plotTop + plotBottom) / 2)),
                    ("text-anchor", "middle"), ("fill", "#666666"),
                ], "no data")
        }

        // The x axis under the lanes.
        let axisTop = plotBottom + 4 + Double(bands.count) * Self.lane
        let step = ChartScale.tickStep(span: xHigh - xLow, count: max(2, columns / 80))
        let xStep = x.wholeNumbers ? max(1, step) : step
        for value in xs.ticks(step: xStep) {
            let px = xs(value)
            svg.line(x1: px, y1: axisTop, x2: px, y2: axisTop + 4, stroke: "#888888")
            svg.text(
                "text",
                [("x", SVGWriter.number(px)), ("y", SVGWriter.number(axisTop + 16)), ("text-anchor", "middle")],
                ChartScale.label(value, step: xStep))
        }
        svg.text(
            "text",
            [
                ("x", SVGWriter.number((plotLeft + plotRight) / 2)), ("y", SVGWriter.number(axisTop + 34)),
                ("text-anchor", "middle"),
            ], x.title)
        svg.close("svg")
        return svg.markup
    }

    private func drawLegend(_ svg: inout SVGWriter) {
        for (row, entries) in legendRows.enumerated() {
            let top = legendTop + Double(row) * 16
            for entry in entries {
                switch entry.kind {
                case 0: svg.rect(x: entry.x, y: top - 9, width: 12, height: 10, fill: entry.colour)
                case 1:
                    svg.line(x1: entry.x, y1: top - 4, x2: entry.x + 12, y2: top - 4, stroke: entry.colour, width: 2.5)
                default:
                    svg.line(
                        x1: entry.x, y1: top - 4, x2: entry.x + 12, y2: top - 4, stroke: entry.colour, width: 1.5,
                        dashed: true)
                }
                svg.text("text", [("x", SVGWriter.number(entry.x + 17)), ("y", SVGWriter.number(top))], entry.name)
            }
        }
    }

    /// Consecutive runs of points, split where x jumps past `breakAbove`.
    private static func segments(_ s: ChartSeries) -> [Range<Int>] {
        guard !s.x.isEmpty else { return [] }
        guard let limit = s.breakAbove else { return [0..<s.x.count] }
        var result: [Range<Int>] = []
        var start = 0
        for i in 1..<max(1, s.x.count) where s.x[i] - s.x[i - 1] > limit {
            result.append(start..<i)
            start = i
        }
        return result + [start..<s.x.count]
    }

    private func drawLine(_ svg: inout SVGWriter, _ s: ChartSeries, _ xs: ChartScale, _ ys: ChartScale) {
        for segment in Self.segments(s) {
            if segment.count == 1 {
                let i = segment.lowerBound
                svg.element(
                    "circle",
                    [
                        ("cx", SVGWriter.number(xs(s.x[i]))), ("cy", SVGWriter.number(ys(s.y[i]))), ("r", "2"),
                        ("fill", s.colour),
                    ])
                continue
            }
            var attributes = [
                ("points", SVGWriter.points(segment.map { (xs(s.x[$0]), ys(s.y[$0])) })), ("fill", "none"),
                ("stroke", s.colour), ("stroke-width", "1.5"), ("stroke-linejoin", "round"),
            ]
            if s.dashed { attributes.append(("stroke-dasharray", "5 3")) }
            svg.element("polyline", attributes)
        }
    }

    private func drawArea(_ svg: inout SVGWriter, _ s: ChartSeries, _ xs: ChartScale, _ ys: ChartScale) {
        for segment in Self.segments(s) {
            let top = segment.map { (xs(s.x[$0]), ys(s.y[$0])) }
            let bottom = segment.reversed().map { i in (xs(s.x[i]), s.lower.map { ys($0[i]) } ?? ys.from) }
            svg.element(
                "polygon",
                [
                    ("points", SVGWriter.points(top + bottom)), ("fill", s.colour), ("fill-opacity", "0.85"),
                    ("stroke", s.colour), ("stroke-width", "0.5"),
                ])
        }
    }

    /// The series with at most two points (line) or one (area) a pixel column.
    static func thinned(_ s: ChartSeries, _ xs: ChartScale, columns: Int) -> ChartSeries {
        guard columns > 0, s.x.count > 2 * columns else { return s }
        var out = ChartSeries(
            s.name, colour: s.colour, x: [], y: [], lower: s.lower == nil ? nil : [], style: s.style, dashed: s.dashed)
        var i = 0
        while i < s.x.count {
            let column = Int(xs(s.x[i]) - xs.from)
            var j = i
            while j < s.x.count, Int(xs(s.x[j]) - xs.from) == column { j += 1 }
            let bucket = i..<j
            let centre = bucket.map { s.x[$0] }.reduce(0, +) / Double(bucket.count)
            switch s.style {
            case .area:
                out.x.append(centre)
                out.y.append(bucket.map { s.y[$0] }.reduce(0, +) / Double(bucket.count))
                if let lower = s.lower {
                    out.lower!.append(bucket.map { lower[$0] }.reduce(0, +) / Double(bucket.count))
                }
            case .line:
                guard let low = bucket.min(by: { s.y[$0] < s.y[$1] }), let high = bucket.max(by: { s.y[$0] < s.y[$1] })
                else { break }
                for k in low == high ? [low] : [min(low, high), max(low, high)] {
                    out.x.append(centre)
                    out.y.append(s.y[k])
                }
            }
            i = j
        }
        return out
    }

    /// Each run as a pixel span at least 1 px wide, each frame reaching half
    /// a frame either side of its index; spans that touch are merged.
    static func pixelSpans(_ runs: [ClosedRange<Double>], _ xs: ChartScale) -> [(Double, Double)] {
        var spans: [(Double, Double)] = []
        for run in runs.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            var a = max(xs.from, xs(run.lowerBound - 0.5))
            var b = min(xs.to, xs(run.upperBound + 0.5))
            if b - a < 1 { (a, b) = (min(a, xs.to - 1), min(a, xs.to - 1) + 1) }
            if let last = spans.last, a <= last.1 + 0.5 {
                spans[spans.count - 1].1 = max(last.1, b)
            } else {
                spans.append((a, b))
            }
        }
        return spans
    }
}
