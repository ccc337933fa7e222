import XCTest

@testable import HostSupport
@testable import ProResCore
@testable import ProResGPU
@testable import TestSupport

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
        let mapped = memory.mappedBytes
        let largePointers = Set(large.map(\.pointer))
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
}

final class UploadPathTests: XCTestCase {
    func testTheFastestPathUnlessAnotherIsAskedForAndPossible() {
        // Unset: read in place on shared memory; else DMA from sample memory where the device imports it.
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: true, canImport: true), .direct)
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: false, canImport: true), .fromSampleMemory)
        XCTAssertEqual(UploadPath(nil, sharesHostMemory: false, canImport: false), .copy)
        // Asked for: the upload paths run on a shared-memory device too; reading in place needs one.
        XCTAssertEqual(UploadPath(.copy, sharesHostMemory: true, canImport: true), .copy)
        XCTAssertEqual(UploadPath(.fromSampleMemory, sharesHostMemory: true, canImport: true), .fromSampleMemory)
        XCTAssertEqual(UploadPath(.fromSampleMemory, sharesHostMemory: true, canImport: false), .copy)
        XCTAssertEqual(UploadPath(.direct, sharesHostMemory: false, canImport: true), .fromSampleMemory)
    }
}
