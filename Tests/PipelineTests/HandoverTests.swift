import Foundation
import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import TestSupport

/// FFmpeg decodes a stream's first frames while the GPU decoder's device
/// starts, then the GPU decoder takes over (`HandoverSession`, `--decoder
/// auto`'s default): every frame must be the one FFmpeg's CLI makes, in
/// order, whichever decoder made it, and every way the handover can go
/// (the device late, missing, failing; the run cancelled) must end cleanly.
final class HandoverTests: XCTestCase {
    /// A clip's frames over and over, renumbered: a stream long enough to hand over in.
    /// With `holdAt`, sample `holdAt` waits until `due()` (the handover is
    /// due): FFmpeg decodes a few tiny fixture frames faster than lavapipe
    /// starts, so without it the stream would end first.
    private final class LoopingSource: SampleSource {
        let format: FormatDescription
        private let samples: [CompressedSample]
        private let count: Int
        private var next = 0
        var holdAt: Int?
        var due: () -> Bool = { true }
        init(_ clip: String, frames: Int) throws {
            (format, samples) = try fixtureSamples(clip)
            count = frames
        }
        func nextSample() throws -> CompressedSample? {
            guard next < count else { return nil }
            if next == holdAt {
                let deadline = Date().addingTimeInterval(30)
                while !due() && Date() < deadline { usleep(1000) }
            }
            defer { next += 1 }
            return samples[next % samples.count].renumbered(as: next)
        }
        func seek(toFrame index: Int) throws { next = index }
        var shortfall: String? { nil }
    }

