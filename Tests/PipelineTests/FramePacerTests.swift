import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// Simulated host time for `FramePacer`: `sleep(until:)` jumps straight to
/// the deadline (plus any scripted oversleep) and, on the way, runs the
/// scripted arrivals that fall due, in time order, on the presenter's own
/// thread. Nothing sleeps and every run is deterministic.
final class ScriptedClock: PacingClock {
    private(set) var time: UInt64 = 0
    private var events: [(at: UInt64, run: () -> Void)] = []
    /// Extra nanoseconds the presenter "oversleeps" past a given deadline.
    var oversleep: (UInt64) -> UInt64 = { _ in 0 }

    /// Events at the same time run in the order they were added.
    func at(_ milliseconds: Double, _ run: @escaping () -> Void) {
        let time = UInt64(milliseconds * 1_000_000)
        events.insert((time, run), at: events.firstIndex { $0.at > time } ?? events.count)
    }

    func now() -> UInt64 { time }

    func sleep(until deadline: UInt64) {
        let wake = max(time, deadline + oversleep(deadline))
        while let next = events.first, next.at <= wake {
            events.removeFirst()
            time = max(time, next.at)
            next.run()
        }
        time = wake
    }
}

final class FramePacerTests: XCTestCase {
    private let rate = FrameRate(numerator: 25, denominator: 1)!  // a tick every 40 ms

    /// A pacer whose frames `arrivals[i]` (ms, nil = never) arrive; as in a
    /// real run the times must not decrease and a frame may only arrive when
    /// the queue has room. Negative times are pushed before playback starts
    /// and must fill the preroll (`capacity` frames). The input ends 1 ms
    /// after the last arrival.
    private func run(
        _ arrivals: [Double?], firstIndex: Int = 0, capacity: Int = 3,
        oversleep: @escaping (UInt64) -> UInt64 = { _ in 0 }
    ) -> PacingReport {
        let clock = ScriptedClock()
        clock.oversleep = oversleep
        let pacer = FramePacer(rate: rate, firstIndex: firstIndex, capacity: capacity, clock: clock)
        for (i, arrival) in arrivals.enumerated() {
            guard let arrival else { continue }
            let push = { [unowned pacer] in
                // The presenter's thread runs this: a full queue would block it for good.
                guard pacer.waiting < capacity else { return XCTFail("frame \(i) arrives at a full queue") }
                pacer.push(firstIndex + i)
            }
            if arrival < 0 { push() } else { clock.at(arrival, push) }
        }
        let last = arrivals.compactMap { $0 }.max() ?? -1
        if last < 0 { pacer.finish() } else { clock.at(last + 1, pacer.finish) }
        let report = pacer.run()
        XCTAssertEqual(report.presented + report.late, report.ticks, "every tick presents or is late")
        XCTAssertEqual(
            report.presented + report.dropped, arrivals.compactMap { $0 }.count, "every frame is presented or dropped")
        return report
    }

    /// Frames 0-2 preroll; frame i arrives 5 ms after tick i − 3.
    private func steady(_ count: Int) -> [Double?] {
        (0..<count).map { i -> Double? in i < 3 ? -1 : Double(i - 3) * 40 + 5 }
    }

    func testOnTimeFramesArePresentedAtTheirOwnTicks() {
        let report = run(steady(10))
        XCTAssertEqual(report.presentedFrames, Array(0..<10))
        XCTAssertEqual(report.late, 0)
        XCTAssertEqual(report.dropped, 0)
        XCTAssertEqual(report.ticks, 10)
        XCTAssertEqual(report.jitter?.max, 0, "the simulated clock wakes exactly on time")
    }

    /// `play` shows what the pacer presents, when it presents it.
    func testOnPresentSeesEachPresentedFrameAtItsTick() {
        let clock = ScriptedClock()
        let pacer = FramePacer(rate: rate, firstIndex: 0, capacity: 3, clock: clock)
        var seen: [(index: Int, at: UInt64)] = []
        pacer.onPresent = { [unowned clock] in seen.append(($0, clock.now())) }
        for i in 0..<3 { pacer.push(i) }
        clock.at(170) { pacer.push(4) }  // frame 3 never comes; 4 is 10 ms late
        clock.at(171, pacer.finish)
        let report = pacer.run()
        XCTAssertEqual(seen.map(\.index), report.presentedFrames)
        XCTAssertEqual(seen.map(\.index), [0, 1, 2, 4])
        XCTAssertEqual(seen.map(\.at), [0, 40, 80, 200].map { UInt64($0) * 1_000_000 })
    }

    /// A frame whose tick has passed is worth skipping before decoding; not
    /// before playback starts, and not a frame still ahead of the clock.
    func testMissedTicksAreKnownOnceThePacerRuns() {
        let clock = ScriptedClock()
        let pacer = FramePacer(rate: rate, firstIndex: 10, capacity: 1, clock: clock)
        XCTAssertFalse(pacer.hasMissedItsTick(10), "before playback nothing is late")
        var answers: [Bool] = []
        pacer.push(10)
        clock.at(50) { answers = [pacer.hasMissedItsTick(10), pacer.hasMissedItsTick(11), pacer.hasMissedItsTick(12)] }
        clock.at(60, pacer.finish)
        _ = pacer.run()
        // At 50 ms: frame 10's tick (0 ms) and 11's (40 ms) have come, 12's (80 ms) is ahead.
        XCTAssertEqual(answers, [true, true, false])
    }

