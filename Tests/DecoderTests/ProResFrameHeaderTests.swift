import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The frame header parser against bytes laid out by hand from SMPTE RDD 36.
final class ProResFrameHeaderTests: XCTestCase {
    /// A frame whose header fields are given explicitly; `matrices` appends
    /// 64-byte quant matrices and sets their load flags.
    private func frame(
        width: Int = 1920, height: Int = 1080, chroma: UInt8 = 2, interlace: UInt8 = 0,
        rate: UInt8 = 3, primaries: UInt8 = 9, transfer: UInt8 = 16, matrix: UInt8 = 9,
        alpha: UInt8 = 0, version: UInt8 = 0, headerSize: Int? = nil,
        luma: Bool = false, chromaMatrix: Bool = false, extra: Int = 64
    ) -> [UInt8] {
        var h: [UInt8] = []
        let size = 20 + (luma ? 64 : 0) + (chromaMatrix ? 64 : 0)
        let hs = headerSize ?? size
        h += [UInt8(hs >> 8), UInt8(hs & 255), 0, version]
        h += Array("apl0".utf8)
        h += [UInt8(width >> 8), UInt8(width & 255), UInt8(height >> 8), UInt8(height & 255)]
        h += [chroma << 6 | interlace << 2, 0x10 | rate, primaries, transfer, matrix, alpha, 0]
        h += [(luma ? 2 : 0) | (chromaMatrix ? 1 : 0)]
        if luma { h += (0..<64).map { UInt8($0 + 1) } }
        if chromaMatrix { h += (0..<64).map { UInt8(100 + $0) } }
        let total = 8 + h.count + extra
        return [UInt8(total >> 24), UInt8((total >> 16) & 255), UInt8((total >> 8) & 255), UInt8(total & 255)]
            + Array("icpf".utf8) + h + [UInt8](repeating: 0, count: extra)
    }

    private func parse(_ bytes: [UInt8]) throws -> ProResFrameHeader {
        try bytes.withUnsafeBytes { try ProResFrameHeader($0) }
    }

    private func assertRejected(_ bytes: [UInt8], mentioning words: String, line: UInt = #line) {
        XCTAssertThrowsError(try parse(bytes), line: line) { error in
            XCTAssertTrue("\(error)".contains(words), "'\(error)' should mention '\(words)'", line: line)
        }
    }

    func testParsesEveryField() throws {
        let header = try parse(
            frame(width: 3840, height: 2160, chroma: 3, interlace: 2, rate: 1, alpha: 2, luma: true, chromaMatrix: true)
        )
        XCTAssertEqual(header.width, 3840)
        XCTAssertEqual(header.height, 2160)
        XCTAssertEqual(header.chroma, .c444)
        XCTAssertEqual(header.fieldOrder, .bottomFieldFirst)
        XCTAssertEqual(header.alpha, .bits16)
        XCTAssertEqual(header.creator, "apl0")
        XCTAssertEqual(header.colorPrimaries, 9)
        XCTAssertEqual(header.transferCharacteristic, 16)
        XCTAssertEqual(header.matrixCoefficients, 9)
        XCTAssertEqual(header.frameRate?.numerator, 24000)
        XCTAssertEqual(header.frameRate?.denominator, 1001)
        XCTAssertEqual(header.lumaQuantMatrix?.first, 1)
        XCTAssertEqual(header.chromaQuantMatrix?.last, 163)
        XCTAssertEqual(header.headerSize, 148)
        XCTAssertEqual(header.pictureOffset, 156)
    }

    func testDefaultsWithoutMatricesAndProgressive422() throws {
        let header = try parse(frame())
        XCTAssertEqual(header.chroma, .c422)
        XCTAssertEqual(header.fieldOrder, .progressive)
        XCTAssertEqual(header.alpha, .none)
        XCTAssertNil(header.lumaQuantMatrix)
        XCTAssertNil(header.chromaQuantMatrix)
        XCTAssertEqual(try parse(frame(interlace: 1)).fieldOrder, .topFieldFirst)
        XCTAssertEqual(try parse(frame(alpha: 1)).alpha.bits, 8)
    }

    func testRejectsMalformedHeaders() {
        assertRejected(Array(frame().prefix(20)), mentioning: "too short")
        var noTag = frame()
        noTag[4] = UInt8(ascii: "x")
        assertRejected(noTag, mentioning: "icpf")
        assertRejected(frame(headerSize: 12), mentioning: "below the 20 bytes")
        assertRejected(frame(headerSize: 4000), mentioning: "runs past")
        assertRejected(frame(version: 2), mentioning: "version 2")
        assertRejected(frame(width: 0), mentioning: "empty")
        assertRejected(frame(width: 65535, height: 65535), mentioning: "exceeds the supported maximum")
        assertRejected(frame(alpha: 3), mentioning: "alpha")
        assertRejected(frame(interlace: 3), mentioning: "interlace")
        // The header claims 20 bytes but asks for both matrices, which the frame is too short to hold.
        assertRejected(
            Array(frame(headerSize: 20, luma: true, chromaMatrix: true, extra: 0).dropLast(70)),
            mentioning: "quantisation matrix")
    }

    func testFixtureHeadersMatchFFprobe() throws {
        // ref/tags.tsv holds what ffprobe and the raw header bytes say.
        let rows = try TagTable.load()
        for name in ["hq.mov", "pq.mov", "4444.mov", "interlaced-bff.mov", "odd-size.mov"] {
            let row = try XCTUnwrap(rows[name])
            let source = try openSampleSource(Repo.fixture(name))
            let sample = try XCTUnwrap(try source.nextSample())
            let header = try ProResFrameHeader(sample.bytes)
            XCTAssertEqual("\(header.width)", row["width"], name)
            XCTAssertEqual("\(header.height)", row["height"], name)
            XCTAssertEqual("\(header.colorPrimaries)", row["hdr_primaries"], name)
            XCTAssertEqual("\(header.transferCharacteristic)", row["hdr_transfer"], name)
            XCTAssertEqual("\(header.matrixCoefficients)", row["hdr_matrix"], name)
            XCTAssertEqual("\(header.alpha.rawValue)", row["hdr_alpha_info"], name)
            XCTAssertEqual(header.creator, row["hdr_creator"], name)
        }
    }
}

/// Fixtures/ref/tags.tsv, written by ffprobe: file name → column → value.
enum TagTable {
    static func load() throws -> [String: [String: String]] {
        let lines = try String(contentsOfFile: Repo.reference("tags.tsv"), encoding: .utf8).split(separator: "\n")
        let columns = lines[0].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        var rows: [String: [String: String]] = [:]
        for line in lines.dropFirst() {
            let values = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            rows[values[0]] = Dictionary(uniqueKeysWithValues: zip(columns, values))
        }
        return rows
    }
}
