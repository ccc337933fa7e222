import Foundation
import XCTest

@testable import HostSupport
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResPipeline
@testable import TestSupport

/// The pure-Swift writers behind the EXR attributes and PNG chunks, checked
/// against published check values and independent readers (Python's zlib).
final class ImageFileWriterTests: XCTestCase {
    func testChecksumsMatchPublishedCheckValues() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)  // the CRC-32 catalogue's check value
        XCTAssertEqual(ZlibStoredStream.adler32(Array("Wikipedia".utf8)), 0x11E6_0398)  // RFC 1950's worked example
        XCTAssertEqual(ZlibStoredStream.adler32([]), 1)
    }

    func testStoredZlibStreamsInflateWithPythonsZlib() throws {
        // Empty, small, and larger than one stored block (65535 bytes).
        for count in [0, 300, 65535, 70_000] {
            let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
            let run = try runExternal(
                [
                    "python3", "-c",
                    "import sys, zlib, hashlib; print(hashlib.sha256(zlib.decompress(sys.stdin.buffer.read())).hexdigest())",
                ],
                stdin: Data(ZlibStoredStream.wrap(data)))
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(
                run.text.trimmingCharacters(in: .whitespacesAndNewlines), SHA256.hex(of: data), "\(count) bytes")
        }
    }

    func testTimecodesAdvanceAcrossDropFrameMinutes() throws {
        let start = try XCTUnwrap(SMPTETimecode("00:00:59;28", rate: (30000, 1001)))
        XCTAssertTrue(start.dropFrame)
        XCTAssertEqual(
            (0..<4).map { start.advanced(by: $0).text }, ["00:00:59;28", "00:00:59;29", "00:01:00;02", "00:01:00;03"])
        // Every tenth minute keeps its first two numbers.
        XCTAssertEqual(
            try XCTUnwrap(SMPTETimecode("00:09:59;29", rate: (30000, 1001))).advanced(by: 1).text, "00:10:00;00")
        XCTAssertEqual(try XCTUnwrap(SMPTETimecode("00:10:00;00", rate: (30000, 1001))).frameNumber, 17982)
        XCTAssertNil(SMPTETimecode("00:01:00;01", rate: (30000, 1001)), "a dropped number is no time code")
        let plain = try XCTUnwrap(SMPTETimecode("23:59:59:24", rate: (25, 1)))
        XCTAssertEqual(plain.advanced(by: 1).text, "00:00:00:00", "wraps at 24 hours")
        XCTAssertEqual(plain.advanced(by: -25).text, "23:59:58:24")
        XCTAssertNil(SMPTETimecode("01:02:03", rate: (25, 1)))
        XCTAssertNil(SMPTETimecode("01:02:03:25", rate: (25, 1)))
    }

    func testTimecodePacksAsBinaryCodedDecimal() throws {
        // 12:34:56:23 → BCD digits in bits 24-29, 16-22, 8-14, 0-5.
        XCTAssertEqual(try XCTUnwrap(SMPTETimecode("12:34:56:23", rate: (25, 1))).packedTimeAndFlags, 0x1234_5623)
        XCTAssertEqual(
            try XCTUnwrap(SMPTETimecode("01:00:00;02", rate: (30000, 1001))).packedTimeAndFlags, 0x0100_0042,
            "drop flag is bit 6")
        XCTAssertEqual(
            try XCTUnwrap(SMPTETimecode("00:00:00:59", rate: (60, 1))).packedTimeAndFlags, 0x29,
            "60 fps counts frame pairs")
    }

    func testEXRAttributesAreEncodedAsTheFileLayoutSays() {
        let chromaticities = EXRAttribute.chromaticities(ColorPrimariesSpec.displayP3.chromaticities)
        XCTAssertEqual(chromaticities.value.count, 32)
        let floats = stride(from: 0, to: 32, by: 4).map {
            Float(bitPattern: chromaticities.value.littleEndian(at: $0, as: UInt32.self))
        }
        XCTAssertEqual(floats, [0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.3127, 0.3290])
        let rate = EXRAttribute.framesPerSecond(numerator: 30000, denominator: 1001)
        XCTAssertEqual(
            rate.encoded, Array("framesPerSecond\0rational\0".utf8) + [8, 0, 0, 0, 0x30, 0x75, 0, 0, 0xE9, 3, 0, 0])
    }

    func testEXREditorRejectsWhatItCannotShift() throws {
        XCTAssertThrowsError(try EXRHeaderEditor.setting([], in: Array("not an exr at all".utf8)))
        var tiled: [UInt8] = []
        tiled.appendLittleEndian(UInt32(20_000_630))
        tiled.appendLittleEndian(UInt32(2 | 0x200))
        tiled.append(0)
        XCTAssertThrowsError(try EXRHeaderEditor.setting([], in: tiled)) {
            XCTAssertTrue("\($0)".contains("single-part scanline"), "\($0)")
        }
        // A header whose offset table points outside the file.
        var header: [UInt8] = []
        header.appendLittleEndian(UInt32(20_000_630))
        header.appendLittleEndian(UInt32(2))
        header += EXRAttribute(name: "compression", type: "compression", value: [0]).encoded
        var window: [UInt8] = []
        for v: Int32 in [0, 0, 0, 0] { window.appendLittleEndian(v) }
        header += EXRAttribute(name: "dataWindow", type: "box2i", value: window).encoded
        header.append(0)
        header.appendLittleEndian(UInt64(1_000_000))
        XCTAssertThrowsError(try EXRHeaderEditor.setting([], in: header)) {
            XCTAssertTrue("\($0)".contains("outside the file"), "\($0)")
        }
    }

    func testPNGEditorReplacesTheEncodersPixelSizeAndKeepsTheRest() throws {
        let encoded = try StillImageEncoder.png16(
            [UInt16](repeating: 0x8000, count: 4 * 2 * 3), width: 4, height: 2, channels: 3, errorPath: "t")
        var tags = ImageFileTags()
        tags.sampleAspectRatio = (4, 3)
        let tagged = try tags.taggedPNG(encoded, errorPath: "t")
        let types = try PNGChunkEditor.parse(tagged).map(\.chunk.type)
        XCTAssertEqual(types, ["IHDR", "cICP", "iCCP", "pHYs", "IDAT", "IEND"])
        let before = try PNGChunkEditor.parse(encoded).filter { $0.chunk.type == "IDAT" }.map(\.chunk)
        XCTAssertEqual(
            try PNGChunkEditor.parse(tagged).filter { $0.chunk.type == "IDAT" }.map(\.chunk), before, "pixels untouched"
        )
    }

    func testICCProfileColorantsAreP3AdaptedToD50() {
        // ProResCore's own matrices agree with the independent float64 ones.
        let m = DisplayP3ICCProfile.colorants
        for (j, column) in IndependentP3D50.colorants.enumerated() {
            for i in 0..<3 { XCTAssertEqual(m[i, j], column[i], accuracy: 1e-9) }
        }
        // Each row sums to D50: RGB (1, 1, 1) is the connection space's white.
        for i in 0..<3 { XCTAssertEqual(m[i, 0] + m[i, 1] + m[i, 2], IndependentP3D50.d50[i], accuracy: 1e-9) }
        XCTAssertEqual(DisplayP3ICCProfile.bytes.count % 4, 0)
        XCTAssertEqual(
            Int(DisplayP3ICCProfile.bytes.bigEndian(at: 0, as: UInt32.self)), DisplayP3ICCProfile.bytes.count)
    }
}
