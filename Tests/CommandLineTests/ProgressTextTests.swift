import XCTest

@testable import TestSupport
@testable import prores_decode

/// The progress line's words (tests have no terminal to see the line itself).
final class ProgressTextTests: XCTestCase {
    func testDecodeLineHasPercentSpeedRealtimeAndETA() {
        // 480 of 1920 frames in 1.5385 s: 312 fps; at 25 fps media, 12.5x;
        // 1440 frames left at 312 fps: 4.6 s, shown rounded up.
        XCTAssertEqual(
            ProgressText.line(unit: "frame", done: 480, total: 1920, seconds: 480.0 / 312, mediaFrameRate: 25),
            "frame 480/1920 25% 312 fps 12.5x realtime ETA 0:05")
    }

    func testUnknownPartsAreLeftOut() {
        XCTAssertEqual(ProgressText.line(unit: "frame", done: 0, total: 100, seconds: 0), "frame 0/100 0%")
        XCTAssertEqual(ProgressText.line(unit: "frame", done: 50, total: nil, seconds: 2), "frame 50 25 fps")
        XCTAssertEqual(
            ProgressText.line(unit: "frame", done: 100, total: 100, seconds: 4, mediaFrameRate: 50),
            "frame 100/100 100% 25 fps 0.5x realtime")
        XCTAssertEqual(
            ProgressText.line(unit: "file", done: 3, total: 10, seconds: 6, rateUnit: nil), "file 3/10 30% ETA 0:14")
        XCTAssertEqual(
            ProgressText.line(unit: "cpu: frame", done: 7, total: 240, seconds: 0.5),
            "cpu: frame 7/240 2% 14 fps ETA 0:17")
    }

    func testDurationsAndNumbers() {
        XCTAssertEqual(ProgressText.duration(5), "0:05")
        XCTAssertEqual(ProgressText.duration(754), "12:34")
        XCTAssertEqual(ProgressText.duration(3723), "1:02:03")
        XCTAssertEqual(ProgressText.duration(.infinity), "99:59:59")
        XCTAssertEqual(ProgressText.number(311.6), "312")
        XCTAssertEqual(ProgressText.number(12.46), "12.5")
        XCTAssertEqual(ProgressText.number(0.844), "0.84")
        XCTAssertEqual(ProgressText.number(25), "25")
    }
}
