import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCheck
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// Every `--expect` key, passing and failing, against the format
/// descriptions of real fixtures (their facts are listed in Fixtures/README.md
/// and ref/tags.tsv).
final class CheckRuleTests: XCTestCase {
    private func facts(_ clip: String, maxNits: Double? = nil) throws -> ExpectRule.Facts {
        let source = try openSampleSource(Repo.fixture(clip))
        return ExpectRule.Facts(format: source.format, frames: 5, maxNits: maxNits)
    }

    /// Asserts that each rule holds (actual nil) or is broken with `actual`.
    private func assertRules(
        _ clip: String, maxNits: Double? = nil, _ cases: [(String, String?)],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let facts = try facts(clip, maxNits: maxNits)
        for (text, actual) in cases {
            let rule = try ExpectRule(text)
            XCTAssertEqual(rule.violation(facts), actual, "\(clip): \(text)", file: file, line: line)
        }
    }

    func testProfileSizeAndShape() throws {
        try assertRules(
            "hq.mov",
            [
                ("profile=hq", nil), ("profile=4444", "hq"), ("profile!=proxy", nil), ("profile!=hq", "hq"),
                ("size=192x112", nil), ("size=1920x1080", "192x112"), ("size!=1920x1080", nil),
                ("alpha=false", nil), ("alpha=true", "false"),
                ("chroma=4:2:2", nil), ("chroma=444", "4:2:2"),
                ("interlaced=false", nil), ("interlaced=true", "false (progressive)"),
            ])
        try assertRules(
            "4444.mov",
            [
                ("profile=4444", nil), ("alpha=true", nil), ("chroma=4:4:4", nil), ("bit-depth=12", nil),
                ("bit-depth<12", "12"),
            ])
        try assertRules("4444xq.mov", [("profile=4444xq", nil), ("profile=4444", "4444xq")])
        try assertRules(
            "interlaced-tff.mov", [("interlaced=true", nil), ("interlaced=false", "true (top field first)")])
        try assertRules("hq.prores", [("profile=hq", "unknown"), ("fps=25", "unknown")])
    }

    func testNumericComparisons() throws {
        try assertRules(
            "hq.mov",
            [
                ("frames=5", nil), ("frames!=5", "5"), ("frames>=5", nil), ("frames>=24", "5"), ("frames<=5", nil),
                ("frames<=4", "5"),
                ("frames>4", nil), ("frames>5", "5"), ("frames<6", nil), ("frames<5", "5"),
                ("width=192", nil), ("width>192", "192"), ("height=112", nil), ("height<=100", "112"),
                ("fps=25", nil), ("fps=25.0004", nil), ("fps=23.976", "25"), ("fps>=24", nil), ("fps<25", "25"),
                ("bit-depth=10", nil), ("bit-depth>=12", "10"),
            ])
    }

    func testMaxNits() throws {
        try assertRules(
            "pq.mov", maxNits: 1000, [("max-nits<=1000", nil), ("max-nits<1000", "1000"), ("max-nits>=4000", "1000")])
        try assertRules("bt709.mov", [("max-nits<=1000", "n/a (transfer bt709 is not PQ or HLG)")])
    }

    /// Colour rules compare what the file states; a fallback matches only `untagged`.
    func testColourTags() throws {
        try assertRules(
            "pq.mov",
            [
                ("transfer=pq", nil), ("transfer=smpte2084", nil), ("transfer=hlg", "smpte2084 (bitstream)"),
                ("transfer!=hlg", nil),
                ("primaries=bt2020", nil), ("primaries=bt709", "bt2020 (bitstream)"),
                ("matrix=bt2020nc", nil), ("matrix=bt2020", nil), ("matrix=bt709", "bt2020nc (bitstream)"),
                ("transfer=untagged", "smpte2084 (bitstream)"),
            ])
        try assertRules("hlg.mov", [("transfer=hlg", nil), ("transfer=arib-std-b67", nil)])
        try assertRules("p3.mov", [("primaries=p3", nil), ("primaries=smpte432", nil), ("transfer=bt709", nil)])
        try assertRules(
            "hq.mov",
            [
                ("transfer=bt709", "untagged (bt709 assumed)"), ("transfer=untagged", nil), ("transfer!=pq", nil),
                ("primaries=untagged", nil), ("matrix!=untagged", "untagged (smpte170m assumed)"),
            ])
    }

    func testParsing() throws {
        let rule = try ExpectRule("  frames >= 24 ")
        XCTAssertEqual(rule.text, "frames >= 24")
        XCTAssertEqual(rule.key, .frames)
        XCTAssertEqual(rule.comparison, .atLeast)
        XCTAssertEqual(
            try ExpectRule.parseList("profile=hq,size=1920x1080,frames>=24").map(\.key), [.profile, .size, .frames])
        XCTAssertEqual(try ExpectRule("TRANSFER=PQ").key, .transfer, "keys and colour names are case-insensitive")
        for bad in [
            "", "frames", "frames=>5", "=5", "bogus=1", "fps=fast", "size=0x10", "interlaced>=true", "profile=",
            "primaries=nope",
        ] {
            XCTAssertThrowsError(try ExpectRule(bad), bad) { error in
                XCTAssertTrue(
                    "\(error)".contains("'\(bad.trimmingCharacters(in: .whitespaces))'"),
                    "the error names the rule: \(error)")
            }
        }
        XCTAssertThrowsError(try ExpectRule.parseList("frames>=1,"))
    }
}
