import Foundation
import XCTest

@testable import ProResPipeline
@testable import TestSupport

/// `OrderedFrameWork` with batches: a worker takes what is queued, up to
/// the batch size, and results still come out in submission order.
final class OrderedFrameWorkTests: XCTestCase {
    /// One worker is held on the first frame while 19 more queue up, so it
    /// then takes them 8, 8 and 3 at a time; the md5s (`md5sum`'s) come out
    /// in frame order, the frames copied (no surface) into the work.
    func testQueuedFramesAreTakenInBatchesAndDeliveredInOrder() throws {
        var random = KernelRandom(seed: 21)
        let frames = (0..<20).map { random.bytes($0 % 3 == 0 ? 1000 : 1031) }
        let firstTaken = DispatchSemaphore(value: 0)
        let allSubmitted = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var batchSizes: [Int] = []
        var delivered: [(index: Int, bytes: Int, hex: String)] = []
        let md5 = FrameHashSink.Algorithm.md5
        let work = OrderedFrameWork<String>(
            workers: 1, depth: 32, batch: md5.batch,
            work: { batch in
                lock.lock()
                batchSizes.append(batch.count)
                let first = batchSizes.count == 1
                lock.unlock()
                if first {
                    firstTaken.signal()
                    allSubmitted.wait()
                }
                return md5.hex(batch)
            },
            deliver: { index, _, bytes, hex in
                delivered.append((index, bytes, hex))
            })
        for (index, frame) in frames.enumerated() {
            try frame.withUnsafeBytes { try work.submit(index: index, pts: Int64(index), spans: [$0], holder: nil) }
            if index == 0 { firstTaken.wait() }
        }
        allSubmitted.signal()
        try work.finish()
        XCTAssertEqual(batchSizes, [1, 8, 8, 3])
        XCTAssertEqual(delivered.map(\.index), Array(0..<20))
        XCTAssertEqual(delivered.map(\.bytes), frames.map(\.count))
        XCTAssertEqual(delivered.map(\.hex), try MD5Sum.hexes(frames))
    }

    /// `waitUntilDelivered` returns only once every frame submitted so far
    /// has been handed on (slow work included), and the work goes on
    /// taking frames afterwards: how a handover's GPU-measured frames are
    /// kept behind FFmpeg's CPU-measured ones.
    func testWaitUntilDeliveredWaitsForSlowWorkAndTakesMore() throws {
        let lock = NSLock()
        var delivered: [Int] = []
        let work = OrderedFrameWork<Int>(
            workers: 2,
            work: { batch in
                usleep(50_000)
                return batch.map(\.count)
            },
            deliver: { index, _, _, _ in
                lock.lock()
                delivered.append(index)
                lock.unlock()
            })
        let bytes = [UInt8](repeating: 7, count: 64)
        for index in 0..<4 {
            try bytes.withUnsafeBytes { try work.submit(index: index, pts: nil, spans: [$0], holder: nil) }
        }
        try work.waitUntilDelivered()
        lock.lock()
        XCTAssertEqual(delivered, [0, 1, 2, 3], "every frame submitted before the wait is delivered when it returns")
        lock.unlock()
        try bytes.withUnsafeBytes { try work.submit(index: 4, pts: nil, spans: [$0], holder: nil) }
        try work.finish()
        XCTAssertEqual(delivered, [0, 1, 2, 3, 4])
    }

}
