import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// Frame indices kept as inclusive runs, [[first, last], ...].
///
/// Why runs: black or frozen frames come in stretches (a slate, a freeze
/// frame); an hour of black is one pair in a report, not 90 000 numbers.
/// Only truly consecutive indices merge, so with `--sample` a run never
/// claims a frame that was not checked.
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

    public var json: String {
        JSON.object([("count", "\(count)"), ("ranges", JSON.array(runs.map { "[\($0.lowerBound),\($0.upperBound)]" }))])
    }
}