    /// md5s of the native planar frames, and how many have arrived (read from other threads).
    private final class CountingSink: FrameSink, @unchecked Sendable {
        private let lock = NSLock()
        private var md5s: [(Int, String)] = []
        func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
            let md5 = MD5.hex(of: spans)
            lock.lock()
            md5s.append((index, md5))
            lock.unlock()
        }
        var frames: [(Int, String)] {
            lock.lock()
            defer { lock.unlock() }
            return md5s
        }
        func waitForFrames(_ n: Int) {
            let deadline = Date().addingTimeInterval(30)
            while frames.count < n && Date() < deadline { usleep(1000) }
        }
        func finish() throws {}
        func abort() {}
    }

    /// A device made only once the sink has `after` frames (FFmpeg's), so the handover falls mid-stream.
    private func lateDevice(after: Int, sink: CountingSink) -> Deferred<GPUDevice?> {
        Deferred("test.late-device") { () throws -> GPUDevice? in
            sink.waitForFrames(after)
            return try GPUDevice(context: VulkanContext(options: .init(validation: true)))
        }
    }

    /// `holdAt`: the frame the source holds back until the handover is due.
    private static func run(
        _ clip: String, frames: Int, choice: DecoderSelection.Choice, sink: CountingSink,
        device: Deferred<GPUDevice?>, holdAt: Int? = 5
    ) throws -> (DecodeRun, DecodeRun.Report) {
        var options = DecodeRun.Options(output: .native, threads: 2, decoder: .init(choice: choice))
        options.deviceStarting = device
        let source = try LoopingSource(clip, frames: frames)
        let run = try DecodeRun(source: source, options: options, sinks: [sink])
        source.holdAt = holdAt
        source.due = { [unowned run] in run.handoverIsDue }
        return (run, try run.run())
    }

    private func assertFFmpegFrames(
        _ sink: CountingSink, clip: String, frames: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let reference = try ffmpegFrameMD5s(clip)
        let got = sink.frames
        XCTAssertEqual(got.map(\.0), Array(0..<frames), "\(clip): frames in order, each once", file: file, line: line)
        for (index, md5) in got where md5 != reference[index % reference.count] {
            XCTFail("\(clip) frame \(index) differs from ffmpeg's", file: file, line: line)
        }
    }

    func testTheGPUDecoderTakesOverMidStreamWithTheSameFrames() throws {
        for clip in ["hq.mov", "4444-alpha8.mov"] {
            let sink = CountingSink()
            let (run, report) = try Self.run(
                clip, frames: 30, choice: .gpu, sink: sink, device: lateDevice(after: 3, sink: sink))
            try assertFFmpegFrames(sink, clip: clip, frames: 30)
            XCTAssertTrue(run.decoderName.hasPrefix("gpu ("), "\(clip): \(run.decoderName)")
            XCTAssertGreaterThanOrEqual(
                report.framesBeforeHandover, 3, "\(clip): FFmpeg decoded while the device was made")
            XCTAssertLessThan(report.framesBeforeHandover, 30, "\(clip): the GPU decoder decoded the rest")
            XCTAssertTrue(report.isClean, clip)
        }
    }

    /// Frames measured where they are (`--framehash` of native frames, `check`):
    /// FFmpeg's on the CPU, the GPU decoder's on the device, one sink, in order.
    private final class DigestSink: FrameAnalysisSink, @unchecked Sendable {
        private let lock = NSLock()
        private var list: [(Int, String)] = []
        func consume(index: Int, pts: Int64?, analysis: FrameAnalysis) throws {
            lock.lock()
            list.append((index, analysis.digest?.hex ?? "none"))
            lock.unlock()
        }
        var digests: [(Int, String)] {
            lock.lock()
            defer { lock.unlock() }
            return list
        }
        var count: Int { digests.count }
        func finish() throws {}
        func abort() {}
    }

    func testMeasuredFramesStayInOrderAcrossTheHandover() throws {
        let clip = "hq.mov"
        let frames = 40
        let reference = try ffmpegFrameBLAKE3s(clip)
        let digests = DigestSink()
        let device = Deferred("test.late-device") { () throws -> GPUDevice? in
            let deadline = Date().addingTimeInterval(30)
            while digests.count < 3 && Date() < deadline { usleep(1000) }
            return try GPUDevice(context: VulkanContext(options: .init(validation: true)))
        }
        var options = DecodeRun.Options(
            output: .native, threads: 2, decoder: .init(choice: .gpu),
            analysis: AnalysisRequest(hash: true, statistics: nil))
        options.deviceStarting = device
        let source = try LoopingSource(clip, frames: frames)
        let run = try DecodeRun(source: source, options: options, sinks: [], analysisSink: digests)
        source.holdAt = 8
        source.due = { [unowned run] in run.handoverIsDue }
        let report = try run.run()
        XCTAssertGreaterThanOrEqual(report.framesBeforeHandover, 3)
        XCTAssertLessThan(report.framesBeforeHandover, frames)
        XCTAssertEqual(digests.digests.map(\.0), Array(0..<frames), "CPU- and GPU-measured frames in order")
        for (index, digest) in digests.digests where digest != reference[index % reference.count] {
            XCTFail("frame \(index): BLAKE3 differs from b3sum's of ffmpeg's frame")
        }
    }

    func testAStreamThatEndsFirstIsFFmpegsAlone() throws {
        let sink = CountingSink()
        // The device comes once every frame is out: the stream has ended by then.
        let device = Deferred("test.late-device") { () throws -> GPUDevice? in
            sink.waitForFrames(12)
            return try GPUDevice(context: VulkanContext(options: .init(validation: true)))
        }
        let (run, report) = try Self.run("hq.mov", frames: 12, choice: .gpu, sink: sink, device: device, holdAt: nil)
        try assertFFmpegFrames(sink, clip: "hq.mov", frames: 12)
        XCTAssertEqual(run.decoderName, "cpu")
        XCTAssertEqual(run.decoderNote, "the stream ended before the GPU decoder's device was ready")
        XCTAssertEqual(report.framesBeforeHandover, 0, "no handover: nothing to count")
        // The run does not wait for the device; the test does, so that no device is made during the next test.
        _ = try? device.get()
    }

    /// A job shorter than the device's start ends at once: the run neither
    /// waits for the device nor for the decision it would bring.
    func testAJobThatEndsFirstDoesNotWaitForTheDevice() throws {
        let sink = CountingSink()
        let release = DispatchSemaphore(value: 0)
        // Made only when the test lets it, long after the job.
        let device = Deferred("test.held-device") { () throws -> GPUDevice? in
            _ = release.wait(timeout: .now() + 60)
            return nil
        }
        defer {
            release.signal()
            _ = try? device.get()
        }
        let job = Deferred("test.run") { () throws -> (String, String?) in
            let (run, _) = try Self.run("hq.mov", frames: 3, choice: .auto, sink: sink, device: device, holdAt: nil)
            return (run.decoderName, run.decoderNote)
        }
        XCTAssertTrue(job.isReady(waitingUpTo: 20_000), "the job ended while the device was still starting")
        release.signal()
        let (name, note) = try job.get()
        try assertFFmpegFrames(sink, clip: "hq.mov", frames: 3)
        XCTAssertEqual(name, "cpu")
        XCTAssertEqual(note, "the stream ended before the GPU decoder's device was ready")
    }

    func testAutoWithoutAHardwareGPUHandsOverToFFmpegWithEveryThread() throws {
        let sink = CountingSink()
        // No device (auto found no hardware GPU): resolving again says why (lavapipe is not hardware).
        let device = Deferred("test.no-device") { () throws -> GPUDevice? in
            sink.waitForFrames(2)
            return nil
        }
        let (run, report) = try Self.run("hq.mov", frames: 20, choice: .auto, sink: sink, device: device)
        try assertFFmpegFrames(sink, clip: "hq.mov", frames: 20)
        XCTAssertEqual(run.decoderName, "cpu")
        XCTAssertTrue(run.decoderNote?.contains("no hardware Vulkan device") == true, run.decoderNote ?? "no note")
        XCTAssertEqual(report.framesBeforeHandover, 0, "FFmpeg took over from FFmpeg: no GPU handover to report")
    }

    func testADeviceThatFailsFailsTheRun() throws {
        let sink = CountingSink()
        let device = Deferred("test.failing-device") { () throws -> GPUDevice? in
            sink.waitForFrames(2)
            throw ProResDecodeError.hardwareUnavailable(.message("test: the device failed"))
        }
        XCTAssertThrowsError(try Self.run("hq.mov", frames: 40, choice: .gpu, sink: sink, device: device)) { error in
            guard case ProResDecodeError.hardwareUnavailable = error else { return XCTFail("\(error)") }
        }
    }

    func testCancellingWhileTheDeviceStartsEndsTheRun() throws {
        let sink = CountingSink()
        let release = DispatchSemaphore(value: 0)
        let device = Deferred("test.slow-device") { () throws -> GPUDevice? in
            release.wait()
            return nil
        }
        defer { release.signal() }
        var options = DecodeRun.Options(output: .native, threads: 2, decoder: .init(choice: .gpu))
        options.deviceStarting = device
        let run = try DecodeRun(source: try LoopingSource("hq.mov", frames: 1000), options: options, sinks: [sink])
        let ended = DispatchSemaphore(value: 0)
        let outcome = UncheckedSendable(Box())
        let started = Deferred("test.run") { () throws -> Void in
            defer { ended.signal() }
            do { _ = try run.run() } catch { outcome.value.error = error }
        }
        sink.waitForFrames(2)
        run.cancel()
        XCTAssertEqual(ended.wait(timeout: .now() + 30), .success, "the run must end once cancelled")
        _ = try? started.get()
        guard case ProResDecodeError.interrupted? = outcome.value.error else {
            return XCTFail("\(String(describing: outcome.value.error))")
        }
    }

    private final class Box: @unchecked Sendable { var error: Error? }

    /// The session on its own: the successor's frames wait for the opening session's last.
    func testTheSuccessorsFramesWaitForTheOpeningSessionsLast() throws {
        let (format, clip) = try fixtureSamples("hq.mov")
        let order = CountingOrder()
        let firstGo = DispatchSemaphore(value: 0)
        let successor: HandoverSession.Maker = { handler, idle in
            try FFmpegDecodeSession(
                format: format, configuration: .init(threads: 2), outputHandler: handler, outputIdleHandler: idle)
        }
        // The opening session's handler is slow until released: the successor's frames must not overtake it.
        let session = try HandoverSession(
            first: { handler, idle in
                try FFmpegDecodeSession(
                    format: format, configuration: .init(threads: 1, slicesOnly: true),
                    outputHandler: { frame in
                        if frame.index == 0 { firstGo.wait() }
                        try handler(frame)
                    }, outputIdleHandler: idle)
            }, successor: { order.hasBeenFed(1) ? successor : nil }, outputHandler: { order.append($0.index) })
        for i in 0..<10 {
            try session.decode(clip[i % clip.count].renumbered(as: i))
            order.fed(i + 1)
        }
        XCTAssertTrue(session.handedOver)
        firstGo.signal()
        try session.finish()
        XCTAssertEqual(order.list, Array(0..<10))
        XCTAssertGreaterThanOrEqual(session.framesOnFirst, 1)
        XCTAssertLessThan(session.framesOnFirst, 10)
    }

    private final class CountingOrder: @unchecked Sendable {
        private let lock = NSLock()
        private var indices: [Int] = []
        private var feeds = 0
        func append(_ i: Int) {
            lock.lock()
            indices.append(i)
            lock.unlock()
        }
        func fed(_ n: Int) {
            lock.lock()
            feeds = n
            lock.unlock()
        }
        func hasBeenFed(_ n: Int) -> Bool { lock.withLock { feeds >= n } }
        var list: [Int] {
            lock.lock()
            defer { lock.unlock() }
            return indices
        }
    }
}
