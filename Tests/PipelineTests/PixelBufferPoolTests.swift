import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

final class PixelBufferPoolTests: XCTestCase {
    private let layout = SurfaceLayout.packed(.y416, width: 8, height: 2)

    func testSurfacesAreReusedNotReallocated() throws {
        let pool = PixelBufferPool(layout: layout)
        var addresses = Set<UnsafeMutableRawPointer>()
        for _ in 0..<100 {
            let buffer = try pool.makeBuffer()
            addresses.insert(buffer.baseAddress)
            buffer.releaseUse()
        }
        XCTAssertEqual(addresses.count, 1)
        XCTAssertEqual(pool.statistics, .init(allocated: 1, vended: 100, peakInUse: 1))
    }

    func testSurfaceReturnsOnlyWhenTheLastUserReleases() throws {
        let pool = PixelBufferPool(layout: layout)
        let first = try pool.makeBuffer()
        first.retainUse()  // e.g. the GPU still reads it
        XCTAssertEqual(first.useCount, 2)
        first.releaseUse()
        // Still in use: the pool must hand out a different surface.
        let second = try pool.makeBuffer()
        XCTAssertNotEqual(first.baseAddress, second.baseAddress)
        first.releaseUse()
        XCTAssertEqual(first.useCount, 0)
        let third = try pool.makeBuffer()
        XCTAssertEqual(third.baseAddress, first.baseAddress)
        second.releaseUse()
        third.releaseUse()
        XCTAssertEqual(pool.statistics.allocated, 2)
    }

    func testBoundedPoolWaitsForARelease() throws {
        let pool = PixelBufferPool(layout: layout, maximumCount: 1)
        let held = try pool.makeBuffer()
        let got = expectation(description: "second makeBuffer returns after the release")
        let asking = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            asking.signal()
            let buffer = try? pool.makeBuffer()
            XCTAssertEqual(buffer?.baseAddress, held.baseAddress)
            buffer?.releaseUse()
            got.fulfill()
        }
        // The request has begun (not merely been scheduled) before the check.
        asking.wait()
        usleep(100_000)
        XCTAssertEqual(pool.statistics.vended, 1, "the second request must wait while the only surface is in use")
        held.releaseUse()
        wait(for: [got], timeout: 5)
        XCTAssertEqual(pool.statistics.allocated, 1)
    }

    func testSurfacesArePageAligned() throws {
        let pool = PixelBufferPool(layout: layout)
        let buffer = try pool.makeBuffer()
        defer { buffer.releaseUse() }
        XCTAssertEqual(Int(bitPattern: buffer.baseAddress) % 4096, 0)
    }

    func testVisibleSpansSkipRowPadding() throws {
        let format = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
        let padded = SurfaceLayout.planar(
            format, width: 5, height: 3, paddedWidth: 16, paddedHeight: 16, rowAlignment: 64)
        let pool = PixelBufferPool(layout: padded)
        let buffer = try pool.makeBuffer()
        defer { buffer.releaseUse() }
        let spans = buffer.visibleSpans()
        XCTAssertEqual(spans.count, 9, "3 planes × 3 rows, each row its own span")
        XCTAssertEqual(spans.map(\.count), [10, 10, 10, 6, 6, 6, 6, 6, 6])
        XCTAssertEqual(spans.reduce(0) { $0 + $1.count }, format.tightByteCount(width: 5, height: 3))
        XCTAssertEqual(padded.visibleByteCount, 5 * 3 * 2 + 2 * 3 * 3 * 2)
    }
}
