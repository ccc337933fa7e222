import Foundation
import Synchronization
import XCTest

@testable import HostSupport
@testable import TestSupport

/// `WorkerPool` runs each index once, on at most the threads it was made
/// with (the caller's among them), job after job.
final class WorkerPoolTests: XCTestCase {
    /// How many bodies run at once, at most, while each holds its place for a while.
    private final class Overlap: @unchecked Sendable {
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        func enter() {
            let now = running.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
            var seen = most.load(ordering: .sequentiallyConsistent)
            while now > seen {
                let (exchanged, original) = most.compareExchange(
                    expected: seen, desired: now, ordering: .sequentiallyConsistent)
                if exchanged { break }
                seen = original
            }
        }
        func leave() { running.wrappingAdd(-1, ordering: .sequentiallyConsistent) }
    }

    func testEveryIndexRunsOnceOnAtMostItsThreads() {
        for threads in [1, 2, 3, 5] {
            let pool = WorkerPool(threads: threads)
            for count in [0, 1, 2, 7, 64] {
                let runs = UnsafeMutablePointer<Int>.allocate(capacity: max(count, 1))
                runs.initialize(repeating: 0, count: max(count, 1))
                defer { runs.deallocate() }
                let overlap = Overlap()
                pool.run(count) { index in
                    overlap.enter()
                    usleep(2_000)
                    runs[index] += 1
                    overlap.leave()
                }
                XCTAssertEqual((0..<count).map { runs[$0] }, Array(repeating: 1, count: count), "\(threads) threads")
                let most = overlap.most.load(ordering: .sequentiallyConsistent)
                XCTAssertLessThanOrEqual(most, threads, "\(count) indices on \(threads) threads")
                if count >= 2 * threads && threads > 1 {
                    XCTAssertGreaterThan(most, 1, "the helpers took part")
                }
            }
        }
    }

    /// Jobs back to back, many of them: no index lost, none run twice, no hang.
    func testManyJobsInARow() {
        let pool = WorkerPool(threads: 4)
        let total = Atomic<Int>(0)
        for _ in 0..<2_000 {
            pool.run(9) { index in total.wrappingAdd(index + 1, ordering: .relaxed) }
        }
        XCTAssertEqual(total.load(ordering: .relaxed), 2_000 * 45)
    }
}
