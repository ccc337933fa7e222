import CFFmpeg
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// Packing checked against pixels computed by hand from the layout rules.
final class FramePackerTests: XCTestCase {
    /// A planar surface with padded rows (stride and height larger than the
    /// picture), filled plane by plane from `planes` (row-major, visible samples).
    private func planar(_ name: String, width: Int, height: Int, planes: [[UInt16]]) throws -> (
        PixelBufferPool, PixelBuffer
    ) {
        let format = try XCTUnwrap(PlanarFormat(avPixelFormat: av_get_pix_fmt(name)))
        let layout = SurfaceLayout.planar(
            format, width: width, height: height, paddedWidth: 16, paddedHeight: 16, rowAlignment: 64)
        let pool = PixelBufferPool(layout: layout)
        let buffer = try pool.makeBuffer()
        memset(buffer.baseAddress, 0xEE, layout.byteCount)  // padding must never leak into output
        XCTAssertEqual(planes.count, format.planeCount)
        for (p, samples) in planes.enumerated() {
            let w = format.planeWidth(p, width: width)
            XCTAssertEqual(samples.count, w * height)
            for row in 0..<height {
                let dst = (buffer.plane(p) + row * layout.planes[p].bytesPerRow).assumingMemoryBound(to: UInt16.self)
                for x in 0..<w { dst[x] = samples[row * w + x] }
            }
        }
        return (pool, buffer)
    }

    private func pack(_ source: PixelBuffer, _ layout: PackedLayout) throws -> [UInt16] {
        let pool = PixelBufferPool(layout: .packed(layout, width: source.layout.width, height: source.layout.height))
        let out = try pool.makeBuffer()
        defer { out.releaseUse() }
        FramePacker.pack(source, into: out)
        let bytes = out.visibleSpans().reduce(into: [UInt8]()) { $0 += $1 }
        // Little-endian 16-bit words, decoded explicitly rather than by casting.
        return stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
    }

    func testY416From422TenBitRepeatsChromaAndIsOpaque() throws {
        // 3x1 picture: Y' 64 (black), 940 (white), 512; chroma pairs (Cb,Cr) = (512,512), (100,900)
        let (_, src) = try planar(
            "yuv422p10le", width: 3, height: 1, planes: [[64, 940, 512], [512, 100], [512, 900]])
        defer { src.releaseUse() }
        XCTAssertEqual(
            try pack(src, .y416),
            [
                65535, 4096, 32768, 32768,  // 64 << 6 = 4096, 512 << 6 = 32768
                65535, 60160, 32768, 32768,  // 940 << 6 = 60160, chroma repeated for the odd column
                65535, 32768, 6400, 57600,  // 100 << 6 = 6400, 900 << 6 = 57600
            ])
    }

    func testV216From422OddWidthRepeatsLastLuma() throws {
        let (_, src) = try planar(
            "yuv422p10le", width: 3, height: 2,
            planes: [[64, 940, 512, 1, 2, 3], [512, 100, 7, 8], [512, 900, 9, 10]])
        defer { src.releaseUse() }
        XCTAssertEqual(
            try pack(src, .v216),
            [
                // row 0: (Cb0 Y0 Cr0 Y1) (Cb1 Y2 Cr1 Y2)
                32768, 4096, 32768, 60160, 6400, 32768, 57600, 32768,
                // row 1
                448, 64, 576, 128, 512, 192, 640, 192,
            ])
    }

    func testY416From444TwelveBitWidensAlphaByBitReplication() throws {
        // 2x1 picture, 12-bit: alpha 4095 → 65535, 0 → 0; Y' 256 → 4096 (<< 4)
        let (_, src) = try planar(
            "yuva444p12le", width: 2, height: 1,
            planes: [[256, 3760], [2048, 100], [2048, 4000], [4095, 0]])
        defer { src.releaseUse() }
        XCTAssertEqual(try pack(src, .y416), [65535, 4096, 32768, 32768, 0, 60160, 1600, 64000])
    }

    func testAlphaMidValueReplicatesHighBits() throws {
        // 12-bit 2048 = 0x800 → (0x800 << 4) | (0x800 >> 8) = 0x8000 | 0x8 = 32776
        // 12-bit 1 → 16 | 0 = 16;  10-bit 1023 → 65535, 10-bit 512 → 32768 | 32 = 32800
        let (_, twelve) = try planar(
            "yuva444p12le", width: 2, height: 1, planes: [[0, 0], [0, 0], [0, 0], [2048, 1]])
        defer { twelve.releaseUse() }
        let packed12 = try pack(twelve, .y416)
        XCTAssertEqual([packed12[0], packed12[4]], [32776, 16])
        let (_, ten) = try planar(
            "yuva444p10le", width: 2, height: 1, planes: [[0, 0], [0, 0], [0, 0], [1023, 512]])
        defer { ten.releaseUse() }
        let packed10 = try pack(ten, .y416)
        XCTAssertEqual([packed10[0], packed10[4]], [65535, 32800])
    }

    func testV216From444KeepsEvenColumnChromaAndDropsAlpha() throws {
        let (_, src) = try planar(
            "yuva444p12le", width: 4, height: 1,
            planes: [[16, 32, 48, 64], [1, 2, 3, 4], [5, 6, 7, 8], [4095, 4095, 0, 0]])
        defer { src.releaseUse() }
        XCTAssertEqual(try pack(src, .v216), [16, 256, 80, 512, 48, 768, 112, 1024])
    }

    func testPackedRowSizesAreTight() {
        XCTAssertEqual(PackedLayout.y416.bytesPerRow(width: 187), 187 * 8)
        XCTAssertEqual(PackedLayout.v216.bytesPerRow(width: 187), 94 * 8)
        XCTAssertEqual(PackedLayout.v216.bytesPerRow(width: 192), 96 * 8)
    }
}
