import HostSupport

/// Frame indices kept as inclusive runs, [[first, last], ...].
///
/// Why runs: black or frozen frames come in stretches (a slate, a freeze
/// frame), late frames too (a stall); an hour of black is one pair in a
/// report, not 90 000 numbers. Only truly consecutive indices merge, so
/// with `--sample` a run never claims a frame that was not checked.
public struct FrameRanges: Equatable, Sendable {
    public private(set) var runs: [ClosedRange<Int>] = []
    public private(set) var count = 0

    public init() {}

    /// Indices must arrive in ascending order.
    public mutating func add(_ index: Int) {
        count += 1
        if let last = runs.last, last.upperBound + 1 == index {
            runs[runs.count - 1] = last.lowerBound...index
        } else {
            runs.append(index...index)
        }
    }

    /// The indices of `wanted` (ascending) not in `seen`, walking `seen`
    /// rather than `wanted`: a range of 2^62 claimed frames costs as much as
    /// the frames actually seen.
    public init<Wanted: Collection>(wanted: Wanted, seen: Set<Int>) where Wanted.Element == Int {
        if let range = wanted as? Range<Int> {
            var next = range.lowerBound
            for index in seen.sorted() where range.contains(index) {
                if index > next { addRun(next...(index - 1)) }
                next = index + 1
            }
            if next < range.upperBound { addRun(next...(range.upperBound - 1)) }
        } else {
            for index in wanted where !seen.contains(index) { add(index) }
        }
    }

    /// A run of consecutive indices after every earlier one.
    private mutating func addRun(_ run: ClosedRange<Int>) {
        count += run.count
        if let last = runs.last, last.upperBound + 1 == run.lowerBound {
            runs[runs.count - 1] = last.lowerBound...run.upperBound
        } else {
            runs.append(run)
        }
    }

    public var json: String {
        JSON.object([("count", "\(count)"), ("ranges", JSON.array(runs.map { "[\($0.lowerBound),\($0.upperBound)]" }))])
    }
}
