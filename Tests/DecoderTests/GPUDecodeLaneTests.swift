import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import TestSupport

/// Streams through one `GPUDecodeLane` (`check`'s files on a shared decode
/// session): each stream's frames reach its own handler, in order, bit-exact;
/// a stream's failure or cancellation is its own; a failure of the lane
/// fails every stream in it as the lane's.
final class GPUDecodeLaneTests: XCTestCase {
    private static let device = Result { try GPUDevice(context: VulkanContext(options: .init(validation: true))) }

    /// Small batches, so that a few frames fill several and the streams meet in one.
    private let configuration = GPUDecodeSession.Configuration(framesPerBatch: 4)

    /// md5 of each frame of hq.mov as v216, from the independent python
    /// packer's references (Fixtures/ref).
    private func expectedDigests() throws -> [String] {
        let digests = try packedReferenceMD5s("hq.mov", layout: "v216")
        XCTAssertEqual(digests.count, 5)
        return digests
    }

    /// Collects one stream's frames, on the lane's output thread.
    private final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var frames: [(index: Int, status: FrameStatus, digest: String)] = []
        func add(_ frame: DecodedFrame) {
            let digest = frame.pixelBuffer.map { MD5.hex(of: $0.visibleSpans()) } ?? ""
            lock.lock()
            frames.append((frame.index, frame.status, digest))
            lock.unlock()
        }
        var all: [(index: Int, status: FrameStatus, digest: String)] {
            lock.lock()
            defer { lock.unlock() }
            return frames
        }
    }

    /// Three streams queued one behind the other: stream k's frames (numbered
    /// 100k + i) reach stream k's handler alone, in order and bit-exact;
    /// the first stream's `finish` returns while the second's handler still
    /// holds its first frame, so it does not wait for the streams behind it.
    func testEachStreamsFramesReachItsOwnHandlerInOrder() throws {
        let (format, samples) = try fixtureSamples("hq.mov")
        let expected = try expectedDigests()
        let lanes = GPUDecodeLanes(device: try Self.device.get())
        let firstFinished = DispatchSemaphore(value: 0)
        let seen = (0..<3).map { _ in Seen() }
        var sawFirstFinished = false
        let frames = 6
        var streams: [GPUDecodeStream] = []
        for k in 0..<3 {
            let collected = seen[k]
            streams.append(
                try lanes.stream(format: format, configuration: configuration) { frame in
                    if k == 1 && collected.all.isEmpty {
                        sawFirstFinished = firstFinished.wait(timeout: .now() + 60) == .success
                    }
                    collected.add(frame)
                })
            for i in 0..<frames { try streams[k].decode(samples[i % samples.count].renumbered(as: 100 * k + i)) }
        }
        try streams[0].finish()
        firstFinished.signal()
        try streams[1].finish()
        try streams[2].finish()
        lanes.close()
        XCTAssertTrue(sawFirstFinished, "the first stream's finish waited for the second stream's frames")
        for k in 0..<3 {
            let got = seen[k].all
            XCTAssertEqual(got.map(\.index), (0..<frames).map { 100 * k + $0 }, "stream \(k)")
            XCTAssertEqual(got.map(\.status), Array(repeating: .ok, count: frames), "stream \(k)")
            XCTAssertEqual(got.map(\.digest), (0..<frames).map { expected[$0 % expected.count] }, "stream \(k)")
        }
        let statistics = lanes.statistics
        XCTAssertEqual(statistics.streams, 3)
        XCTAssertEqual(statistics.overlapped, 2, "each later stream was queued while the one before was in flight")
        XCTAssertGreaterThan(statistics.mixedBatches, 0, "6 frames in batches of 4: a batch holds two streams' frames")
        XCTAssertEqual(try Self.device.get().context.validation?.messages ?? [], [])
    }

    /// Stage timestamps on some batches only (the first few, then one in
    /// `timedBatchInterval`): one-frame batches, every frame still
    /// bit-exact and in order, and a timing for exactly the batches timed.
    func testStagesAreTimedOnTheSampledBatchesOnly() throws {
        guard ProcessInfo.processInfo.environment["PRORES_DECODE_TIMESTAMPS"] == nil else {
            throw XCTSkip(
                "PRORES_DECODE_TIMESTAMPS is set: this test checks the default, the first 4 batches and one in 16")
        }
        let (format, samples) = try fixtureSamples("hq.mov")
        let expected = try expectedDigests()
        let lane = try GPUDecodeLane(
            format: format, device: try Self.device.get(),
            configuration: GPUDecodeSession.Configuration(framesPerBatch: 1))
        let seen = Seen()
        let stream = try lane.openStream(readback: true) { seen.add($0) }
        let frames = 40
        for i in 0..<frames { try stream.decode(samples[i % samples.count].renumbered(as: i)) }
        try stream.finish()
        lane.close()
        XCTAssertEqual(seen.all.map(\.index), Array(0..<frames))
        XCTAssertEqual(seen.all.map(\.digest), (0..<frames).map { expected[$0 % expected.count] })
        lane.timingLock.lock()
        let timings = lane.timings
        lane.timingLock.unlock()
        XCTAssertEqual(timings.count, 6, "40 one-frame batches: 0, 1, 2, 3, 16 and 32 timed")
        XCTAssertEqual(lane.completedBatches, frames, "one-frame batches")
        XCTAssertTrue(timings.allSatisfy { $0.frames == 1 && $0.entropy >= 0 })
        XCTAssertEqual(try Self.device.get().context.validation?.messages ?? [], [])
    }

    /// A stream whose handler throws ends alone, with its own error and no
    /// frame after it; the stream queued behind it decodes every frame.
    func testAThrowingHandlerEndsOnlyItsStream() throws {
        struct Stop: Error {}
        let (format, samples) = try fixtureSamples("4444.mov")
        let lanes = GPUDecodeLanes(device: try Self.device.get())
        var calls = 0
        let failing = try lanes.stream(format: format, configuration: configuration) { _ in
            calls += 1
            if calls == 2 { throw Stop() }
        }
        var fedFailing: Error?
        do { for i in 0..<12 { try failing.decode(samples[i % samples.count].renumbered(as: i)) } } catch {
            fedFailing = error
        }
        let next = Seen()
        let healthy = try lanes.stream(format: format, configuration: configuration) { next.add($0) }
        for i in 0..<7 { try healthy.decode(samples[i % samples.count].renumbered(as: i)) }
        XCTAssertThrowsError(try failing.finish()) { XCTAssertTrue($0 is Stop, "\($0)") }
        try healthy.finish()
        lanes.close()
        XCTAssertTrue(fedFailing == nil || fedFailing is Stop, String(describing: fedFailing))
        XCTAssertEqual(calls, 2, "no frame may reach the handler after it threw")
        XCTAssertEqual(next.all.map(\.index), Array(0..<7))
        XCTAssertTrue(next.all.allSatisfy { $0.status == .ok })
    }

    /// A cancelled stream (a file's `--timeout`) stops feeding at once even
    /// while it waits for room behind its slow handler, and ends with
    /// `.interrupted`; the next stream still decodes every frame.
    func testACancelledStreamEndsInterruptedAndTheNextDecodesEveryFrame() throws {
        let (format, samples) = try fixtureSamples("hq.mov")
        let lanes = GPUDecodeLanes(device: try Self.device.get())
        let slow = Seen()
        let cancelled = try lanes.stream(format: format, configuration: configuration) { frame in
            slow.add(frame)
            usleep(20_000)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { cancelled.cancel() }
        let started = Date()
        var fed = 0
        XCTAssertThrowsError(
            try {
                for i in 0..<400 {
                    try cancelled.decode(samples[i % samples.count].renumbered(as: i))
                    fed += 1
                }
            }()
        ) { XCTAssertEqual($0 as? ProResDecodeError, .interrupted) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the cancel did not let go of a waiting feeder")
        XCTAssertLessThan(fed, 400)
        XCTAssertThrowsError(try cancelled.finish()) { XCTAssertEqual($0 as? ProResDecodeError, .interrupted) }
        let handled = slow.all.count
        XCTAssertLessThan(handled, fed, "a cancelled stream's queued frames are dropped")
        let next = Seen()
        let healthy = try lanes.stream(format: format, configuration: configuration) { next.add($0) }
        for i in 0..<9 { try healthy.decode(samples[i % samples.count].renumbered(as: i)) }
        try healthy.finish()
        lanes.close()
        XCTAssertEqual(slow.all.count, handled, "no frame after finish")
        XCTAssertEqual(next.all.map(\.index), Array(0..<9))
        XCTAssertTrue(next.all.allSatisfy { $0.status == .ok })
    }

    /// A failure of the lane itself (a device error) ends every stream in
    /// it as `GPULaneFailure`, which reads as the error; the next stream
    /// gets a lane of its own.
    func testALaneFailureFailsEveryStreamAsTheLanes() throws {
        struct DeviceLost: Error, CustomStringConvertible { var description: String { "device lost" } }
        let (format, samples) = try fixtureSamples("hq.mov")
        let lanes = GPUDecodeLanes(device: try Self.device.get())
        let hold = DispatchSemaphore(value: 0)
        let first = try lanes.stream(format: format, configuration: configuration) { _ in
            _ = hold.wait(timeout: .now() + 60)
        }
        for i in 0..<5 { try first.decode(samples[i].renumbered(as: i)) }
        let second = try lanes.stream(format: format, configuration: configuration) { _ in }
        for i in 0..<5 { try second.decode(samples[i].renumbered(as: i)) }
        first.lane.fail(DeviceLost())
        hold.signal()
        for stream in [first, second] {
            XCTAssertThrowsError(try stream.finish()) { error in
                XCTAssertTrue(error is GPULaneFailure, "\(error)")
                XCTAssertEqual("\(error)", "device lost")
            }
        }
        let next = Seen()
        let fresh = try lanes.stream(format: format, configuration: configuration) { next.add($0) }
        XCTAssertFalse(fresh.lane === first.lane)
        for i in 0..<5 { try fresh.decode(samples[i].renumbered(as: i)) }
        try fresh.finish()
        lanes.close()
        XCTAssertEqual(next.all.map(\.index), Array(0..<5))
    }
}