    func testAFrameLateForItsTickIsSupersededAndDropped() {
        // Frame 4 comes 10 ms after its tick (160 ms); the rest follow it closely.
        let arrivals: [Double?] = [-1, -1, -1, 5, 170, 180, 185, 205]
        let report = run(arrivals)
        // Tick 4 finds nothing due: frame 3 stays (late). Tick 5 finds 4 and 5: 5 is shown, 4 dropped.
        XCTAssertEqual(report.presentedFrames, [0, 1, 2, 3, 5, 6, 7])
        XCTAssertEqual(report.droppedFrames, [4])
        XCTAssertEqual(report.late, 1)
        XCTAssertEqual(report.lateFrames, [4...4], "the frame due at the late tick")
        XCTAssertEqual(report.ticks, 8)
    }

    func testALateFrameWithNothingNewerIsStillPresentedAtTheNextTick() {
        // Frame 4 misses tick 4; frame 5 misses tick 5 (200 ms) too.
        let arrivals: [Double?] = [-1, -1, -1, 5, 170, 230]
        let report = run(arrivals)
        XCTAssertEqual(report.presentedFrames, [0, 1, 2, 3, 4, 5], "4 at tick 5, 5 at tick 6")
        XCTAssertEqual(report.dropped, 0)
        XCTAssertEqual(report.late, 1, "only tick 4 repeated a frame")
        XCTAssertEqual(report.ticks, 7)
    }

    func testASlowPipelineRepeatsFramesButNeverSlowsTheClock() {
        // Half speed: frame i is ready 80 ms × i after the start (a preroll of one frame).
        let arrivals: [Double?] = [-1] + (1..<6).map { i -> Double? in Double(i) * 80 - 1 }
        let report = run(arrivals, capacity: 1)
        XCTAssertEqual(report.presentedFrames, Array(0..<6))
        XCTAssertEqual(report.ticks, 11, "frame 5 arrives just before tick 10")
        XCTAssertEqual(report.late, 5)
    }

    func testAMissingFrameLeavesItsTickLate() {
        var arrivals = steady(6)
        arrivals[3] = nil  // failed: never reaches the presenter
        let report = run(arrivals)
        XCTAssertEqual(report.presentedFrames, [0, 1, 2, 4, 5])
        XCTAssertEqual(report.late, 1)
        XCTAssertEqual(report.lateFrames, [3...3])
        XCTAssertEqual(report.dropped, 0)
    }

    func testOversleepingCountsMissedTicksAndJitter() {
        // Waking for tick 3 (120 ms) 90 ms late reaches tick 5 (200 ms, 10 ms past it).
        // Frames 6 and 7 can only arrive once tick 5 has made room.
        let arrivals: [Double?] = [-1, -1, -1, 5, 45, 85, 215, 245]
        let report = run(arrivals) { deadline in deadline == 120_000_000 ? 90_000_000 : 0 }
        XCTAssertEqual(report.presentedFrames, [0, 1, 2, 5, 6, 7], "tick 5 shows frame 5; 3 and 4 are superseded")
        XCTAssertEqual(report.droppedFrames, [3, 4])
        XCTAssertEqual(report.late, 2, "ticks 3 and 4 were missed")
        XCTAssertEqual(report.lateFrames, [3...4], "one run")
        XCTAssertEqual(report.ticks, 8)
        XCTAssertEqual(report.jitter?.max, 90_000, "microseconds")
        XCTAssertEqual(report.jitter?.p50, 0)
    }

    func testStartIndexCountsFromTheFirstFrameOfTheRun() {
        let report = run(steady(5), firstIndex: 100)
        XCTAssertEqual(report.presentedFrames, Array(100..<105))
        XCTAssertEqual(report.late, 0)
        XCTAssertEqual(report.lateFrames, [])
    }

    func testAShortInputStartsWithoutAFullPreroll() {
        let report = run([-1, -1])
        XCTAssertEqual(report.presentedFrames, [0, 1])
        XCTAssertEqual(report.ticks, 2)
    }

    func testPushWaitsForRoomAndCancelReleasesIt() {
        let pacer = FramePacer(rate: rate, firstIndex: 0, capacity: 2, clock: ScriptedClock())
        XCTAssertTrue(pacer.push(0))
        XCTAssertTrue(pacer.push(1))
        XCTAssertEqual(pacer.waiting, 2)
        let returned = DispatchSemaphore(value: 0)
        let result = ToolPipeBytes()
        Thread {
            result.data = Data([pacer.push(2) ? 1 : 0])  // blocks: the queue is full
            returned.signal()
        }.start()
        XCTAssertEqual(returned.wait(timeout: .now() + 0.05), .timedOut, "a push into a full queue must wait")
        pacer.cancel()
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(result.data, Data([0]), "a cancelled push reports that the frame was not taken")
        XCTAssertEqual(pacer.run().presented, 0, "a cancelled pacer presents nothing")
    }

    func testFrameRatesAreExactFractions() {
        let ntsc = FrameRate(parsing: "30000/1001")!
        XCTAssertEqual(ntsc.nanoseconds(ticks: 30000), 1001_000_000_000, "30000 ticks take exactly 1001 s")
        XCTAssertEqual(ntsc.nanoseconds(ticks: 1), 33_366_666)
        XCTAssertEqual(ntsc.ticks(in: 1001_000_000_000), 30000)
        XCTAssertEqual(ntsc.ticks(in: 1001_000_000_000 - 1), 29999)
        XCTAssertEqual(FrameRate(parsing: "29.97")?.framesPerSecond, 29.97)
        XCTAssertEqual(FrameRate(parsing: "25")?.nanoseconds(ticks: 3), 120_000_000)
        for bad in ["0", "-25", "1001", "0.5", "abc", "25/0", "30000/", "/1001", "nan", "1e9"] {
            XCTAssertNil(FrameRate(parsing: bad), bad)
        }
    }
}
