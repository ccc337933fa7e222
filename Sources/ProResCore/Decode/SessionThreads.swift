import Foundation

/// The worker threads of a decode session and the first error any of them
/// (or a cancellation) recorded: what the CPU and GPU sessions share.
// @unchecked: `firstFailure` is only touched under `lock`.
package final class SessionThreads: @unchecked Sendable {
    private let done = DispatchGroup()
    private let lock = NSLock()
    private var firstFailure: Error?

    package init() {}

    package func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        done.enter()
        startWorkerThread(name, body, finished: done.leave)
    }

    /// Blocks until every thread started so far has ended.
    package func wait() { done.wait() }

    package var failure: Error? {
        lock.lock()
        defer { lock.unlock() }
        return firstFailure
    }

    /// Queues `element` for the session's first thread (blocking while
    /// `queue` is full); throws the recorded failure instead once there is one.
    package func feed<Element>(_ element: Element, to queue: BlockingQueue<Element>) throws {
        if let failure { throw failure }
        if !queue.push(element) { throw failure ?? ProResDecodeError.interrupted }
    }

    /// Ends the input, waits for every thread, rethrows the first failure.
    package func finish<Element>(closing queue: BlockingQueue<Element>) throws {
        queue.close()
        wait()
        if let failure { throw failure }
    }

    /// Keeps `error` unless an earlier one was recorded.
    package func record(_ error: Error) {
        lock.lock()
        if firstFailure == nil { firstFailure = error }
        lock.unlock()
    }
}
