import Foundation
import XCTest

@testable import ProResCore
@testable import TestSupport

/// `--rate` values that pass the range check but overflowed tick arithmetic
/// (SIGFPE, nonsense reports): reduced to lowest terms, or refused (exit 2).
final class HostileRateTests: XCTestCase {
    // MARK: - --rate values are reduced, or refused when they cannot be represented

    func testRatesAreReducedToLowestTerms() throws {
        let rate = try XCTUnwrap(FrameRate(parsing: "900719925474099200/36028797018963968"))
        XCTAssertEqual(rate.numerator, 25)
        XCTAssertEqual(rate.denominator, 1)
        XCTAssertEqual(rate.nanoseconds(ticks: 3), 120_000_000)
        XCTAssertEqual(rate.ticks(in: 120_000_000), 3)
        XCTAssertEqual(FrameRate(parsing: "60000/2002"), FrameRate(numerator: 30000, denominator: 1001))
        XCTAssertNil(FrameRate(parsing: "36028797018963969/36028797018963968"))
        XCTAssertTrue(
            FrameRate.problem(parsing: "36028797018963969/36028797018963968")?.contains("lowest terms") ?? false)
        XCTAssertNil(FrameRate.problem(parsing: "25"))
    }

    func testAHugeButExactRatePacesAtThatRate() throws {
        let dir = try makeTemporaryDirectory(self)
        let result = try runTool(
            [
                Repo.fixture("hq.mov"), "--realtime", "--rate", "900719925474099200/36028797018963968",
                "-o", dir.appendingPathComponent("out.raw").path,
            ], timeout: 30)
        Hostile.assertExit(result, 0, "--rate 900719925474099200/36028797018963968")
        XCTAssertTrue(result.stderr.contains("realtime at 25 fps: 5 presented"), result.stderr)
    }

    func testAnUnrepresentableRateIsAUsageError() throws {
        let dir = try makeTemporaryDirectory(self)
        let out = dir.appendingPathComponent("out.raw")
        let result = try runTool(
            [Repo.fixture("hq.mov"), "--realtime", "--rate", "36028797018963969/36028797018963968", "-o", out.path],
            timeout: 30)
        Hostile.assertExit(result, 2, "unrepresentable --rate")
        assertSingleError(result, mentions: ["--rate", "lowest terms"], "unrepresentable --rate")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "nothing written")
    }
}
