@testable import ProResCore
import XCTest

final class SampleMemoryTests: XCTestCase {
    func testSizeClassesArePagesWithAtMostAnEighthUnused() {
        XCTAssertEqual(SampleMemory.sizeClass(1), 4096)
        XCTAssertEqual(SampleMemory.sizeClass(4096), 4096)
        XCTAssertEqual(SampleMemory.sizeClass(4097), 8192)
        for bytes in stride(from: 1, to: 40 << 20, by: 7_919) {
            let size = SampleMemory.sizeClass(bytes)
            XCTAssertGreaterThanOrEqual(size, bytes)
            XCTAssertEqual(size % 4096, 0)
            if bytes > 8 * 4096 { XCTAssertLessThanOrEqual(Double(size), Double(bytes) * 1.125 + 4096, "\(bytes)") }
        }
    }

    func testBlocksArePageAlignedInsideTheirRegionAndReused() throws {
        let memory = SampleMemory()
        var block: SampleMemory.Block? = try XCTUnwrap(memory.allocate(bytes: 3_000_000))
        let first = block!.pointer
        XCTAssertEqual(Int(bitPattern: first) % 4096, 0)
        XCTAssertGreaterThanOrEqual(block!.capacity, 3_000_000)
        let region = try XCTUnwrap(memory.region(containing: first + 2_999_999))
        XCTAssertLessThanOrEqual(region.base, UnsafeRawPointer(first))
        XCTAssertGreaterThanOrEqual(region.size, SampleMemory.minimumRegionBytes)
        // Writable all through.
        block!.pointer.initializeMemory(as: UInt8.self, repeating: 0xA5, count: block!.capacity)
        let others = (0..<40).compactMap { _ in memory.allocate(bytes: 3_000_000) }
        XCTAssertEqual(Set(others.map(\.pointer)).count, 40)
        XCTAssertFalse(others.contains { $0.pointer == first })
        for other in others { XCTAssertNotNil(memory.region(containing: other.pointer)) }
        block = nil
        XCTAssertEqual(memory.allocate(bytes: 2_900_000)?.pointer, first, "a freed block of the class is reused")
        let heap = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
        defer { heap.deallocate() }
        XCTAssertNil(memory.region(containing: heap))
    }

    func testASmallerRequestTakesAFreeBlockOfANeighbouringClassBeforeMappingMore() throws {
        let memory = SampleMemory()
        // 4K 422 HQ samples (3.75 MiB blocks), all freed: 4K 4444 XQ ones (3.25 MiB) reuse them.
        var large = (0..<30).compactMap { _ in memory.allocate(bytes: 3_815_565) }
        XCTAssertEqual(large.count, 30)
        let mapped = memory.mappedBytes, largePointers = Set(large.map(\.pointer))
        large.removeAll()
        var small = (0..<30).compactMap { _ in memory.allocate(bytes: 3_187_135) }
        XCTAssertEqual(memory.mappedBytes, mapped, "no region mapped while larger free blocks fit")
        XCTAssertEqual(Set(small.map(\.pointer)), largePointers)
        XCTAssertTrue(small.allSatisfy { $0.capacity == SampleMemory.sizeClass(3_815_565) }, "a block keeps its class")
        // Those go back to their own class, and its requests get them again.
        small.removeAll()
        XCTAssertTrue(largePointers.contains(try XCTUnwrap(memory.allocate(bytes: 3_815_565)).pointer))
        // A class far smaller (more than half again below) maps its own.
        _ = try XCTUnwrap(memory.allocate(bytes: 1_000_000))
        XCTAssertGreaterThan(memory.mappedBytes, mapped)
    }

