import Foundation
import XCTest

@testable import HostSupport
@testable import TestSupport

/// `--phases`: a one-frame GPU decode reports every phase of its process,
/// and the phases add up to no more than the time the process took as the
/// test measured it from outside, on the same monotonic clock.
final class PhasesCLITests: XCTestCase {
    private func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    private func temporaryPath(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.appendingPathComponent(name).path
    }

    /// The phases a one-frame decode with --vulkan on the GPU decoder goes through.
    private let expected = [
        "command_line", "vulkan_instance", "vulkan_device", "pipelines", "container_open", "first_sample_read",
        "session_setup", "first_upload", "first_decode", "first_conversion", "output", "teardown",
    ]

    func testAOneFrameGPUDecodeAccountsForItsTimeWithinTheWallTime() throws {
        let path = temporaryPath("phases.json")
        let before = monotonicNanoseconds()
        let result = try runTool(
            [Repo.fixture("hq.mov"), "--vulkan", "--decoder", "gpu", "--frames", "1", "--quiet", "--phases", path],
            timeout: 120)
        let after = monotonicNanoseconds()
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let start = try XCTUnwrap((report["start_monotonic_ns"] as? NSNumber)?.uint64Value)
        let end = try XCTUnwrap((report["end_monotonic_ns"] as? NSNumber)?.uint64Value)
        XCTAssertLessThanOrEqual(before, start, "the report starts after the spawn")
        XCTAssertLessThanOrEqual(start, end)
        XCTAssertLessThanOrEqual(end, after, "and ends before the exit was seen")
        let phases = try XCTUnwrap(report["phases"] as? [[String: Any]])
        let milliseconds = Dictionary(
            uniqueKeysWithValues: try phases.map { phase -> (String, Double) in
                (try XCTUnwrap(phase["name"] as? String), try XCTUnwrap((phase["ms"] as? NSNumber)?.doubleValue))
            })
        XCTAssertEqual(milliseconds.count, phases.count, "each phase once")
        for (name, value) in milliseconds { XCTAssertGreaterThanOrEqual(value, 0, name) }
        // A phase's `ms` is the time only it accounts for: one that runs wholly
        // beside another (the session set up while the kernels build) may own
        // none of it, so each phase is checked by its spans and its extent.
        for name in expected {
            let phase = try XCTUnwrap(
                phases.first { $0["name"] as? String == name }, "\(name) ran in this decode: \(phases)")
            XCTAssertGreaterThan(phase["spans"] as? Int ?? 0, 0, name)
            let first = try XCTUnwrap((phase["start_ms"] as? NSNumber)?.doubleValue, name)
            let last = try XCTUnwrap((phase["end_ms"] as? NSNumber)?.doubleValue, name)
            XCTAssertGreaterThan(last, first, "\(name) took time: \(phase)")
        }
        let unattributed = try XCTUnwrap((report["unattributed_ms"] as? NSNumber)?.doubleValue)
        XCTAssertGreaterThanOrEqual(unattributed, 0)
        let sum = milliseconds.values.reduce(0, +) + unattributed
        // Each figure is rounded to a microsecond.
        let rounding = 0.0005 * Double(milliseconds.count + 1)
        XCTAssertLessThanOrEqual(
            sum, Double(after - before) / 1e6 + rounding, "the phases fit in the wall time measured outside")
        XCTAssertEqual(sum, Double(end - start) / 1e6, accuracy: rounding, "and cover the report's own span")
        XCTAssertEqual(
            try XCTUnwrap((report["wall_ms"] as? NSNumber)?.doubleValue), Double(end - start) / 1e6, accuracy: 0.0005)
    }

    /// Like every output: stdout is one writer's, and a failed run leaves no report.
    func testStdoutAndFailures() throws {
        let clash = try runTool([Repo.fixture("hq.mov"), "--frames", "1", "--phases", "-", "-o", "-"])
        XCTAssertEqual(clash.status, 2, clash.stderr)
        XCTAssertTrue(clash.stderr.contains("--phases"), clash.stderr)

        let toStdout = try runTool([
            Repo.fixture("hq.mov"), "--decoder", "cpu", "--frames", "1", "--quiet", "--phases", "-",
        ])
        XCTAssertEqual(toStdout.status, 0, toStdout.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: toStdout.stdout) as? [String: Any])
        XCTAssertNotNil(report["phases"] as? [[String: Any]])

        let path = temporaryPath("phases.json")
        let failed = try runTool([Repo.fixture("hq.mov"), "--frames", "1", "--start", "999", "--phases", path])
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "a failed run writes no report")
    }
}
