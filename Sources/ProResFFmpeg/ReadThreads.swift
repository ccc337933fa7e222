import Foundation
import ProResCore

/// Threads that only read samples from files, shared by every reader of
/// the process and kept for its life.
///
/// Why not Dispatch's global queue: pread(2) is a copy the kernel makes on
/// the calling thread, and that pool sizes itself to the cores it sees
/// idle. With the decoder's threads busy on every core, the H200's host
/// ran the reader's 8 reads in flight ~3.6 at a time (1,920 frames of 4K
/// HQ: 2,007 ms of reads in a 346 ms run), and its decode waited for them
/// half the run. A read here always has a thread.
final class ReadThreads: @unchecked Sendable {
    static let shared = ReadThreads(count: min(16, max(4, ProcessInfo.processInfo.activeProcessorCount / 2)))

    private let jobs = BlockingQueue<@Sendable () -> Void>(capacity: 4096)
    private let count: Int
    private let lock = NSLock()
    private var started = false

    init(count: Int) {
        self.count = count
    }

    /// Runs `job` on a read thread, the threads started with the first one.
    func run(_ job: @escaping @Sendable () -> Void) {
        lock.lock()
        if !started {
            started = true
            for _ in 0..<count {
                startWorkerThread("prores-decode.read", { [jobs] in
                    while let job = jobs.pop() { job() }
                }, finished: {})
            }
        }
        lock.unlock()
        _ = jobs.push(job)
    }
}
