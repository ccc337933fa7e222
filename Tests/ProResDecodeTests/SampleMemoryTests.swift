import Foundation
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

    /// An observer hears of the regions mapped before it, then of each new
    /// one (before its first block is handed out), and of none once dropped.
    func testObserversHearOfEveryRegionUntilDropped() throws {
        let memory = SampleMemory()
        let first = try XCTUnwrap(memory.allocate(bytes: 5_000_000))
        let heard = NSLock(), seen = Box<[UnsafeRawPointer]>([])
        var observation: SampleMemory.Observation? = memory.observeRegions { region in
            heard.withLock { seen.value.append(region.base) }
        }
        XCTAssertEqual(heard.withLock { seen.value }, [try XCTUnwrap(memory.region(containing: first.pointer)).base])
        // Blocks of another size class come from a region of their own.
        let second = try XCTUnwrap(memory.allocate(bytes: 9_000_000))
        let secondRegion = try XCTUnwrap(memory.region(containing: second.pointer))
        XCTAssertEqual(heard.withLock { seen.value }.last, secondRegion.base)
        XCTAssertEqual(heard.withLock { seen.value }.count, 2)
        // A block from a region already mapped tells nothing.
        _ = try XCTUnwrap(memory.allocate(bytes: 9_000_000))
        XCTAssertEqual(heard.withLock { seen.value }.count, 2)
        observation = nil
        _ = try XCTUnwrap(memory.allocate(bytes: 20_000_000))
        XCTAssertEqual(heard.withLock { seen.value }.count, 2, "a dropped observer hears nothing more")
        withExtendedLifetime(observation) {}
    }
}

private final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
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
