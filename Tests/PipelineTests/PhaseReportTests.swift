import Foundation
import XCTest

@testable import HostSupport
@testable import ProResPipeline
@testable import TestSupport

/// `PhaseReport`'s attribution on spans laid out by hand: every instant to
/// one phase at most (the span that began last, waits and enclosing spans
/// only where nothing else runs), per-frame spans counted the first time.
final class PhaseReportTests: XCTestCase {
    private func span(_ name: String, _ start: UInt64, _ end: UInt64, thread: UInt64 = 1) -> Trace.Recorded {
        Trace.Recorded(name: name, thread: thread, start: 1_000 + start, end: 1_000 + end)
    }

    private func milliseconds(_ report: PhaseReport) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: report.phases.map { ($0.name, $0.nanoseconds) })
    }

    func testEachInstantGoesToOnePhase() {
        // 0..100 ns after the start:
        //   0-5 nothing; 5-10 the container alone; 10-15 the instance, begun after the container;
        //   15-25 the first read, begun last; 25-50 the instance; 50-60 only the main thread's wait;
        //   60-80 a kernel; 80-100 nothing. A second read and an unknown span count for nothing.
        let report = PhaseReport(
            spans: [
                span("source opened", 5, 20, thread: 0), span("vulkan instance", 10, 50, thread: 2),
                span("wait for device", 20, 60, thread: 0), span("read sample", 15, 25, thread: 3),
                span("read sample", 70, 75, thread: 3), span("kernel built", 60, 80, thread: 0),
                span("not a phase", 0, 100, thread: 4),
            ], start: 1_000, end: 1_100)
        let attributed = milliseconds(report)
        XCTAssertEqual(attributed["container_open"], 5)
        XCTAssertEqual(attributed["vulkan_instance"], 5 + 25)
        XCTAssertEqual(attributed["first_sample_read"], 10)
        XCTAssertEqual(attributed["vulkan_device"], 10)
        XCTAssertEqual(attributed["pipelines"], 20)
        XCTAssertEqual(report.unattributed, 5 + 20)
        XCTAssertEqual(report.phases.reduce(0) { $0 + $1.nanoseconds } + report.unattributed, 100)
        let read = report.phases.first { $0.name == "first_sample_read" }
        XCTAssertEqual(read?.spans, 1, "the second read is a later frame's")
        XCTAssertEqual(read?.first, 1_015)
        XCTAssertEqual(read?.last, 1_025)
        // Every phase is listed, those that did not run with nothing.
        XCTAssertEqual(report.phases.map(\.name), PhaseReport.phaseNames.map(\.name))
        let teardown = report.phases.first { $0.name == "teardown" }
        XCTAssertEqual(teardown?.nanoseconds, 0)
        XCTAssertNil(teardown?.first)
    }

    /// An enclosing span keeps what its nested spans leave, whatever began
    /// last on other threads; spans past the run's ends are clipped to it.
    func testEnclosingSpansAndClipping() {
        let report = PhaseReport(
            spans: [
                span("decoder made", 0, 40, thread: 0), span("kernel built", 5, 25, thread: 0),
                span("gpu stage made", 10, 30, thread: 1), span("teardown", 90, 150, thread: 0),
            ], start: 1_000, end: 1_100)
        let attributed = milliseconds(report)
        // 0-5 and 30-40: the decoder alone; 25-30: both enclosing spans, the stage begun last.
        XCTAssertEqual(attributed["pipelines"], 20)
        XCTAssertEqual(attributed["session_setup"], 5 + 5 + 10)
        XCTAssertEqual(attributed["teardown"], 10)
        XCTAssertEqual(report.unattributed, 50)
        XCTAssertEqual(report.phases.first { $0.name == "teardown" }?.last, 1_100)
    }

    /// The work a process exits without waiting for is named in the JSON, and none of it is in the phases.
    func testWorkLeftRunningAtExitIsListed() throws {
        let report = PhaseReport(
            spans: [span("source opened", 0, 10)], start: 1_000, end: 1_020, leftRunning: ["vulkan device start"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        XCTAssertEqual(object["left_running_at_exit"] as? [String], ["vulkan device start"])
        XCTAssertEqual(milliseconds(report)["vulkan_device"], 0)
        let none = PhaseReport(spans: [], start: 1_000, end: 1_020)
        let empty = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(none.json.utf8)) as? [String: Any])
        XCTAssertEqual(empty["left_running_at_exit"] as? [String], [])
    }
}