    /// A twin per region, made when a reader first asks, at the block's own
    /// offset; a block counts as twinned only once marked, and no longer
    /// once it is freed (its next user may not write the twin).
    func testTwinsMirrorTheRegionsAndForgetFreedBlocks() throws {
        final class Made: @unchecked Sendable { var sizes: [Int] = []; var bases: [UnsafeMutableRawPointer] = [] }
        let made = Made(), memory = SampleMemory()
        addTeardownBlock { for base in made.bases { base.deallocate() } }
        var early: SampleMemory.Block? = try XCTUnwrap(memory.allocate(bytes: 3_000_000))
        XCTAssertNil(memory.twinAddress(of: early!), "no twins until asked for")
        memory.useTwins { bytes in
            made.sizes.append(bytes)
            let base = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
            made.bases.append(base)
            return SampleMemory.Twin(base: base, owner: made)
        }
        let region = try XCTUnwrap(memory.region(containing: early!.pointer))
        let twin = try XCTUnwrap(memory.twinAddress(of: early!), "a region mapped before twins gets one when asked")
        let block = try XCTUnwrap(memory.allocate(bytes: 3_000_000))
        let twinOfBlock = try XCTUnwrap(memory.twinAddress(of: block))
        XCTAssertEqual(made.sizes, [region.size], "one twin for the region, of its size")
        XCTAssertEqual(twinOfBlock - twin, block.pointer - early!.pointer, "the same offsets in the twin as in the region")

        XCTAssertNil(memory.writtenTwin(of: block.pointer), "not twinned before the reader says so")
        memory.markTwinWritten(block)
        let written = try XCTUnwrap(memory.writtenTwin(of: block.pointer))
        XCTAssertEqual(written.twin.base + written.offset, twinOfBlock)
        XCTAssertEqual(written.offset, block.pointer - UnsafeMutableRawPointer(mutating: region.base))

        memory.markTwinWritten(early!)
        let earlyPointer = early!.pointer
        early = nil
        XCTAssertNil(memory.writtenTwin(of: earlyPointer), "a freed block is no longer twinned")
        let again = try XCTUnwrap(memory.allocate(bytes: 3_000_000))
        XCTAssertEqual(again.pointer, earlyPointer)
        XCTAssertNil(memory.writtenTwin(of: again.pointer), "nor is its next use, until marked")

        memory.useTwins(nil)
        XCTAssertNil(memory.twinAddress(of: again), "twins off: readers write one copy")
    }

    /// Readers asking at once for one region's twin: it is made once, by
    /// one of them, outside the lock (allocations go on meanwhile); the
    /// others wait for it, and every block has its place in it.
    func testATwinIsMadeOnceWhileOthersReadOn() throws {
        final class Made: @unchecked Sendable {
            let lock = NSLock()
            var calls = 0
            var bases: [UnsafeMutableRawPointer] = []
        }
        let made = Made(), memory = SampleMemory()
        addTeardownBlock { for base in made.bases { base.deallocate() } }
        let blocks = (0..<16).compactMap { _ in memory.allocate(bytes: 1_000_000) }
        XCTAssertEqual(Set(blocks.compactMap { memory.region(containing: $0.pointer)?.base }).count, 1, "one region")
        memory.useTwins { bytes in
            usleep(50_000)  // as slow as video memory, or slower
            let base = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
            made.lock.withLock { made.calls += 1; made.bases.append(base) }
            return SampleMemory.Twin(base: base, owner: made)
        }
        let answers = UnsafeMutableBufferPointer<UnsafeMutableRawPointer?>.allocate(capacity: blocks.count)
        defer { answers.deallocate() }
        let allocated = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            usleep(10_000)  // while the twin is being made
            _ = memory.allocate(bytes: 1_000_000)
            allocated.signal()
        }
        DispatchQueue.concurrentPerform(iterations: blocks.count) { answers[$0] = memory.twinAddress(of: blocks[$0]) }
        XCTAssertEqual(allocated.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(made.calls, 1)
        let twin = try XCTUnwrap(made.bases.first)
        for (index, block) in blocks.enumerated() {
            let region = try XCTUnwrap(memory.region(containing: block.pointer))
            XCTAssertEqual(answers[index], twin + (UnsafeRawPointer(block.pointer) - region.base))
        }
    }

    /// A maker that cannot make a twin (no such memory) is not asked again
    /// for that region, and its blocks stay single.
    func testARegionWhoseTwinFailedIsNotAskedAgain() throws {
        final class Count: @unchecked Sendable { var asked = 0 }
        let count = Count(), memory = SampleMemory()
        memory.useTwins { _ in count.asked += 1; return nil }
        let block = try XCTUnwrap(memory.allocate(bytes: 1_000_000))
        XCTAssertNil(memory.twinAddress(of: block))
        XCTAssertNil(memory.twinAddress(of: block))
        XCTAssertEqual(count.asked, 1)
        memory.markTwinWritten(block)
        XCTAssertNil(memory.writtenTwin(of: block.pointer), "no twin, so nothing to read from")
    }
}

@testable import ProResGPU

final class UploadPathTests: XCTestCase {
    func testTheFastestPathUnlessAnotherIsAskedForAndPossible() {
        // Unset: read in place on shared memory; else DMA from sample memory where the device imports it.
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: true, canImport: true, environment: nil), .direct)
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: false, canImport: true, environment: nil), .fromSampleMemory)
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: false, canImport: false, environment: nil), .copy)
        // Asked for: the upload paths run on a shared-memory device too; reading in place needs one.
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: true, canImport: true, environment: "copy"), .copy)
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: true, canImport: true, environment: "import"), .fromSampleMemory)
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: true, canImport: false, environment: "import"), .copy)
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: false, canImport: true, environment: "direct"), .fromSampleMemory)
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: false, canImport: true, environment: "nonsense"), .fromSampleMemory)
        // The configuration wins over the environment.
        XCTAssertEqual(UploadPath(.copy, sharesHostMemory: false, canImport: true, environment: "import"), .copy)
    }
}
