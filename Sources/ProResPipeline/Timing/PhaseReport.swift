import HostSupport
import ProResCore

/// Where a process's time went, phase by phase (`--phases`): the spans
/// `Trace` kept, each named span belonging to one phase, and every
/// nanosecond from `start` (main's first statement) to `end` (just before
/// exit) attributed to at most one phase, so that the phases add up to no
/// more than the time the process ran. Where spans overlap (the device made
/// on one thread while the container opens on another), the instant goes
/// to the span that began last; waits and spans that enclose others (the
/// main thread waiting for the device, the whole decode run) get only the
/// instants no other span covers. Instants no span covers are `unattributed`.
public struct PhaseReport: Sendable {
    public struct Phase: Sendable {
        public let name: String
        /// What it covers, for people reading the report.
        public let about: String
        /// Nanoseconds attributed to it.
        public let nanoseconds: UInt64
        /// Its spans' first start and last end (nil: none ran).
        public let first: UInt64?
        public let last: UInt64?
        /// Spans counted for it.
        public let spans: Int
    }

    public let start: UInt64
    public let end: UInt64
    /// Every phase, in the order a decode meets them, those that did not run included.
    public let phases: [Phase]
    public let unattributed: UInt64
    /// Work the process exited without waiting for (the Vulkan device
    /// still starting when a short job ended): its spans never ended, so
    /// none of its time is in the phases.
    public let leftRunning: [String]

    /// How a span counts: its phase; `firstOnly`: per-frame work, whose
    /// first occurrence alone belongs to the phase (the first frame's way
    /// through); `background`: a wait or an enclosing span.
    struct Rule {
        let phase: String
        var firstOnly = false
        var background = false
    }

    /// The phases in order, with what each covers.
    public static let phaseNames: [(name: String, about: String)] = [
        ("command_line", "main() to the command's start: settings, arguments, the output-safety check"),
        ("vulkan_instance", "the Vulkan loader and instance"),
        ("vulkan_device", "the physical devices listed, the device made, the wait for it"),
        ("pipelines", "the kernels' SPIR-V and the driver's pipelines, the pipeline cache loaded"),
        ("container_open", "the input opened and its format read"),
        ("first_sample_read", "the first sample read from the file"),
        ("session_setup", "the decode session and the GPU stage: buffers, threads"),
        ("first_upload", "the first batch parsed, staged and submitted (its upload)"),
        ("first_decode", "the first batch on the GPU: upload where the device copies it, entropy decoding, transform"),
        ("first_conversion", "the first frame's conversion submitted and done on the GPU (--vulkan)"),
        ("output", "the first frame's handler and sinks, and the summary"),
        ("other_decoding", "the rest of the decode run: later frames, hand-offs between threads"),
        ("teardown", "after the summary: the run released, devices idle, the trace written, up to exit"),
    ]

    static let rules: [String: Rule] = [
        "command line read": Rule(phase: "command_line"),
        "vulkan instance": Rule(phase: "vulkan_instance"),
        "vulkan devices enumerated": Rule(phase: "vulkan_device"),
        "vulkan device": Rule(phase: "vulkan_device"),
        "device made": Rule(phase: "vulkan_device", background: true),
        "wait for device": Rule(phase: "vulkan_device", background: true),
        "pipeline cache loaded": Rule(phase: "pipelines"),
        "kernel built": Rule(phase: "pipelines"),
        "kernels prepared": Rule(phase: "pipelines", background: true),
        "source opened": Rule(phase: "container_open"),
        "read sample": Rule(phase: "first_sample_read", firstOnly: true),
        "read waited for a thread": Rule(phase: "first_sample_read", firstOnly: true),
        "next sample": Rule(phase: "first_sample_read", firstOnly: true),
        "wait for sample read": Rule(phase: "first_sample_read", firstOnly: true),
        "gpu stage made": Rule(phase: "session_setup", background: true),
        "session made": Rule(phase: "session_setup", background: true),
        "decoder made": Rule(phase: "session_setup", background: true),
        "batch parsed": Rule(phase: "first_upload", firstOnly: true),
        "batch staged and submitted": Rule(phase: "first_upload", firstOnly: true),
        "wait for batch on GPU": Rule(phase: "first_decode", firstOnly: true),
        "conversion submitted": Rule(phase: "first_conversion", firstOnly: true),
        "wait for conversion on GPU": Rule(phase: "first_conversion", firstOnly: true),
        "frame handler": Rule(phase: "output", firstOnly: true),
        "converted frame handled": Rule(phase: "output", firstOnly: true),
        "summary written": Rule(phase: "output"),
        "decode run": Rule(phase: "other_decoding", background: true),
        "session finished": Rule(phase: "other_decoding", background: true),
        "sample queued": Rule(phase: "other_decoding", firstOnly: true, background: true),
        "wait for a free slot": Rule(phase: "other_decoding", firstOnly: true, background: true),
        "teardown": Rule(phase: "teardown"),
        "devices idle at exit": Rule(phase: "teardown"),
        "trace written": Rule(phase: "teardown"),
    ]

