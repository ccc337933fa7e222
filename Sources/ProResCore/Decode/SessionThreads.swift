import Foundation
import HostSupport

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

    /// The body of a session's output thread: each frame of `output` to
    /// `handler`, then `idle` whenever no frame is queued behind it; a
    /// handler that throws hands its error to `fail`, which stops the session.
    package func deliver(
        _ output: BlockingQueue<DecodedFrame>, to handler: FrameOutputHandler, idle: OutputIdleHandler?,
        failing fail: (Error) -> Void
    ) {
        while let frame = output.pop() {
            do {
                try handler(frame)
                if output.queued == 0 { try idle?() }
            } catch { fail(error) }
        }
    }

    /// Keeps `error` unless an earlier one was recorded.
    package func record(_ error: Error) {
        lock.lock()
        if firstFailure == nil { firstFailure = error }
        lock.unlock()
    }
}
