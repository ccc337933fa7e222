import HostSupport
import ProResCore
import ProResPipeline
import ProResReports

/// `prores-decode plot TIMING.jsonl -o FILE.svg`: a `--timing` log as one
/// SVG chart. Each frame's stages stacked (demux, decode, pack, output, then
/// the GPU stages when there are any), its latency as a line over them, the
/// latency's p50/p95/p99 as dashed rules, and damaged, failed, late and
/// dropped frames marked along the frame axis.
///
/// Stacked, the stages show where each frame's time went; the latency line
/// can sit above the stack (time spent waiting in queues between stages) or
/// below it (with frame threads, a frame's decode overlaps others').
public enum TimingPlot {
    public static func svg(_ log: TimingLog, title: String) -> String {
        let x = log.frames.map { Double($0.index) }
        var running = Array(repeating: 0.0, count: log.frames.count)
        var series: [ChartSeries] = []
        for (i, name) in log.stageNames.enumerated() {
            let lower = running
            for (k, frame) in log.frames.enumerated() { running[k] += frame.stages[name] ?? 0 }
            series.append(
                ChartSeries(name, colour: ChartPalette.series(i + 1), x: x, y: running, lower: lower, style: .area))
        }
        let timed = log.frames.filter { $0.latency != nil }
        var rules: [ChartRule] = []
        if !timed.isEmpty {
            series.append(
                ChartSeries(
                    "latency", colour: ChartPalette.black, x: timed.map { Double($0.index) },
                    y: timed.map { $0.latency! }))
            if let p = Percentiles(timed.map { $0.latency! }) {
                rules = [("p50", p.p50), ("p95", p.p95), ("p99", p.p99)].map { name, value in
                    ChartRule(
                        "latency \(name) \(JSON.number(value, digits: 0)) µs", colour: ChartPalette.vermillion,
                        value: value)
                }
            }
        }
        func runs(_ status: String) -> [ClosedRange<Double>] {
            var ranges = FrameRanges()
            for frame in log.frames where frame.status == status { ranges.add(frame.index) }
            return ranges.runs.map { Double($0.lowerBound)...Double($0.upperBound) }
        }
        var bands: [ChartBand] = []
        for (name, colour, band) in [
            ("damaged", ChartPalette.damaged, runs("damaged")), ("failed", ChartPalette.failed, runs("failed")),
            ("late", ChartPalette.late, log.lateFrames.map { Double($0.lowerBound)...Double($0.upperBound) }),
            ("dropped", ChartPalette.dropped, log.droppedFrames.map { Double($0.lowerBound)...Double($0.upperBound) }),
        ]
        where !band.isEmpty {
            bands.append(ChartBand(name, colour: colour, runs: band))
        }
        let first = log.frames.map(\.index).min() ?? 0
        let last = log.frames.map(\.index).max() ?? 0
        let chart = LineChart(
            title: title,
            x: ChartAxis(
                "frame", unit: "index", lower: Double(first) - 0.5, upper: Double(last) + 0.5,
                wholeNumbers: true),
            y: ChartAxis("time per frame", unit: "µs", lower: 0), series: series, bands: bands, rules: rules,
            width: 900, plotHeight: 300)
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + chart.svg + "\n"
    }
}
