import HostSupport
import ProResCore
import ProResReports

/// One input's benchmark: what was decoded and each decoder's result.
public struct BenchRun: Sendable {
    public let input: String
    public let format: FormatDescription
    public let frameBytes: Int
    public let results: [DecoderBenchmark.Result]

    public init(input: String, format: FormatDescription, frameBytes: Int, results: [DecoderBenchmark.Result]) {
        self.input = input
        self.format = format
        self.frameBytes = frameBytes
        self.results = results
    }
}

/// The charts of `bench --html` and `bench --svg`: fps per decoder, each
/// decoder's per-stage p50/p95/p99, and each input's per-frame latency
/// timeline with the p50 and p99 of every decoder marked.
public enum BenchCharts {
    public static func charts(_ runs: [BenchRun]) -> [(svg: String, height: Int)] {
        var charts: [(svg: String, height: Int)] = []
        let decoders = orderedDecoders(runs)
        if !runs.isEmpty {
            let fps = BarChart(
                title: "Throughput", axis: ChartAxis("decoded", unit: "frames per second"),
                seriesNames: decoders.map(\.rawValue),
                groups: runs.map { run in
                    (name(run.input), decoders.map { d in run.results.first { $0.path == d }?.framesPerSecond ?? .nan })
                })
            charts.append((fps.svg, fps.height))
        }
        for run in runs {
            for result in run.results {
                let stages = BarChart(
                    title: "\(name(run.input)): \(result.path.rawValue) stages",
                    axis: ChartAxis("time per frame", unit: "µs"), seriesNames: ["p50", "p95", "p99"],
                    groups: result.stages.map {
                        ($0.name, [$0.percentiles.p50, $0.percentiles.p95, $0.percentiles.p99])
                    })
                charts.append((stages.svg, stages.height))
            }
            let timeline = latencyTimeline(run, decoders: decoders)
            charts.append((timeline.svg, timeline.height))
        }
        return charts
    }

    /// Every decoder's latency by frame, in the order frames came out.
    static func latencyTimeline(_ run: BenchRun, decoders: [DecoderBenchmark.Path]) -> LineChart {
        var series: [ChartSeries] = []
        var rules: [ChartRule] = []
        for result in run.results {
            let colour = ChartPalette.series(decoders.firstIndex(of: result.path) ?? 0)
            series.append(
                ChartSeries(
                    result.path.rawValue, colour: colour, x: result.latencies.indices.map(Double.init),
                    y: result.latencies))
            if let p = Percentiles(result.latencies) {
                rules.append(
                    ChartRule(
                        "\(result.path.rawValue) p50 \(JSON.number(p.p50, digits: 0)) µs", colour: colour, value: p.p50)
                )
                rules.append(
                    ChartRule(
                        "\(result.path.rawValue) p99 \(JSON.number(p.p99, digits: 0)) µs", colour: colour, value: p.p99)
                )
            }
        }
        return LineChart(
            title: "\(name(run.input)): decode latency per frame",
            x: ChartAxis("frame", unit: "output order", wholeNumbers: true),
            y: ChartAxis("latency", unit: "µs", lower: 0), series: series, rules: rules)
    }

    /// An input's file name: chart labels have little room (the page's tables give the path).
    static func name(_ input: String) -> String { input.split(separator: "/").last.map(String.init) ?? input }

    /// Decoders in the order they first ran, one colour each across charts.
    static func orderedDecoders(_ runs: [BenchRun]) -> [DecoderBenchmark.Path] {
        var seen: [DecoderBenchmark.Path] = []
        for result in runs.flatMap(\.results) where !seen.contains(result.path) { seen.append(result.path) }
        return seen
    }

    /// `bench --svg`: every chart, one above the other, in one SVG document.
    public static func svgDocument(_ runs: [BenchRun]) -> String {
        ChartDocument.stack(
            charts(runs), width: 720, title: "prores-decode bench: " + runs.map(\.input).joined(separator: ", "))
    }
}
