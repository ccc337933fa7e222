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

    /// With a cap, an allocation past it waits for a block to come back and
    /// gets that block; with none coming back it waits its patience out and
    /// allocates anyway (a consumer holding samples is slowed, not stopped).
    func testACappedClassWaitsForABlockButNeverForever() throws {
        let memory = SampleMemory(blockCap: 2)
        var first: SampleMemory.Block? = try XCTUnwrap(memory.allocate(bytes: 1_000_000))
        let second = try XCTUnwrap(memory.allocate(bytes: 1_000_000))
        XCTAssertEqual(memory.blocksInUse(bytes: 1_000_000), 2)
        let firstPointer = first!.pointer
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { first = nil }
        let third = try XCTUnwrap(memory.allocate(bytes: 1_000_000))
        XCTAssertEqual(third.pointer, firstPointer, "the block given back")
        XCTAssertEqual(memory.blocksInUse(bytes: 1_000_000), 2)
        let started = Date()
        let fourth = try XCTUnwrap(memory.allocate(bytes: 1_000_000))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), SampleMemory.capPatience * 0.9)
        XCTAssertEqual(Set([second.pointer, third.pointer, fourth.pointer]).count, 3)
        XCTAssertEqual(memory.blocksInUse(bytes: 1_000_000), 3)
        // Another size class is not held back by this one's.
        XCTAssertEqual(memory.blocksInUse(bytes: 9_000_000), 0)
        _ = try XCTUnwrap(memory.allocate(bytes: 9_000_000))
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
