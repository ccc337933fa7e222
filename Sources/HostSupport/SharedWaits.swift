import Foundation

/// The time a thread spends on work that serves every job on something they
/// share (a kernel, built once per device and kept for every later job),
/// or waiting for such work another caller began: no one job's work, so a
/// clock that measures one job's own time (`check --timeout`) leaves it out.
// @unchecked: every field is touched only under `lock`.
public final class WaitLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting = 0
    private var since: UInt64 = 0
    private var total: UInt64 = 0

    public init() {}

    /// Nanoseconds spent waiting so far, a wait under way included.
    public var nanoseconds: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return total + (waiting > 0 ? monotonicNanoseconds() - since : 0)
    }

    /// Runs `body`, a wait for work another job began, on this ledger
    /// (for a thread that waits on a job's behalf without being charged to it).
    public func waiting<T>(_ body: () throws -> T) rethrows -> T {
        began()
        defer { ended() }
        return try body()
    }

    func began() {
        lock.lock()
        if waiting == 0 { since = monotonicNanoseconds() }
        waiting += 1
        lock.unlock()
    }

    func ended() {
        lock.lock()
        waiting -= 1
        if waiting == 0 { total += monotonicNanoseconds() - since }
        lock.unlock()
    }
}

/// Which ledger a thread's waits go to (`charging`), and the waits
/// themselves (`waiting`), reported by the shared resource that makes them.
public enum SharedWaits {
    private static let lock = NSLock()
    // Touched only under `lock`.
    nonisolated(unsafe) private static var ledgers: [pthread_t: WaitLedger] = [:]

    /// Runs `body` with this thread's waits for others' work going to `ledger`.
    public static func charging<T>(_ ledger: WaitLedger, _ body: () throws -> T) rethrows -> T {
        let thread = pthread_self()
        lock.lock()
        let outer = ledgers.updateValue(ledger, forKey: thread)
        lock.unlock()
        defer {
            lock.lock()
            ledgers[thread] = outer
            lock.unlock()
        }
        return try body()
    }

    /// The ledger this thread's waits go to, if any: for work a thread starts
    /// here and other threads carry on (a GPU session's submissions).
    public static var currentLedger: WaitLedger? {
        lock.lock()
        defer { lock.unlock() }
        return ledgers[pthread_self()]
    }

    /// Runs `body`, a wait for work another caller began, on this thread's ledger.
    public static func waiting<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        let ledger = ledgers[pthread_self()]
        lock.unlock()
        ledger?.began()
        defer { ledger?.ended() }
        return try body()
    }
}
