import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The .cube parser: the format's rules, and a one-line error with the file
/// name and line number for every way a file can be malformed.
final class CubeLUTTests: XCTestCase {
    private func identity2(_ header: String = "LUT_3D_SIZE 2\n") -> String {
        header + (0..<8).map { i in "\(i & 1) \((i >> 1) & 1) \(i >> 2)\n" }.joined()
    }

    func testParsesKeywordsCommentsAndRedFastestOrder() throws {
        let text =
            "\u{FEFF}# made by hand\r\nTITLE \"two, by two\"\r\n\r\nDOMAIN_MIN 0 -1 0\r\nDOMAIN_MAX 4 1 2\r\nLUT_3D_SIZE 2\r\n"
            + "0 0 0\r\n1 0 0\r\n0 1 0\r\n1 1 0\r\n0 0 1\r\n1 0 1\r\n0 1 1\r\n  1\t1 1.5e0  \r\n# trailing comment\r\n"
        let lut = try CubeLUT(parsing: text, path: "t.cube")
        XCTAssertEqual(lut.title, "two, by two")
        XCTAssertEqual(lut.size, 2)
        XCTAssertEqual(lut.domainMin, SIMD3(0, -1, 0))
        XCTAssertEqual(lut.domainMax, SIMD3(4, 1, 2))
        XCTAssertEqual(lut.entry(r: 1, g: 0, b: 0), SIMD3(1, 0, 0), "red changes fastest")
        XCTAssertEqual(lut.entry(r: 0, g: 1, b: 0), SIMD3(0, 1, 0))
        XCTAssertEqual(lut.entry(r: 0, g: 0, b: 1), SIMD3(0, 0, 1))
        XCTAssertEqual(lut.entry(r: 1, g: 1, b: 1), SIMD3(1, 1, 1.5))
    }

    func testDefaultsAndResolveInputRange() throws {
        let plain = try CubeLUT(parsing: identity2(), path: "t.cube")
        XCTAssertNil(plain.title)
        XCTAssertEqual(plain.domainMin, SIMD3(0, 0, 0))
        XCTAssertEqual(plain.domainMax, SIMD3(1, 1, 1))
        let ranged = try CubeLUT(parsing: identity2("LUT_3D_INPUT_RANGE 0 64\nLUT_3D_SIZE 2\n"), path: "t.cube")
        XCTAssertEqual(ranged.domainMax, SIMD3(64, 64, 64))
        // A domain minimum above the default maximum is fine once the maximum follows.
        let high = try CubeLUT(
            parsing: identity2("DOMAIN_MIN 2 2 2\nDOMAIN_MAX 10 10 10\nLUT_3D_SIZE 2\n"), path: "t.cube")
        XCTAssertEqual(high.domainMin, SIMD3(2, 2, 2))
    }

    func testMalformedFilesNameTheLine() {
        let eight = String(repeating: "0 0 0\n", count: 8)
        let cases: [(text: String, line: Int, message: String)] = [
            ("0 0 0\n", 1, "table data before LUT_3D_SIZE"),
            ("LUT_3D_SIZE 2\n0 0 0\n0 0\n", 3, "a table line (R G B) needs 3 numbers, found 2"),
            ("LUT_3D_SIZE 2\n0 0 0 0\n", 2, "needs 3 numbers, found 4"),
            ("LUT_3D_SIZE 2\n0 0 x\n", 2, "'x' is not a finite number"),
            ("LUT_3D_SIZE 2\n0 0 1e999\n", 2, "'1e999' is not a finite number"),
            ("LUT_3D_SIZE 2\n" + eight + "1 1 1\n", 10, "more table lines than LUT_3D_SIZE 2 allows (8)"),
            ("LUT_3D_SIZE 2\n0 0 0\n\n# end\n", 5, "LUT_3D_SIZE 2 needs 8 table lines, found 1"),
            ("TITLE \"x\"\n", 2, "no LUT_3D_SIZE"),
            ("# ok\nLUT_3D_SIZE 2\nLUT_3D_SIZE 2\n", 3, "LUT_3D_SIZE given twice"),
            ("LUT_3D_SIZE 1\n", 1, "LUT_3D_SIZE needs one whole number from 2 to 256"),
            ("LUT_3D_SIZE 257\n", 1, "from 2 to 256"),
            ("LUT_3D_SIZE 2.5\n", 1, "from 2 to 256"),
            ("LUT_1D_SIZE 1024\n", 1, "1D LUTs (LUT_1D_SIZE) are not supported"),
            ("LUT_3D_SIZE 2\nLUT_IN_VIDEO_RANGE\n", 2, "unknown keyword 'LUT_IN_VIDEO_RANGE'"),
            ("LUT_3D_SIZE 2\n0 0 0\nTITLE \"late\"\n", 3, "keyword TITLE after the table data"),
            ("TITLE untitled\n", 1, "TITLE needs a quoted string"),
            ("DOMAIN_MIN 0 0\n", 1, "DOMAIN_MIN needs 3 numbers, found 2"),
            (
                "LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 0 1\n" + eight, 3,
                "the domain minimum must be below the maximum"
            ),
            ("LUT_3D_INPUT_RANGE 0 1\nDOMAIN_MAX 1 1 1\n", 2, "given twice"),
        ]
        for (text, line, message) in cases {
            XCTAssertThrowsError(try CubeLUT(parsing: text, path: "looks/bad.cube"), message) { error in
                guard let error = error as? CubeLUTError else { return XCTFail("\(message): \(error)") }
                XCTAssertEqual(error.line, line, "\(error)")
                XCTAssertTrue(error.message.contains(message), "\(error)")
                XCTAssertTrue(error.description.hasPrefix("LUT 'looks/bad.cube' line \(line): "), error.description)
                XCTAssertFalse(error.description.contains("\n"))
            }
        }
    }

    func testMissingFileAndDirectory() throws {
        let dir = try makeTemporaryDirectory(self)
        XCTAssertThrowsError(try CubeLUT(contentsOf: dir.appendingPathComponent("none.cube").path)) { error in
            XCTAssertEqual((error as? CubeLUTError)?.line, nil)
            XCTAssertTrue("\(error)".hasSuffix("none.cube': no such file"), "\(error)")
        }
        XCTAssertThrowsError(try CubeLUT(contentsOf: dir.path)) { error in
            XCTAssertTrue("\(error)".contains("is a directory"), "\(error)")
        }
    }
}
