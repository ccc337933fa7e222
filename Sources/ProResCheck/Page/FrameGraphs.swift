import ProResCore
import ProResReports

/// The per-frame graphs of one checked file: luma min/mean/max, PQ/HLG
/// light (HDR only), alpha coverage (alpha only), each with the damaged,
/// not decoded, missing, black and frozen frames marked along the frame axis.
enum FrameGraphs {
    /// `previewed`: the frames on the contact sheet, marked on the luma graph.
    static func svgs(
        _ series: FrameSeries, statistics: FrameStatistics?, bitDepth: Int, sampled: Bool, previewed: [Int]
    ) -> [String] {
        let x = ChartAxis(
            "frame", unit: "index", lower: -0.5, upper: Double(max(0, series.lastFrame)) + 0.5, wholeNumbers: true)
        let frames = series.frames.map(Double.init)
        // A line joins neighbouring frames only, so a gap (a damaged frame)
        // shows; with --sample every checked frame is joined to the next.
        let breakAbove: Double? = sampled ? nil : 1
        let bands = self.bands(series, statistics: statistics)
        var charts = [
            LineChart(
                title: "Luma", x: x,
                y: ChartAxis("Y′", unit: "\(bitDepth)-bit code value", lower: 0, upper: Double((1 << bitDepth) - 1)),
                series: [
                    ChartSeries(
                        "max", colour: ChartPalette.orange, x: frames, y: series.lumaMax.map(Double.init),
                        breakAbove: breakAbove),
                    ChartSeries(
                        "mean", colour: ChartPalette.black, x: frames, y: series.lumaMean.map(Double.init),
                        breakAbove: breakAbove),
                    ChartSeries(
                        "min", colour: ChartPalette.blue, x: frames, y: series.lumaMin.map(Double.init),
                        breakAbove: breakAbove),
                ],
                bands: bands
                    + (previewed.isEmpty
                        ? []
                        : [
                            ChartBand(
                                "on the sheet", colour: ChartPalette.bluishGreen,
                                runs: previewed.map { Double($0)...Double($0) },
                                shadesPlot: false)
                        ]))
        ]
        if let peak = series.peakNits, let average = series.averageNits {
            charts.append(
                LineChart(
                    title: "Light (PQ/HLG)", x: x, y: ChartAxis("light", unit: "nits", lower: 0),
                    series: [
                        ChartSeries(
                            "peak pixel", colour: ChartPalette.vermillion, x: frames, y: peak.map(Double.init),
                            breakAbove: breakAbove),
                        ChartSeries(
                            "frame average", colour: ChartPalette.blue, x: frames, y: average.map(Double.init),
                            breakAbove: breakAbove),
                    ], bands: bands))
        }
        if let transparent = series.transparent, let opaque = series.opaque {
            charts.append(
                LineChart(
                    title: "Alpha coverage", x: x, y: ChartAxis("alpha samples", unit: "%", lower: 0, upper: 100),
                    series: [
                        ChartSeries(
                            "opaque", colour: ChartPalette.bluishGreen, x: frames, y: opaque.map { Double($0) * 100 },
                            breakAbove: breakAbove),
                        ChartSeries(
                            "transparent", colour: ChartPalette.reddishPurple, x: frames,
                            y: transparent.map { Double($0) * 100 },
                            dashed: true, breakAbove: breakAbove),
                    ], bands: bands))
        }
        return charts.map(\.svg)
    }

    /// Only the kinds of marker the file has, so a clean file's graphs stay plain.
    static func bands(_ series: FrameSeries, statistics: FrameStatistics?) -> [ChartBand] {
        func runs(_ ranges: FrameRanges) -> [ClosedRange<Double>] {
            ranges.runs.map { Double($0.lowerBound)...Double($0.upperBound) }
        }
        let all: [(String, String, FrameRanges)] = [
            ("damaged", ChartPalette.damaged, series.damaged),
            ("not decoded", ChartPalette.failed, series.notDecoded),
            ("missing", ChartPalette.missing, series.missing),
            ("black", ChartPalette.blackFrames, statistics?.black ?? FrameRanges()),
            ("frozen", ChartPalette.frozen, statistics?.frozen ?? FrameRanges()),
        ]
        return all.filter { $0.2.count > 0 }.map { ChartBand($0.0, colour: $0.1, runs: runs($0.2)) }
    }
}
