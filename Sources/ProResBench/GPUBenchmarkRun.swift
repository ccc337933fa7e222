import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResGPU
import ProResPipeline

/// What one device decoded in a timed `gpu`/`gpu-host` run.
public struct DeviceShare: Sendable {
    public let name: String
    public let frames: Int
    /// From the run's common start until this device's last frame was out.
    public let seconds: Double
    /// Where its session's threads ran (`--verbose`).
    public let placement: ThreadPlacement
    /// Its host → device link, measured after the timed run (nil: not measured).
    public var linkBytesPerSecond: Double?
    public var framesPerSecond: Double { seconds > 0 ? Double(frames) / seconds : 0 }

    var json: String {
        JSON.object([
            ("name", JSON.string(name)), ("frames", "\(frames)"), ("fps", JSON.number(framesPerSecond, digits: 1)),
            ("link_bytes_per_second", linkBytesPerSecond.map { JSON.number($0, digits: 0) } ?? "null"),
        ])
    }
}

/// Hands out the timed frames a batch at a time, to whichever device's
/// feeder asks next. A session's `decode` blocks while its queue is full,
/// so one feeder dealing batch k to device k mod N would hold every device
/// to the slowest; a feeder per device pulling the next batch keeps each
/// one busy, and the split follows each device's speed.
private final class BatchDispenser: @unchecked Sendable {  // @unchecked: `next` and `done` under `lock`
    private let lock = NSLock()
    private var next = 0, done = 0
    private let total: Int
    private let progress: UncheckedSendable<((Int, Int) -> Void)?>

    init(total: Int, progress: ((Int, Int) -> Void)?) {
        self.total = total
        self.progress = UncheckedSendable(progress)
    }

    /// The next `count` frame numbers (fewer at the end); nil when all are out.
    func take(_ count: Int) -> Range<Int>? {
        lock.lock()
        defer { lock.unlock() }
        guard next < total else { return nil }
        let range = next..<min(total, next + count)
        next = range.upperBound
        return range
    }

    /// Feeds `session` batch after batch until all frames are out, then
    /// finishes it: the frames it took and when its last one was out.
    func feed(_ session: GPUDecodeSession, _ sample: (Int) -> CompressedSample) throws -> (
        frames: Int, finished: UInt64
    ) {
        var frames = 0
        while let range = take(session.framesPerBatch) {
            for i in range { try session.decode(sample(i)) }
            frames += range.count
            submitted(range.count)
        }
        try session.finish()
        return (frames, monotonicNanoseconds())
    }

    /// Counts frames submitted, for the progress line (called under the lock: one caller at a time).
    func submitted(_ count: Int) {
        lock.lock()
        defer { lock.unlock() }
        done += count
        progress.value?(done, total)
    }
}

extension DecoderBenchmark {
    /// The GPU paths on every selected device from this process: one
    /// session per device (its own buffers, staging and threads, pinned
    /// per the device's `placement`), frame batches spread by
    /// `BatchDispenser`, one clock for the aggregate.
    func runGPU(_ path: Path) throws -> Result {
        let readback = path == .gpuHost
        let analysis = path == .gpuCheck ? AnalysisRequest.check(format).request : nil
        let devices = try DecoderSelection(
            choice: .gpu, device: options.device, validation: options.validation, tuning: options.tuning
        ).makeDevices()
        // A few samples are checked against FFmpeg's frames; the loops of all of them against their first.
        let reference = try analysis.map { try referenceAnalyses($0, count: 8) } ?? [:]
        let outcomes = FrameOutcomes(measuredClipFrames: analysis == nil ? nil : clipFrames, reference: reference)
        // Made on a thread of the device's node, where it has one, so that its staging memory is that node's.
        func makeSession(_ device: GPUDevice) throws -> GPUDecodeSession {
            var configuration = GPUDecodeSession.Configuration(
                framesPerBatch: options.framesPerBatch ?? options.tuning.batch, slots: options.tuning.slots,
                readback: readback, expectedFrames: options.frames, expectedFrameBytes: largestFrameBytes,
                analysis: analysis, cpus: device.placement.cpus)
            configuration.timestampInterval = options.tuning.timestampInterval
            return try onPinnedThread(device.placement.cpus) {
                try DecodeSessionFactory.gpuSession(
                    format: format, device: device, configuration: configuration, outputHandler: outcomes.record)
            }
        }
        // Warm-up (shaders, pools) on each device, then fresh sessions made before the clock starts.
        // They take the warm-up's decoder, whose buffers and imports of the clip's sample memory
        // are made, so the steady state is timed, not the first allocations.
        for device in devices {
            let warmUp = try makeSession(device)
            // Every sample of the clip once, so that all its memory is imported.
            for i in 0..<min(options.frames, max(2 * warmUp.framesPerBatch, clipFrames)) {
                try warmUp.decode(sample(i))
            }
            try warmUp.finish()
        }
        outcomes.reset()
        let sessions = try devices.map(makeSession)
        let dispenser = BatchDispenser(total: options.frames, progress: progress)
        let group = DispatchGroup()
        let shareOutcomes = SessionOutcomes(count: sessions.count)
        let start = monotonicNanoseconds()
        let cpuStart = Self.processCPUSeconds()
        // Shared by the feeders: the clip's samples are read-only once loaded.
        let samples = UncheckedSendable(sample)
        for (index, session) in sessions.enumerated() {
            group.enter()
            startWorkerThread(
                "prores-decode.bench-feed",
                {
                    shareOutcomes.set(index, Swift.Result { try dispenser.feed(session, samples.value) })
                }, finished: group.leave)
        }
        group.wait()
        let end = monotonicNanoseconds()
        let seconds = Double(end - start) / 1e9
        let cpuSeconds = Self.processCPUSeconds() - cpuStart
        // The link's ceiling, measured now that the timed sessions are done (a few hundred MB a device).
        let links = devices.map { device in
            Swift.Result {
                try Trace.span("link measured") { try VulkanRoofline.hostToDevice(context: device.context) }
            }
        }
        let shares = try zip(zip(devices, shareOutcomes.results), links).map { pair, link in
            let (device, outcome) = pair
            let (frames, finished) = try outcome.get()
            return DeviceShare(
                name: device.context.info.name, frames: frames, seconds: Double(finished - start) / 1e9,
                placement: device.placement, linkBytesPerSecond: try? link.get().bytesPerSecond)
        }
        let latencies = try outcomes.latencies(on: "GPU")
        var result = Result(
            path: path, engine: Self.engine(devices, sessions), frames: options.frames, seconds: seconds,
            batch: sessions[0].framesPerBatch,
            stages: Self.gpuStages(latencies, sessions.flatMap { $0.batchTimings }, readback: readback),
            cpuMicrosecondsPerFrame: cpuSeconds * 1e6 / Double(options.frames), latencies: latencies, devices: shares)
        result.link = LinkCeiling(traffic: sessions.map(\.linkTraffic).reduce(LinkTraffic(), +), links: links)
        return result
    }

