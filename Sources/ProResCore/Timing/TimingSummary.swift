import HostSupport

/// Percentiles of a set of samples by the nearest-rank method: p is the
/// smallest value with at least p% of the samples at or below it.
public struct Percentiles: Equatable, Sendable {
    public let p50: Double
    public let p95: Double
    public let p99: Double
    public let mean: Double
    public let max: Double

    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double {
            let r = Int((p / 100 * Double(sorted.count)).rounded(.up))
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, r - 1))]
        }
        p50 = rank(50)
        p95 = rank(95)
        p99 = rank(99)
        mean = sorted.reduce(0, +) / Double(sorted.count)
        max = sorted[sorted.count - 1]
    }
}

/// The end-of-run summary: throughput and per-stage percentiles.
public struct TimingSummary: Sendable {
    public let frames: Int
    public let seconds: Double
    public let stages: [(name: String, percentiles: Percentiles)]
    /// GPU time of each `--effect` pass (named by its spec), over the frames that went through it.
    public let effects: [(effect: Effect, percentiles: Percentiles)]

    public init(timings: [FrameTiming], seconds: Double, effects: [Effect] = []) {
        frames = timings.count
        self.seconds = seconds
        // Stage names in first-seen order; a stage only some frames went
        // through (GPU stages of failed frames) is summarised over those.
        var names: [String] = []
        var values: [String: [Double]] = [:]
        for timing in timings {
            for (name, microseconds) in timing.stages {
                if values[name] == nil { names.append(name) }
                values[name, default: []].append(microseconds)
            }
        }
        stages = names.compactMap { name in Percentiles(values[name]!).map { (name, $0) } }
        self.effects = effects.enumerated().compactMap { i, effect in
            Percentiles(timings.compactMap { $0.gpuEffects.flatMap { i < $0.count ? $0[i] : nil } }).map {
                (effect, $0)
            }
        }
    }

    public var framesPerSecond: Double { seconds > 0 ? Double(frames) / seconds : 0 }

    public var text: String {
        var lines = [
            "\(frames) frames in \(JSON.number(seconds, digits: 3)) s: \(JSON.number(framesPerSecond, digits: 2)) fps"
        ]
        lines.append("stage           p50 µs      p95 µs      p99 µs     mean µs")
        func row(_ name: String, _ p: Percentiles) -> String {
            name.padding(11)
                + [p.p50, p.p95, p.p99, p.mean].map { JSON.number($0, digits: 1).leftPadding(12) }.joined()
        }
        lines += stages.map { row($0.name, $0.percentiles) }
        lines += effects.map { row($0.effect.name, $0.percentiles) }
        return lines.joined(separator: "\n")
    }

    public var jsonFields: [(String, String)] {
        [
            ("frames", "\(frames)"), ("seconds", JSON.number(seconds, digits: 6)),
            ("fps", JSON.number(framesPerSecond, digits: 3)),
            (
                "stages_us",
                JSON.object(
                    stages.map { name, p in
                        (
                            name,
                            JSON.object([
                                ("p50", JSON.number(p.p50)), ("p95", JSON.number(p.p95)), ("p99", JSON.number(p.p99)),
                                ("mean", JSON.number(p.mean)), ("max", JSON.number(p.max)),
                            ])
                        )
                    })
            ),
        ]
            + (effects.isEmpty
                ? []
                : [
                    (
                        "effects_us",
                        JSON.array(
                            effects.map { effect, p in
                                JSON.object([
                                    ("effect", JSON.string(effect.description)), ("p50", JSON.number(p.p50)),
                                    ("p95", JSON.number(p.p95)),
                                    ("p99", JSON.number(p.p99)), ("mean", JSON.number(p.mean)),
                                    ("max", JSON.number(p.max)),
                                ])
                            })
                    )
                ])
    }
}
