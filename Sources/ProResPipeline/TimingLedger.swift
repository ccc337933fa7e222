import Foundation
import ProResCore

/// The frames' timings of one run, appended in output order from the
/// session's output thread or, for frames converted on the GPU, from the
/// GPU's completion thread once their GPU work is done.
// @unchecked: both collections are touched only under `lock`.
final class TimingLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [FrameTiming] = []
    private var waitingForGPU: [Int: FrameTiming] = [:]

    /// Appends `timing`; `then` runs under the same lock with the new count
    /// (the timing log's lines stay in the order of the list).
    func append(_ timing: FrameTiming, then: (Int) throws -> Void) rethrows {
        lock.lock()
        defer { lock.unlock() }
        all.append(timing)
        try then(all.count)
    }

    /// Holds a frame's timing until its GPU work completes.
    func waitForGPU(_ timing: FrameTiming) {
        lock.lock()
        waitingForGPU[timing.index] = timing
        lock.unlock()
    }

    /// The timing held for frame `index`, no longer held.
    func converted(_ index: Int) -> FrameTiming? {
        lock.lock()
        defer { lock.unlock() }
        return waitingForGPU.removeValue(forKey: index)
    }

    var timings: [FrameTiming] {
        lock.lock()
        defer { lock.unlock() }
        return all
    }
}
