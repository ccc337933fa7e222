import Foundation
import XCTest

/// Bad input gets the documented exit codes of bad input, from every command.
final class DamagedInputExitTests: XCTestCase {
    /// Frames that do not decode are damaged input (exit 5), not a usage error (2).
    func testBenchOnDamagedFramesExitsFive() throws {
        for name in ["dimensions-8192.prores", "alpha-data-missing.mov"] {
            let result = try runTool(["bench", Hostile.fixture(name), "--frames", "5"], timeout: 120)
            Hostile.assertExit(result, 5, "bench \(name)")
            // bench names its input first; then one error line.
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("prores-decode: error: ") }
            XCTAssertEqual(errors.count, 1, result.stderr)
            XCTAssertTrue(errors.first?.contains("did not decode cleanly") == true, result.stderr)
        }
    }

    /// A stage time no run measured (1e300 µs) is refused at its line; the
    /// largest accepted one still draws with finite coordinates only.
    func testPlotRefusesImpossibleStageTimes() throws {
        let dir = try makeTemporaryDirectory(self)
        let log = dir.appendingPathComponent("t.jsonl"), svg = dir.appendingPathComponent("t.svg")
        try "{\"frame\":0,\"status\":\"ok\",\"decode_us\":5}\n{\"frame\":1,\"status\":\"ok\",\"decode_us\":1e300,\"latency_us\":1e300}\n"
            .write(to: log, atomically: true, encoding: .utf8)
        let bad = try runTool(["plot", log.path, "-o", svg.path], timeout: 30)
        Hostile.assertExit(bad, 3, "plot 1e300")
        assertSingleError(bad, mentions: ["line 2", "decode_us"], "plot 1e300")
        XCTAssertFalse(FileManager.default.fileExists(atPath: svg.path))

        try "{\"frame\":0,\"status\":\"ok\",\"decode_us\":5,\"latency_us\":6}\n{\"frame\":1,\"status\":\"ok\",\"decode_us\":1e12,\"latency_us\":1e12}\n"
            .write(to: log, atomically: true, encoding: .utf8)
        let good = try runTool(["plot", log.path, "-o", "-"], timeout: 30)
        XCTAssertEqual(good.status, 0, good.stderr)
        let page = good.stdoutText
        for word in ["null", "nan", "inf"] {
            XCTAssertNil(page.range(of: "=\"[^\"]*\\b\(word)\\b", options: [.regularExpression, .caseInsensitive]), "\(word) in:\n\(page)")
        }
    }
}
