import Foundation
@testable import ProResPipeline
import XCTest

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
        let work = OrderedFrameWork<String>(workers: 1, depth: 32, batch: md5.batch, work: { batch in
            lock.lock()
            batchSizes.append(batch.count)
            let first = batchSizes.count == 1
            lock.unlock()
            if first {
                firstTaken.signal()
                allSubmitted.wait()
            }
            return md5.hex(batch)
        }, deliver: { index, _, bytes, hex in
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
}
