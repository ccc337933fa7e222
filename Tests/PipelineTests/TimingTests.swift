import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

final class TimingTests: XCTestCase {
    func testNearestRankPercentiles() throws {
        // 1...100: p50 = 50, p95 = 95, p99 = 99 by nearest rank.
        let p = try XCTUnwrap(Percentiles((1...100).map(Double.init).shuffled()))
        XCTAssertEqual([p.p50, p.p95, p.p99, p.max], [50, 95, 99, 100])
        XCTAssertEqual(p.mean, 50.5)
        // Small sets: 4 values → p50 is the 2nd, p95 and p99 the 4th.
        let small = try XCTUnwrap(Percentiles([40, 10, 30, 20]))
        XCTAssertEqual([small.p50, small.p95, small.p99], [20, 40, 40])
        XCTAssertNil(Percentiles([]))
    }

    func testTimingLineIsOneJSONObject() throws {
        let timing = FrameTiming(
            index: 7, pts: nil, status: .damaged("x"), demux: 1.25, decode: 2000, pack: 0, output: 3.5, latency: 2100)
        let object = try JSONSerialization.jsonObject(with: Data(timing.jsonLine.utf8)) as? [String: Any]
        XCTAssertEqual(object?["frame"] as? Int, 7)
        XCTAssertTrue(object?["pts"] is NSNull)
        XCTAssertEqual(object?["status"] as? String, "damaged")
        XCTAssertEqual(object?["decode_us"] as? Double, 2000)
        XCTAssertEqual(try XCTUnwrap(object?["demux_us"] as? Double), 1.3, accuracy: 1e-9)  // one decimal
        XCTAssertFalse(timing.jsonLine.contains("\n"))
    }

    func testJSONStringEscaping() {
        XCTAssertEqual(JSON.string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"")
        XCTAssertEqual(JSON.number(.nan), "null")
        XCTAssertEqual(JSON.number(3.0), "3")
        XCTAssertEqual(JSON.number(2.25, digits: 1), "2.3")
    }
}
