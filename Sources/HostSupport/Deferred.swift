import Foundation

/// A value computed on its own thread from the moment it is created, so slow
/// set-up (a Vulkan device, pipeline creation) overlaps other work; `get()`
/// waits for it and rethrows its error.
// @unchecked: `result` is written once under `lock`, read under it after `done`.
package final class Deferred<Value>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, Error>?
    private let lock = NSLock()

    /// `make` runs on a thread of its own, charging its waits for shared
    /// work to the ledger of the thread that asked for it (`SharedWaits`):
    /// it is that thread's job's work.
    package init(_ name: String, _ make: @escaping @Sendable () throws -> Value) {
        let ledger = SharedWaits.currentLedger
        startWorkerThread(
            name,
            { [self] in
                let value = Result {
                    guard let ledger else { return try make() }
                    return try SharedWaits.charging(ledger, make)
                }
                lock.lock()
                result = value
                lock.unlock()
            }, finished: { [done] in done.signal() })
    }

    /// Waits up to `milliseconds` for the value; true once it is there.
    package func isReady(waitingUpTo milliseconds: Int) -> Bool {
        guard done.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return false }
        done.signal()  // as in `get`: later callers pass straight through
        return true
    }

    package func get() throws -> Value {
        lock.lock()
        if let result {
            lock.unlock()
            return try result.get()
        }
        lock.unlock()
        done.wait()
        done.signal()  // later callers pass straight through
        lock.lock()
        defer { lock.unlock() }
        return try result!.get()
    }
}