    /// A span as it counts: its phase's place in `phaseNames`, its rank
    /// against others over the same instant, and its extent within the run.
    private struct Counted {
        let phase: Int
        let background: Bool
        let start: UInt64
        let end: UInt64
    }

    public init(spans: [Trace.Recorded], start: UInt64, end: UInt64, leftRunning: [String] = []) {
        self.leftRunning = leftRunning
        self.start = start
        self.end = max(start, end)
        let counted = Self.counted(spans, start: start, end: self.end)
        var attributed = [UInt64](repeating: 0, count: Self.phaseNames.count)
        var free: UInt64 = 0
        let bounds = Array(Set(counted.flatMap { [$0.start, $0.end] } + [start, self.end])).sorted()
        for (from, to) in zip(bounds, bounds.dropFirst()) {
            let covering = counted.filter { $0.start <= from && $0.end >= to }
            // Foreground before background, then the span that began last.
            if let owner = covering.max(by: { ($0.background ? 0 : 1, $0.start) < ($1.background ? 0 : 1, $1.start) }) {
                attributed[owner.phase] += to - from
            } else {
                free += to - from
            }
        }
        phases = Self.phaseNames.enumerated().map { index, named in
            let own = counted.filter { $0.phase == index }
            return Phase(
                name: named.name, about: named.about, nanoseconds: attributed[index], first: own.map(\.start).min(),
                last: own.map(\.end).max(), spans: own.count)
        }
        unattributed = free
    }

    /// The spans that count, clipped to the run: those of a phase, per-frame
    /// ones only the first time their name occurs.
    private static func counted(_ spans: [Trace.Recorded], start: UInt64, end: UInt64) -> [Counted] {
        var seen = Set<String>()
        let places = Dictionary(uniqueKeysWithValues: phaseNames.enumerated().map { ($1.name, $0) })
        return spans.sorted { $0.start < $1.start }.compactMap { span in
            guard let rule = rules[span.name], let phase = places[rule.phase] else { return nil }
            if rule.firstOnly {
                guard !seen.contains(span.name) else { return nil }
                seen.insert(span.name)
            }
            let from = min(max(span.start, start), end)
            let to = min(max(span.end, from), end)
            return Counted(phase: phase, background: rule.background, start: from, end: to)
        }
    }

    /// Milliseconds from `start` to `instant`.
    private func milliseconds(_ instant: UInt64) -> Double { Double(instant - start) / 1e6 }

    public var json: String {
        JSON.object([
            ("start_monotonic_ns", "\(start)"), ("end_monotonic_ns", "\(end)"),
            ("wall_ms", JSON.number(Double(end - start) / 1e6, digits: 3)),
            (
                "phases",
                JSON.array(
                    phases.map { phase in
                        JSON.object([
                            ("name", JSON.string(phase.name)),
                            ("ms", JSON.number(Double(phase.nanoseconds) / 1e6, digits: 3)),
                            ("start_ms", phase.first.map { JSON.number(milliseconds($0), digits: 3) } ?? "null"),
                            ("end_ms", phase.last.map { JSON.number(milliseconds($0), digits: 3) } ?? "null"),
                            ("spans", "\(phase.spans)"), ("about", JSON.string(phase.about)),
                        ])
                    })
            ),
            ("unattributed_ms", JSON.number(Double(unattributed) / 1e6, digits: 3)),
            ("left_running_at_exit", JSON.array(leftRunning.map(JSON.string))),
        ])
    }
}
