import Dispatch
import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// Stops one file's check: when its `--timeout` passes (a timer calls
/// `DecodeRun.cancel()`) or when the whole batch is interrupted.
///
/// Why a separate object: the timer may fire before the `DecodeRun` exists
/// (a slow open), while it runs, or after it finished; the lock makes each
/// of those orderings end the same way.
///
/// The clock measures the file's own time: it starts (`init(timeout:after:)`) once
/// the file before it on the same decoder has left it — a shared GPU session
/// decodes that file's queued frames first, and they are not this file's —
/// and it stands still while the file's run waits for work another file
/// began on the device (a kernel that file is building: `SharedWaits`; a
/// batch that file submitted to the queue before this file's: `QueueOrder`).
/// A run is waited for only until the deadline (`run(_:)`): frames already
/// on the GPU cannot be called back, so a run that does not stop at once
/// finishes in the background, holding the decoder, while the verdict is
/// given at the deadline.
final class CheckCancellation: @unchecked Sendable {
    enum Reason { case timedOut, interrupted }

    let timeout: Double
    private let lock = NSLock()
    private var started: UInt64?
    /// The run's waits for other files' work; those before the clock started are not on it.
    let waits = WaitLedger()
    private var waitedBeforeStart: UInt64 = 0
    private var run: DecodeRun?
    private var stoppedBy: Reason?
    private var timer: DispatchWorkItem?
    /// Set once this file no longer holds the decoder; `afterEnd` then runs.
    private var ended = false
    private var detached = false
    private var afterEnd: [@Sendable () -> Void] = []
    private let endedSignal = DispatchSemaphore(value: 0)

    /// The clock starts now, or once `previous` (the file before this one
    /// on the same decoder) has left it.
    init(timeout: Double, after previous: CheckCancellation? = nil) {
        self.timeout = timeout
        if let previous {
            previous.whenEnded { [self] in startClock() }
        } else {
            startClock()
        }
    }

    private func startClock() {
        lock.lock()
        started = monotonicNanoseconds()
        waitedBeforeStart = waits.nanoseconds
        lock.unlock()
        arm(after: timeout)
    }

    /// The deadline's timer; where the clock stood still meanwhile, it is set again for the rest.
    private func arm(after seconds: Double) {
        let timer = DispatchWorkItem { [weak self] in
            guard let self else { return }
            let left = timeout - elapsed
            if left > 0.001 { arm(after: left) } else { stop(.timedOut) }
        }
        lock.lock()
        let cancelled = self.timer?.isCancelled ?? false
        if !cancelled { self.timer = timer }
        lock.unlock()
        if !cancelled { DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: timer) }
    }

    /// The file's own seconds since `started`; the caller holds `lock`.
    private func ownSeconds(since started: UInt64) -> Double {
        let waited = waits.nanoseconds - waitedBeforeStart
        let passed = monotonicNanoseconds() - started
        return Double(passed - min(waited, passed)) / 1e9
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
        if stoppedBy == nil, let started, ownSeconds(since: started) > timeout { stoppedBy = .timedOut }
        return stoppedBy
    }

    /// Seconds on the clock so far (0 before it starts).
    var elapsed: Double {
        lock.lock()
        defer { lock.unlock() }
        return started.map(ownSeconds) ?? 0
    }

    /// `run.run()` on a thread of its own (pinned to `cpus`, as the checking
    /// thread is), waited for until it returns or the file is stopped; then
    /// a run that has not ended within `grace` seconds is left to end in the
    /// background and `.interrupted` is thrown (the caller words the reason).
    func run(_ run: DecodeRun, label: String, cpus: [Int]?, grace: Double = 0.1) throws -> DecodeRun.Report {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        startWorkerThread(
            "prores-decode.check-run", stackSize: 8 << 20,
            { [self] in
                if let cpus { _ = pinCurrentThread(to: cpus) }
                outcome.set(
                    Result { try SharedWaits.charging(waits) { try FFmpegLog.withContext(label) { try run.run() } } })
                lock.lock()
                let leftBehind = detached
                lock.unlock()
                if leftBehind { end() }
            }, finished: { done.signal() })
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            guard reason != nil else { continue }
            if done.wait(timeout: .now() + grace) == .success { break }
            lock.lock()
            detached = true
            lock.unlock()
            // It may have ended between the wait and `detached`.
            if outcome.isSet { end() }
            throw ProResDecodeError.interrupted
        }
        return try outcome.get()
    }

    /// `body` (opening the file) on a thread of its own, waited for until it
    /// returns or the file is stopped; a body still running `grace` seconds
    /// after that is left to end in the background (a URL's reading stops
    /// at its interrupt; what it opens is then released) and `.interrupted`
    /// is thrown. Why: a server may hold libavformat past the interrupt (a
    /// name lookup, the wait before a reconnect), and the verdict does not
    /// wait for it.
    /// The thread is pinned to `cpus`, as the checking thread is: what the
    /// open allocates is first touched on the device's node.
    func bounded<T>(label: String, cpus: [Int]?, grace: Double = 0.1, _ body: @escaping @Sendable () throws -> T) throws
        -> T
    {
        let done = DispatchSemaphore(value: 0)
        let outcome = Handed<T>()
        startWorkerThread(
            "prores-decode.check-open",
            {
                if let cpus { _ = pinCurrentThread(to: cpus) }
                outcome.set(Result { try FFmpegLog.withContext(label) { try body() } })
            }, finished: { done.signal() })
        while done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            guard reason != nil else { continue }
            if done.wait(timeout: .now() + grace) == .success { break }
            throw ProResDecodeError.interrupted
        }
        return try outcome.get()
    }

    /// A value handed from the thread that made it.
    private final class Handed<T>: @unchecked Sendable {
        // @unchecked: `result` is touched only under `lock`.
        private let lock = NSLock()
        private var result: Result<T, Error>?
        func set(_ value: Result<T, Error>) {
            lock.lock()
            result = value
            lock.unlock()
        }
        func get() throws -> T {
            lock.lock()
            defer { lock.unlock() }
            guard let result else { throw ProResDecodeError.interrupted }
            return try result.get()
        }
    }

    /// The check is over; the decoder is free unless a run was left behind.
    func finish() {
        lock.lock()
        timer?.cancel()
        run = nil
        let leftBehind = detached
        lock.unlock()
        if !leftBehind { end() }
    }

    /// Waits until this file has left the decoder (its run ended).
    func waitUntilEnded() {
        endedSignal.wait()
        endedSignal.signal()
    }

    private func end() {
        lock.lock()
        guard !ended else {
            lock.unlock()
            return
        }
        ended = true
        let waiting = afterEnd
        afterEnd = []
        lock.unlock()
        endedSignal.signal()
        for body in waiting { body() }
    }

    private func whenEnded(_ body: @escaping @Sendable () -> Void) {
        lock.lock()
        if ended {
            lock.unlock()
            return body()
        }
        afterEnd.append(body)
        lock.unlock()
    }

    /// A run's result, handed from its thread.
    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<DecodeRun.Report, Error>?
        func set(_ value: Result<DecodeRun.Report, Error>) {
            lock.lock()
            result = value
            lock.unlock()
        }
        var isSet: Bool {
            lock.lock()
            defer { lock.unlock() }
            return result != nil
        }
        /// Called once the run's thread has finished, so `result` is set.
        func get() throws -> DecodeRun.Report {
            lock.lock()
            defer { lock.unlock() }
            guard let result else { throw ProResDecodeError.interrupted }
            return try result.get()
        }
    }
}
