import HostSupport

/// What `--realtime` saw: how many ticks the clock gave, which frames were
/// presented and which dropped, and how precisely the presenter woke.
///
/// Invariants: `presented + late == ticks` (every tick shows a new frame or
/// repeats the previous one) and `presented + dropped` is the number of
/// frames that reached the presenter (failed frames never do).
public struct PacingReport: Sendable {
    public let rate: FrameRate
    /// Ticks from the start of playback to the last presentation, missed ones included.
    public let ticks: Int
    /// Source indices of the frames presented, in order.
    public let presentedFrames: [Int]
    /// Source indices of the frames superseded before they could be presented.
    public let droppedFrames: [Int]
    /// Ticks at which no new frame was ready: the previous frame stayed.
    public let late: Int
    /// The frames due at late ticks (tick k is frame `firstIndex` + k's),
    /// as inclusive runs: where playback stuttered, for `plot`.
    public let lateFrames: [ClosedRange<Int>]
    /// Microseconds from each tick's host time to the presenter waking for it.
    public let jitter: Percentiles?

    public var presented: Int { presentedFrames.count }
    public var dropped: Int { droppedFrames.count }

    /// The `realtime` object of the `--json` summary and of the timing log's last line.
    public var json: String {
        JSON.object([
            ("rate", JSON.number(rate.framesPerSecond, digits: 3)), ("ticks", "\(ticks)"),
            ("presented", "\(presented)"), ("late", "\(late)"), ("dropped", "\(dropped)"),
            (
                "jitter_us",
                jitter.map { j in
                    JSON.object([("p50", JSON.number(j.p50)), ("p99", JSON.number(j.p99)), ("max", JSON.number(j.max))])
                } ?? "null"
            ),
        ])
    }

    /// The timing log's last line, `{"realtime":{…}}`: the summary's object
    /// with the late and dropped frames as runs, `[[first,last],…]`, so a
    /// plot can mark them.
    public var timingLogLine: String {
        func runs(_ runs: [ClosedRange<Int>]) -> String {
            JSON.array(runs.map { "[\($0.lowerBound),\($0.upperBound)]" })
        }
        var dropped = FrameRanges()
        for index in droppedFrames.sorted() { dropped.add(index) }
        let fields =
            String(json.dropLast()) + ",\"late_frames\":" + runs(lateFrames) + ",\"dropped_frames\":"
            + runs(dropped.runs) + "}"
        return JSON.object([("realtime", fields)])
    }

    /// One line for the run summary on stderr.
    public var text: String {
        "realtime at \(rate) fps: \(presented) presented, \(late) late, \(dropped) dropped in \(ticks) ticks"
            + (jitter.map { "; jitter p50 \(JSON.number($0.p50)) µs, p99 \(JSON.number($0.p99)) µs" } ?? "")
    }
}
