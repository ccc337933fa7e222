import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// `--effect SPEC` as text: what each spec means, defaults included, and a
/// one-line error naming the spec for everything malformed.
final class EffectParserTests: XCTestCase {
    private func parse(_ text: String) throws -> Effect { try EffectParser.parse(text, referenceWhite: 203) }

    func testSpecsAndTheirDefaults() throws {
        XCTAssertEqual(try parse("sepia"), .sepia(amount: 1))
        XCTAssertEqual(try parse("sepia:0.25"), .sepia(amount: 0.25))
        XCTAssertEqual(try parse("exposure:-1.5"), .exposure(stops: -1.5))
        XCTAssertEqual(try parse("saturation:2"), .saturation(factor: 2))
        XCTAssertEqual(
            try parse("chroma-key:color=0,1,0"),
            .chromaKey(ChromaKey(color: SIMD3(0, 1, 0), tolerance: 0.1, softness: 0.1)))
        XCTAssertEqual(
            try parse("chroma-key:color=0.1,0.8,0.2,tolerance=0.05,softness=0"),
            .chromaKey(ChromaKey(color: SIMD3(0.1, 0.8, 0.2), tolerance: 0.05, softness: 0)))
        XCTAssertEqual(
            try parse("chroma-key:softness=0.3,color=0,0,1").description,
            "chroma-key:color=0,0,1,tolerance=0.1,softness=0.3")
    }

    func testLUTSpecReadsTheFileAndTheShaper() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir.appendingPathComponent("a,b.cube").path  // a comma in the name
        try ("LUT_3D_SIZE 2\n" + String(repeating: "0.5 0.5 0.5\n", count: 8)).write(
            toFile: path, atomically: true, encoding: .utf8)
        guard case .lut(let pq) = try parse("lut:\(path)") else { return XCTFail("not a LUT") }
        XCTAssertEqual(pq.shaper, .pq(referenceWhite: 203))
        XCTAssertEqual(pq.lut.size, 2)
        guard case .lut(let linear) = try parse("lut:\(path),shaper=linear") else { return XCTFail("not a LUT") }
        XCTAssertEqual(linear.shaper, .linear)
        XCTAssertEqual(linear.path, path)
    }

    func testMalformedSpecsAreUsageErrorsNamingTheSpec() {
        for (text, why) in [
            ("blur", "unknown effect 'blur'"), ("sepia:1.5", "from 0 to 1"), ("sepia:", "not ''"),
            ("exposure", "needs a value"),
            ("exposure:abc", "not 'abc'"), ("exposure:nan", "not 'nan'"), ("exposure:21", "from -20 to 20"),
            ("saturation:-1", "from 0 to 10"),
            ("chroma-key", "needs a value"), ("chroma-key:0,1,0", "expected color=R,G,B"),
            ("chroma-key:color=0,1", "three values"),
            ("chroma-key:color=0,1,0,2", "three values"), ("chroma-key:color=0,1.5,0", "from 0 to 1"),
            ("chroma-key:color=0,1,0,tolerance=-1", "from 0 to 2"),
            ("chroma-key:color=0,1,0,hue=3", "unknown chroma-key setting 'hue'"),
            ("chroma-key:color=0,1,0,color=1,0,0", "color given twice"),
            ("chroma-key:tolerance=0.1", "needs color=R,G,B"),
            ("lut", "needs a value"), ("lut:,shaper=pq", "needs a file"),
            ("lut:x.cube,shaper=log", "unknown shaper 'log'"),
        ] {
            XCTAssertThrowsError(try parse(text), text) { error in
                // The library names the spec as data; the CLI words it as
                // "invalid --effect 'SPEC': WHY" (ErrorWordsTests holds that text).
                guard case .badRequest(.invalidEffect(let spec, let message)) = error as? ProResDecodeError else {
                    return XCTFail("\(text): \(error)")
                }
                XCTAssertEqual(spec, text)
                XCTAssertTrue(message.contains(why), "\(text): \(message)")
                XCTAssertFalse(message.contains("\n"))
            }
        }
    }
}
