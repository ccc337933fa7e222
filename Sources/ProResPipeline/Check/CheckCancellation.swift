import Dispatch
import Foundation
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// Stops one file's check: when its `--timeout` passes (a timer calls
/// `DecodeRun.cancel()`) or when the whole batch is interrupted.
///
/// Why a separate object: the timer may fire before the `DecodeRun` exists
/// (a slow open), while it runs, or after it finished; the lock makes each
/// of those orderings end the same way.
final class CheckCancellation: @unchecked Sendable {
    enum Reason { case timedOut, interrupted }

    let timeout: Double
    private let started = monotonicNanoseconds()
    private let lock = NSLock()
    private var run: DecodeRun?
    private var stoppedBy: Reason?
    private var timer: DispatchWorkItem?

    init(timeout: Double) {
        self.timeout = timeout
        let timer = DispatchWorkItem { [weak self] in self?.stop(.timedOut) }
        self.timer = timer
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
    }

    /// The run to cancel; cancelled at once if the time is already up.
    func attach(_ run: DecodeRun) {
        lock.lock()
        self.run = run
        let stopNow = stoppedBy != nil
        lock.unlock()
        if stopNow { run.cancel() }
    }

    func stop(_ reason: Reason) {
        lock.lock()
        if stoppedBy == nil { stoppedBy = reason }
        let run = self.run
        lock.unlock()
        run?.cancel()
    }

    /// Why the file was stopped, if it was. A check that finished but took
    /// longer than the timeout counts as timed out too: the verdict must not
    /// depend on whether the timer thread got to run in time.
    var reason: Reason? {
        lock.lock()
        defer { lock.unlock() }
        if stoppedBy == nil, Double(monotonicNanoseconds() - started) / 1e9 > timeout { stoppedBy = .timedOut }
        return stoppedBy
    }

    func finish() {
        timer?.cancel()
        lock.lock()
        run = nil
        lock.unlock()
    }
}
