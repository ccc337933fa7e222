import Foundation

/// The worker threads of a decode session and the first error any of them
/// (or a cancellation) recorded: what the CPU and GPU sessions share.
final class SessionThreads: @unchecked Sendable {
    private let done = DispatchGroup()
    private let lock = NSLock()
    private var firstFailure: Error?

    func start(_ name: String, _ body: @escaping () -> Void) {
        done.enter()
        startWorkerThread(name, body, finished: done.leave)
    }

    /// Blocks until every thread started so far has ended.
    func wait() { done.wait() }

    var failure: Error? {
        lock.lock()
        defer { lock.unlock() }
        return firstFailure
    }

    /// Keeps `error` unless an earlier one was recorded.
    func record(_ error: Error) {
        lock.lock()
        if firstFailure == nil { firstFailure = error }
        lock.unlock()
    }
}
