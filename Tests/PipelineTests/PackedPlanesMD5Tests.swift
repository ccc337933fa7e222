import Foundation
import XCTest

@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResPipeline
@testable import TestSupport

/// md5 of the native planes read straight from packed surfaces
/// (`FrameBytes.nativePlanes`), a row at a time: equal to `md5sum` of the
/// planar frame the test lays out itself from the packed samples, in every
/// lane of a batch of frames that differ, and through libavutil alone.
final class PackedPlanesMD5Tests: XCTestCase {
    /// A packed surface of random samples, and its planar frame as the test
    /// reads the layouts: v216 is Cb Y' Cr Y' per pair, y416 A Y' Cb Cr per
    /// sample; the planes go Y', Cb, Cr (A), each sample shifted down to
    /// `bitDepth` bits, 16-bit little-endian, rows tight.
    private func frame(
        _ layout: PackedLayout, format: PlanarFormat, width: Int, height: Int, seed: UInt64,
        pool: inout PixelBufferPool?
    ) throws -> (PixelBuffer, Data) {
        let surface = try PixelBufferPool.makeBuffer(.packed(layout, width: width, height: height), from: &pool)
        var random = KernelRandom(seed: seed)
        let plane = surface.layout.planes[0]
        let samplesPerRow = layout == .v216 ? 4 * ((width + 1) / 2) : 4 * width
        var rows: [[UInt16]] = []
        for y in 0..<height {
            let row = (0..<samplesPerRow).map { _ in UInt16(truncatingIfNeeded: random.next()) }
            let destination = (surface.baseAddress + plane.offset + y * plane.bytesPerRow).assumingMemoryBound(
                to: UInt16.self)
            for (x, sample) in row.enumerated() { destination[x] = sample.littleEndian }
            rows.append(row)
        }
        let shift = UInt16(16 - format.bitDepth)
        var planes = [[UInt16]](repeating: [], count: format.hasAlpha ? 4 : 3)
        for row in rows {
            if layout == .v216 {
                for x in 0..<width { planes[0].append(row[4 * (x / 2) + (x % 2 == 0 ? 1 : 3)] >> shift) }
                for pair in 0..<(width + 1) / 2 {
                    planes[1].append(row[4 * pair] >> shift)
                    planes[2].append(row[4 * pair + 2] >> shift)
                }
            } else {
                for x in 0..<width {
                    planes[0].append(row[4 * x + 1] >> shift)
                    planes[1].append(row[4 * x + 2] >> shift)
                    planes[2].append(row[4 * x + 3] >> shift)
                    if format.hasAlpha { planes[3].append(row[4 * x] >> shift) }
                }
            }
        }
        var bytes = Data()
        for sample in planes.joined() { bytes.append(contentsOf: [UInt8(sample & 0xFF), UInt8(sample >> 8)]) }
        return (surface, bytes)
    }

    private func check(_ layout: PackedLayout, format: PlanarFormat, width: Int, height: Int) throws {
        var pool: PixelBufferPool?
        // Nine frames: eight lanes and one alone, each of its own content.
        let frames = try (0..<9).map {
            try frame(layout, format: format, width: width, height: height, seed: UInt64(40 + $0), pool: &pool)
        }
        defer { frames.forEach { $0.0.releaseUse() } }
        let expected = try MD5Sum.hexes(frames.map(\.1))
        XCTAssertEqual(Set(expected).count, frames.count, "the frames differ")
        let bytes = frames.map { FrameBytes.nativePlanes(of: $0.0, format: format) }
        XCTAssertEqual(
            bytes.map(\.count), frames.map(\.1.count), "\(format) \(width)x\(height): the planar frame's size")
        XCTAssertEqual(MD5Batch.hex(of: bytes), expected, "\(format) \(width)x\(height): in lanes, in order")
        XCTAssertEqual(
            bytes.map { MD5Batch.hex(of: [$0])[0] }, expected,
            "\(format) \(width)x\(height): one at a time, a row at a time")
        let hashed = FrameHashSink.Algorithm.md5.hex(Array(bytes.prefix(3)))
        XCTAssertEqual(hashed, Array(expected.prefix(3)), "the sink's own batches")
        XCTAssertEqual(
            bytes[0].withSpans { Data($0.map { Data($0) }.joined()) }, frames[0].1, "the planar frame unpacked whole")
    }

    func testV216NativePlanes() throws {
        let format = PlanarFormat(decoding: .c422, bitDepth: 10, alpha: false)
        // Rows of 64-byte multiples (in place) and odd widths (across rows).
        try check(.v216, format: format, width: 64, height: 4)
        try check(.v216, format: format, width: 37, height: 5)
    }

    func testY416NativePlanesWithAlpha() throws {
        try check(.y416, format: PlanarFormat(decoding: .c444, bitDepth: 12, alpha: true), width: 19, height: 3)
        try check(.y416, format: PlanarFormat(decoding: .c444, bitDepth: 12, alpha: false), width: 32, height: 2)
    }
}
