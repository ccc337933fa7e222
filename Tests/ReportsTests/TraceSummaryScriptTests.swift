import Foundation
import XCTest

@testable import TestSupport

/// scripts/trace-summary.py --concurrency, on a trace whose answer is
/// worked out by hand: within a 100 µs `decode run`, reads over 0–50 and
/// 25–75 µs are one at once for 50 µs, two for 25 and none for 25.
final class TraceSummaryScriptTests: XCTestCase {
    func testConcurrencyWithinTheDecodeRun() throws {
        let dir = try makeTemporaryDirectory(self)
        let trace = dir.appendingPathComponent("trace.json")
        try """
        {"traceEvents":[
        {"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"main"}},
        {"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"sample-reader"}},
        {"name":"thread_name","ph":"M","pid":1,"tid":3,"args":{"name":"sample-reader"}},
        {"name":"decode run","ph":"X","pid":1,"tid":1,"ts":1000,"dur":100},
        {"name":"read sample","ph":"X","pid":1,"tid":2,"ts":990,"dur":60},
        {"name":"read sample","ph":"X","pid":1,"tid":3,"ts":1025,"dur":50},
        {"name":"read sample","ph":"X","pid":1,"tid":2,"ts":1200,"dur":10}
        ]}
        """.write(to: trace, atomically: true, encoding: .utf8)
        let run = try runExternal([
            "python3", Repo.root.appendingPathComponent("scripts/trace-summary.py").path, trace.path,
            "--concurrency", "read sample",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let output = run.text
        // The first read began before the run and the last after it: only their parts inside count.
        XCTAssertTrue(output.contains("read sample at once, 1.0-1.1 ms: mean 1.00"), output)
        XCTAssertTrue(output.contains("    0:  25.0% of the time"), output)
        XCTAssertTrue(output.contains("    1:  50.0% of the time"), output)
        XCTAssertTrue(output.contains("    2:  25.0% of the time"), output)
    }
}
