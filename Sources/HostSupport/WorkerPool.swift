import Foundation

/// A fixed set of threads for `parallelFor`-shaped work: `run(count, body)`
/// calls `body` once for each index on at most `threads` threads at a time,
/// the caller's among them.
///
/// Why not `DispatchQueue.concurrentPerform`: it spreads over every core of
/// the machine whatever the caller asked for, so `--threads 4` on a
/// 16-core host kept 12 cores busy, and a job meant to leave room for
/// others on a shared machine took all of it.
// @unchecked: the job and its generation are touched under `condition`;
// indices are handed out under `nextLock` (a few dozen a frame: no contention worth an atomic).
package final class WorkerPool: @unchecked Sendable {
    package let threads: Int
    private let shared: Shared

    package init(threads: Int) {
        self.threads = max(1, threads)
        shared = Shared()
        for helper in 1..<self.threads {
            startWorkerThread("prores-decode.worker-\(helper)", { [shared] in shared.serve() }, finished: {})
        }
    }

    deinit { shared.stop() }

    /// `body(0)` … `body(count - 1)`, each once, returning when all have.
    /// One caller at a time.
    package func run(_ count: Int, _ body: (Int) -> Void) {
        guard count > 1, threads > 1 else {
            for index in 0..<count { body(index) }
            return
        }
        withoutActuallyEscaping(body) { body in
            shared.run(count, UncheckedSendable(body), helpers: min(threads, count) - 1)
        }
    }

    private final class Shared: @unchecked Sendable {
        private let condition = NSCondition()
        private var generation = 0
        private var stopping = false
        private var job: (count: Int, body: UncheckedSendable<(Int) -> Void>)?
        /// Helpers that may still take part in the current job.
        private var seats = 0
        /// Helpers working on the current job.
        private var working = 0
        private let nextLock = NSLock()
        private var next = 0

        func run(_ count: Int, _ body: UncheckedSendable<(Int) -> Void>, helpers: Int) {
            condition.lock()
            nextLock.withLock { next = 0 }
            job = (count, body)
            seats = helpers
            generation += 1
            condition.broadcast()
            condition.unlock()
            work(count, body.value)
            condition.lock()
            // No helper joins from here on; the body must outlive those working.
            seats = 0
            while working > 0 { condition.wait() }
            job = nil
            condition.unlock()
        }

        func serve() {
            var seen = 0
            condition.lock()
            while true {
                while !stopping && (generation == seen || seats == 0) {
                    if generation != seen && seats == 0 { seen = generation }
                    condition.wait()
                }
                if stopping { break }
                seen = generation
                guard let job else { continue }
                seats -= 1
                working += 1
                condition.unlock()
                work(job.count, job.body.value)
                condition.lock()
                working -= 1
                if working == 0 { condition.broadcast() }
            }
            condition.unlock()
        }

        private func work(_ count: Int, _ body: (Int) -> Void) {
            while true {
                let index = nextLock.withLock {
                    defer { next += 1 }
                    return next
                }
                guard index < count else { return }
                body(index)
            }
        }

        func stop() {
            condition.lock()
            stopping = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
