import Foundation
import XCTest

@testable import ProResCheck
@testable import ProResOptions
@testable import ProResPipeline
@testable import TestSupport

/// Numbers from outside are plain decimals inside their bounds: anything
/// else is one line and exit 2.
final class PlainNumberTests: XCTestCase {
    func testOnlyPlainDecimalsRead() {
        let whole: [(String, Int?)] = [
            ("0", 0), ("-0", 0), ("42", 42), ("007", 7), ("-17", -17), ("9223372036854775807", Int.max),
            ("-9223372036854775808", Int.min), ("9223372036854775808", nil), ("-9223372036854775809", nil),
            ("+1", nil), ("1e5", nil), (" 1", nil), ("1 ", nil), ("0x10", nil), ("", nil), ("-", nil), ("1.0", nil),
            ("١", nil),
        ]
        for (text, expected) in whole { XCTAssertEqual(PlainNumber.integer(text), expected, "'\(text)'") }
        XCTAssertNil(PlainNumber.integer("5", in: 1...4))
        XCTAssertEqual(PlainNumber.integer("4", in: 1...4), 4)
        let real: [(String, Double?)] = [
            ("1.5", 1.5), (".5", 0.5), ("5.", 5), ("-2.25", -2.25), ("600", 600),
            ("1e5", nil), ("+1", nil), ("nan", nil), ("inf", nil), ("1..2", nil), (".", nil), ("", nil), ("0x1p3", nil),
            (" 1", nil),
        ]
        for (text, expected) in real { XCTAssertEqual(PlainNumber.real(text), expected, "'\(text)'") }
    }

    /// `--expect`'s numbers are plain decimals too.
    func testRuleNumbersArePlainDecimals() {
        for rules in ["frames>=1e3", "frames>=+24", "fps=0x19", "size=+1920x1080", "size=1920x 1080", "max-nits<=inf"] {
            XCTAssertThrowsError(try ExpectRule.parseList(rules), rules)
        }
        XCTAssertNoThrow(try ExpectRule.parseList("frames>=24,fps=23.976,size=1920x1080,max-nits<=1000.5"))
    }

    /// Options the docs describe as plain decimals refuse other spellings.
    func testOptionsRefuseOtherSpellings() throws {
        let clip = Repo.fixture("hq.mov")
        let cases: [([String], String)] = [
            (["--threads", "+2"], "--threads"), (["--timeout", "1e5"], "--timeout"), (["--jobs", " 2"], "--jobs"),
        ]
        for (options, name) in cases {
            let result = try runTool(["check", clip] + options)
            XCTAssertEqual(result.reason, .exit, "\(options)")
            XCTAssertEqual(result.status, 2, "\(options): \(result.stderr)")
            assertSingleError(result, mentions: [name], "\(options)")
        }
        let fine = try runTool(["check", clip, "--threads", "2", "--timeout", "100000.5", "--report", "-"])
        XCTAssertTrue([0, 10, 11].contains(fine.status), fine.stderr)
    }
}
