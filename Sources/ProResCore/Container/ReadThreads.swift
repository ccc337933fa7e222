import Foundation
import Glibc
import HostSupport

/// Threads of our own for the sample reads, taken in the order they were
/// asked for, instead of the global dispatch queue. Why: a read is ~1–2 ms
/// of copying on one core, and a decode of one 4K file keeps 16 in flight;
/// on a 16-core host with the global queue, traces show only ~8 of them
/// running at a time, while the host reads its page cache at 44 GB/s on
/// 16 threads. The global queue shares its width with
/// `parallelFor`'s parse and sizes itself by its own rules; a read waiting
/// for a thread there is a frame the GPU waits for.
///
/// `PRORES_DECODE_READ_THREADS=N` sets the pool's size (1…256): the
/// command line passes it to `size(_:)` before the first read.
/// Threads start as work arrives, up to the pool's size, and live for the
/// process: an idle one waits on a condition and costs nothing.
///
/// Thread-safety: any thread.
package final class ReadThreads: @unchecked Sendable {
    package static let shared = ReadThreads(count: sizeLock.withLock { requestedCount } ?? defaultCount())
    private static let sizeLock = NSLock()
    /// The process's pool size, as its caller set it before the first read. Under `sizeLock`.
    nonisolated(unsafe) private static var requestedCount: Int?

    /// The size of the process's pool, unless `count` is nil: one call,
    /// before any read (the pool is made at the first one).
    package static func size(_ count: Int?) { sizeLock.withLock { requestedCount = count } }

    /// As many as the reads a GPU decode of one file keeps in flight
    /// (`readsAhead`), and no more than the cores (each read is a core's copying).
    package static func defaultCount(readsAhead: Int = SampleSourcePrefetch.readsAheadOfOneFile) -> Int {
        max(2, min(ProcessInfo.processInfo.activeProcessorCount, readsAhead))
    }

    /// Runs `work` on the pool.
    package static func run(_ work: @escaping @Sendable () -> Void) {
        shared.enqueue(work)
    }

    package let count: Int
    private let condition = NSCondition()
    private var waiting: [@Sendable () -> Void] = []
    private var next = 0
    private var started = 0
    private var idle = 0

    package init(count: Int) {
        self.count = count
    }

    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        waiting.append(work)
        // A thread signalled but not yet awake still counts as idle, and
        // its work as waiting: start one only for work no idle thread takes.
        let startOne = waiting.count - next > idle && started < count
        if startOne { started += 1 }
        condition.signal()
        condition.unlock()
        if startOne {
            let thread = Thread { [self] in serve() }
            thread.name = "sample-reader"
            thread.start()
        }
    }

    private func serve() {
        condition.lock()
        while true {
            while next == waiting.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let work = waiting[next]
            next += 1
            if next == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                next = 0
            } else if next >= 256 {
                waiting.removeFirst(next)
                next = 0
            }
            condition.unlock()
            work()
            condition.lock()
        }
    }
}
