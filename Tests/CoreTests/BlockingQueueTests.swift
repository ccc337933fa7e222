import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCore
@testable import TestSupport

/// `popBatch`: a batch takes the backlog at once, except while its caller
/// says to wait for a full one (the GPU decoder, while another batch is in
/// flight); `wake` makes it ask again; a patient batch waits a while for
/// the rest.
final class BlockingQueueTests: XCTestCase {
    func testABatchTakesTheBacklogWithoutWaiting() {
        let queue = BlockingQueue<Int>(capacity: 8)
        for i in 0..<3 { queue.push(i) }
        XCTAssertEqual(queue.popBatch(limit: 4), [0, 1, 2])
    }

    func testABatchWaitsToBeFullWhileAskedAndTakesWhatIsThereOnceWoken() {
        let queue = BlockingQueue<Int>(capacity: 8)
        let busy = LockedBox(true)
        let popped = DispatchSemaphore(value: 0)
        let result = LockedBox<[Int]>([])
        for i in 0..<2 { queue.push(i) }
        Thread.detachNewThread {
            result.value = queue.popBatch(limit: 4, waitForFullBatch: { busy.value })
            popped.signal()
        }
        queue.push(2)
        XCTAssertEqual(popped.wait(timeout: .now() + 0.3), .timedOut, "3 of 4 while busy: still waiting")
        busy.value = false
        queue.wake()
        XCTAssertEqual(popped.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(result.value, [0, 1, 2], "no longer busy: the three that were there")

        busy.value = true
        for i in 3..<8 { queue.push(i) }
        XCTAssertEqual(
            queue.popBatch(limit: 4, waitForFullBatch: { busy.value }), [3, 4, 5, 6], "a full batch does not wait")
        queue.close()
        XCTAssertEqual(
            queue.popBatch(limit: 4, waitForFullBatch: { busy.value }), [7], "a closed queue gives up what is left")
        XCTAssertEqual(queue.popBatch(limit: 4, waitForFullBatch: { busy.value }), [])
    }

    func testAPatientBatchWaitsForTheRestThenTakesWhatCame() {
        let queue = BlockingQueue<Int>(capacity: 8)
        let popped = DispatchSemaphore(value: 0)
        let result = LockedBox<[Int]>([])
        queue.push(0)
        Thread.detachNewThread {
            result.value = queue.popBatch(limit: 4, patience: 600)
            popped.signal()
        }
        queue.push(1)
        queue.push(2)
        XCTAssertEqual(popped.wait(timeout: .now() + 0.3), .timedOut, "3 of 4 with patience left: still waiting")
        queue.push(3)
        XCTAssertEqual(popped.wait(timeout: .now() + 10), .success, "full: taken at once, patience or not")
        XCTAssertEqual(result.value, [0, 1, 2, 3])

        queue.push(4)
        XCTAssertEqual(queue.popBatch(limit: 4, patience: 0.05), [4], "patience spent: what came")
        queue.push(5)
        queue.close()
        XCTAssertEqual(queue.popBatch(limit: 4, patience: 600), [5], "a closed queue does not wait")
    }

    /// `push(contentsOf:)` (a GPU batch's frames) waits for room for all of
    /// them: a consumer never sees part of the group queued.
    func testAGroupIsPushedWholeOnceThereIsRoomForAll() {
        let queue = BlockingQueue<Int>(capacity: 4)
        for i in 0..<3 { queue.push(i) }
        let pushed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            queue.push(contentsOf: [3, 4])
            pushed.signal()
        }
        XCTAssertEqual(pushed.wait(timeout: .now() + 0.3), .timedOut, "room for one of two: still waiting")
        XCTAssertEqual(queue.queued, 3, "nothing of the group may be queued yet")
        XCTAssertEqual(queue.pop(), 0)
        XCTAssertEqual(pushed.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(queue.queued, 4)
        XCTAssertEqual((0..<4).map { _ in queue.pop() }, [1, 2, 3, 4])
        queue.close()
        XCTAssertFalse(queue.push(contentsOf: [5]), "a closed queue takes nothing")
    }
}

private final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}
