import Foundation
@testable import ProResFFmpeg
import XCTest

/// The reader's reads each get a thread of their own, however busy the
/// cores: Dispatch's global pool ran the H200 host's 8 reads in flight
/// ~3.6 at a time while the decoder's threads kept every core busy.
final class ReadThreadsTests: XCTestCase {
    func testAsManyJobsAsThreadsRunAtOnceWhileEveryCoreIsBusy() {
        let threads = 4
        let pool = ReadThreads(count: threads)
        // Every core spinning, as the decoder's parse and measurement threads do.
        let stop = Flag()
        let spinners = DispatchGroup()
        for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
            spinners.enter()
            Thread { while !stop.isSet {}; spinners.leave() }.start()
        }
        defer { stop.set(); spinners.wait() }
        // Each job waits until all have started: they finish only if they run together.
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchGroup()
        for _ in 0..<threads {
            finished.enter()
            pool.run {
                started.signal()
                release.wait()
                finished.leave()
            }
        }
        for n in 0..<threads {
            XCTAssertEqual(started.wait(timeout: .now() + 10), .success, "job \(n + 1) of \(threads) never started while the others waited")
        }
        for _ in 0..<threads { release.signal() }
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
    }

    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
        func set() { lock.lock(); value = true; lock.unlock() }
    }
}
