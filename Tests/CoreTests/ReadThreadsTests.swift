import Foundation
import XCTest

@testable import ProResCore
@testable import TestSupport

/// The sample reads' own threads: every read runs once, as many at once as
/// the pool holds and no more, in the order they were asked for.
final class ReadThreadsTests: XCTestCase {
    func testEveryWorkItemRunsOnce() {
        let pool = ReadThreads(count: 3)
        let ran = Guarded([Int](repeating: 0, count: 200))
        let done = DispatchGroup()
        for i in 0..<200 {
            done.enter()
            pool.enqueue {
                ran.mutate { $0[i] += 1 }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(ran.value, [Int](repeating: 1, count: 200))
    }

    /// Items that block until four run together: they only finish if the
    /// pool really runs four at once, and a fifth never joins them.
    func testThePoolRunsItsCountAtOnceAndNoMore() {
        let pool = ReadThreads(count: 4)
        let running = Guarded((now: 0, most: 0))
        let allFour = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<12 {
            done.enter()
            pool.enqueue {
                var reached = false
                running.mutate {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                    reached = $0.now == 4
                }
                if reached { for _ in 0..<3 { allFour.signal() } } else { _ = allFour.wait(timeout: .now() + 0.5) }
                running.mutate { $0.now -= 1 }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(running.value.most, 4, "four at once, never five")
    }

    func testOneThreadRunsTheItemsInTheOrderAskedFor() {
        let pool = ReadThreads(count: 1)
        let order = Guarded([Int]())
        let done = DispatchGroup()
        for i in 0..<50 {
            done.enter()
            pool.enqueue {
                order.mutate { $0.append(i) }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(order.value, Array(0..<50))
    }
}