    /// "NVIDIA H200 (discrete GPU), uploads on a transfer queue, 1200 of
    /// 1200 frames uploaded in place", or with several
    /// devices their count and each one's name.
    private static func engine(_ devices: [GPUDevice], _ sessions: [GPUDecodeSession]) -> String {
        let names = devices.map { "\($0.context.info.name) (\($0.context.info.kind.rawValue))" }
        var notes: [String] = []
        if devices.allSatisfy({ $0.context.transferQueue != nil }) { notes.append("uploads on a transfer queue") }
        let uploads = sessions.map(\.uploads)
        if uploads.contains(where: { $0.path == .fromSampleMemory }) {
            notes.append(
                "\(uploads.reduce(0) { $0 + $1.inPlace }) of \(uploads.reduce(0) { $0 + $1.inPlace + $1.staged }) frames uploaded in place"
            )
        } else if let path = uploads.first?.path {
            notes.append(path == .copy ? "every frame staged" : "read in place (shared memory)")
        }
        let held = sessions.reduce(0) { $0 + $1.heldTransforms }
        if held > 0 { notes.append("\(held) transforms beside the next batch's entropy pass") }
        return (devices.count == 1 ? names[0] : "\(devices.count) devices: " + names.joined(separator: ", "))
            + notes.map { ", " + $0 }.joined()
    }

    /// Decode latency, then each batch's stage times shared out among its frames.
    private static func gpuStages(
        _ latencies: [Double], _ batches: [GPUProResDecoder.BatchTiming],
        readback: Bool
    ) -> [(name: String, percentiles: Percentiles)] {
        var stages: [(name: String, percentiles: Percentiles)] = Percentiles(latencies).map { [("decode", $0)] } ?? []
        func stage(_ name: String, _ value: (GPUProResDecoder.BatchTiming) -> Double) {
            if let percentiles = Percentiles(batches.map { value($0) / Double(max(1, $0.frames)) }) {
                stages.append((name, percentiles))
            }
        }
        stage("cpu_parse") { $0.parse }
        stage("cpu_stage") { $0.stage }
        stage("upload") { $0.upload }
        stage("zero_fill") { $0.zeroFill }
        stage("entropy") { $0.entropy }
        stage("transform") { $0.transform }
        if readback { stage("readback") { $0.readback } }
        // Busy time summed over the stages; the upload overlaps the rest when it has its own queue.
        stage("gpu_total") { $0.upload + $0.zeroFill + $0.entropy + $0.transform + $0.readback }
        return stages
    }
}

/// Each feeder's frames and finish time, or its error.
private final class SessionOutcomes: @unchecked Sendable {  // @unchecked: `results` under `lock`
    private let lock = NSLock()
    private var stored: [Swift.Result<(frames: Int, finished: UInt64), Error>]

    init(count: Int) { stored = Array(repeating: .failure(ProResDecodeError.interrupted), count: count) }

    func set(_ index: Int, _ outcome: Swift.Result<(frames: Int, finished: UInt64), Error>) {
        lock.lock()
        stored[index] = outcome
        lock.unlock()
    }

    var results: [Swift.Result<(frames: Int, finished: UInt64), Error>] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
