import Foundation
import XCTest

@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import TestSupport

/// A sink that fails (EPIPE on `-o -`, a full disk) ends the run without
/// keeping a use of any surface: every pool the run made goes away with it.
final class DecodeRunLeakTests: XCTestCase {
    private final class FailingSink: FrameSink {
        struct Broken: Error {}
        let failAt: Int
        var consumed = 0
        init(failAt: Int) { self.failAt = failAt }
        func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
            consumed += 1
            if index == failAt { throw Broken() }
        }
        func finish() throws {}
        func abort() {}
    }

    /// The process-wide pool count once an earlier run's threads have let
    /// go of theirs (the same count 50 ms apart), so that their teardown
    /// can neither hide a leak of this run's nor look like one.
    private func settledLiveCount() -> Int {
        let deadline = Date().addingTimeInterval(3)
        var count = PixelBufferPool.liveCount
        while Date() < deadline {
            usleep(50_000)
            let again = PixelBufferPool.liveCount
            if again == count { break }
            count = again
        }
        return count
    }

    private func runFailing(_ clip: String, output: OutputSelection, decoder: DecoderSelection.Choice) throws {
        let before = settledLiveCount()
        do {
            let sink = FailingSink(failAt: 2)
            let run = try DecodeRun(
                source: try openSampleSource(Repo.fixture(clip)),
                options: .init(output: output, threads: 2, decoder: .init(choice: decoder)), sinks: [sink])
            XCTAssertThrowsError(try run.run(), "\(clip) \(output)") {
                XCTAssertTrue($0 is FailingSink.Broken, "\($0)")
            }
            XCTAssertEqual(sink.consumed, 3)
        }
        // A session's worker threads let go of their last frames as they end,
        // just after the run returns: a leak never settles, a teardown does.
        let deadline = Date().addingTimeInterval(3)
        while PixelBufferPool.liveCount != before && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(
            PixelBufferPool.liveCount, before,
            "\(clip) \(output.name) \(decoder): a surface's use was kept after the sink threw")
    }

    func testAThrowingSinkLeavesNoPoolBehindOnTheCPUPath() throws {
        try runFailing("hq.mov", output: .packed(.y416), decoder: .cpu)  // packed by us: the pack pool
        try runFailing("hq.mov", output: .native, decoder: .cpu)  // the decoder's own surfaces
        try runFailing("4444.mov", output: .packed(.y416), decoder: .cpu)
    }

    func testAThrowingSinkLeavesNoPoolBehindOnTheGPUPath() throws {
        // the decoder's packed host surfaces, used as they are
        try runFailing("hq.mov", output: .packed(.v216), decoder: .gpu)
        try runFailing("hq.mov", output: .native, decoder: .gpu)  // unpacked to planar
    }
}
