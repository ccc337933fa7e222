import Foundation
import HostSupport
import ProResCPU
import ProResCore
import ProResFFmpeg
import ProResPipeline

/// `prores-decode bench`: the CPU and GPU decoders on the same frames, in
/// one process, as ratios. Samples are read into memory first (demuxing is
/// not what is measured) and fed in a loop until `frames` were decoded;
/// each path is warmed up (shaders compiled, pools filled) before timing.
public struct DecoderBenchmark {
    public enum Path: String, CaseIterable, Sendable {
        /// Our CPU decoder, `threads` threads.
        case cpu
        /// FFmpeg's software decoder, `threads` threads.
        case ffmpeg
        /// Our GPU decoder into device-resident surfaces (no readback).
        case gpu
        /// Our GPU decoder with every frame copied back into host surfaces.
        case gpuHost = "gpu-host"
        /// Our GPU decoder with `check`'s measurements of every frame on the
        /// device (the BLAKE3 hash and the picture statistics), no readback:
        /// what `check --decoder gpu` asks of the GPU a frame.
        case gpuCheck = "gpu-check"
    }

    public struct Options: Sendable {
        public var paths: [Path]
        /// Frames each path decodes (the clip is looped).
        public var frames: Int
        public var threads: Int
        public var device: String?
        public var framesPerBatch: Int?
        public var validation: Bool
        /// The command line's settings: the GPU decoder's batch (unless
        /// `framesPerBatch`), slots and timestamps, the devices' caches.
        public var tuning: Tuning

        public init(
            paths: [Path] = [.cpu, .gpu], frames: Int = 240, threads: Int = 0, device: String? = nil,
            framesPerBatch: Int? = nil, validation: Bool = false, tuning: Tuning = .defaults
        ) {
            self.paths = paths
            self.frames = frames
            self.threads = threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount
            self.device = device
            self.framesPerBatch = framesPerBatch
            self.validation = validation
            self.tuning = tuning
        }
    }

    public struct Result: Sendable {
        public let path: Path
        /// "FFmpeg libavcodec, 16 threads" or the Vulkan device.
        public let engine: String
        public let frames: Int
        public let seconds: Double
        /// Frames per batch (GPU).
        public let batch: Int?
        /// Per-frame stage times (µs): decode latency; for the GPU also the
        /// CPU's header parsing and staging (wall time on all cores), and
        /// upload, entropy (VLD), transform (IDCT + store), readback from
        /// timestamp queries, each batch's time divided by its frames.
        public let stages: [(name: String, percentiles: Percentiles)]
        /// CPU time of every thread of the process during the timed run
        /// (getrusage), divided by the frames: what a frame costs the host.
        public let cpuMicrosecondsPerFrame: Double
        /// Each timed frame's decode latency (µs), in the order frames came
        /// out: the timeline of `bench --html`/`--svg` (8 bytes a frame).
        public let latencies: [Double]
        /// The GPU paths' devices, each one's frames and rate (one entry
        /// with a single device; empty for the CPU).
        public let devices: [DeviceShare]
        /// The GPU paths' ceiling set by the host → device link (nil for the CPU).
        public var link: LinkCeiling?
        public var framesPerSecond: Double { seconds > 0 ? Double(frames) / seconds : 0 }

        public var text: String {
            var text =
                "\(path.rawValue): \(engine)\(batch.map { ", \($0) frames a batch" } ?? ""): "
                + "\(frames) frames in \(JSON.number(seconds, digits: 3)) s = \(JSON.number(framesPerSecond, digits: 1)) fps, "
                + "host CPU \(JSON.number(cpuMicrosecondsPerFrame, digits: 1)) µs/frame (all threads)\n"
            text += "  stage (µs/frame)     p50        p95        p99\n"
            for (name, p) in stages {
                text +=
                    "  " + name.padding(12)
                    + [p.p50, p.p95, p.p99].map { JSON.number($0, digits: 1).leftPadding(11) }.joined() + "\n"
            }
            if devices.count > 1 {
                for (index, device) in devices.enumerated() {
                    text +=
                        "  device \(index): \(device.name): \(device.frames) frames, \(JSON.number(device.framesPerSecond, digits: 1)) fps"
                        + (device.linkBytesPerSecond.map { ", link \(JSON.number($0 / 1e9, digits: 2)) GB/s" } ?? "")
                        + "\n"
                }
            }
            if let link { text += link.text(framesPerSecond: framesPerSecond) }
            return text
        }

        public var json: String {
            JSON.object([
                ("decoder", JSON.string(path.rawValue)), ("engine", JSON.string(engine)),
                ("frames", "\(frames)"), ("seconds", JSON.number(seconds, digits: 4)),
                ("fps", JSON.number(framesPerSecond, digits: 1)), ("batch", batch.map { "\($0)" } ?? "null"),
                ("cpu_us_per_frame", JSON.number(cpuMicrosecondsPerFrame, digits: 1)),
                (
                    "stages_us",
                    JSON.object(
                        stages.map {
                            (
                                $0.name,
                                JSON.object([
                                    ("p50", JSON.number($0.percentiles.p50, digits: 1)),
                                    ("p95", JSON.number($0.percentiles.p95, digits: 1)),
                                    ("p99", JSON.number($0.percentiles.p99, digits: 1)),
                                ])
                            )
                        })
                ),
                ("devices", JSON.array(devices.map(\.json))),
                ("link", link.map { $0.json(framesPerSecond: framesPerSecond) } ?? "null"),
            ])
        }
    }

    public let input: String
    public let format: FormatDescription
    public let options: Options
    /// Called after each timed frame is submitted (frames done, frames in
    /// all), for a progress line; nil costs nothing.
    public var progress: ((_ done: Int, _ total: Int) -> Void)?
    private let samples: [CompressedSample]

    public init(input: String, options: Options) throws {
        let source = try openSampleSource(input)
        if let readAhead = options.tuning.readAhead { source.readAhead(samples: readAhead) }
        var samples: [CompressedSample] = []
        while samples.count < options.frames, let sample = try source.nextSample() { samples.append(sample) }
        guard !samples.isEmpty else {
            throw ProResDecodeError.badRequest(.message("'\(input)' has no frames to benchmark"))
        }
        self.input = input
        format = source.format
        self.options = options
        self.samples = samples
    }

    public var clipFrames: Int { samples.count }
    public var averageFrameBytes: Int { samples.reduce(0) { $0 + $1.bytes.count } / samples.count }
    var largestFrameBytes: Int { samples.map(\.bytes.count).max() ?? 0 }

    public func run(_ path: Path) throws -> Result {
        switch path {
        case .cpu, .ffmpeg: return try runCPU(path)
        case .gpu, .gpuHost, .gpuCheck: return try runGPU(path)
        }
    }

    /// The i-th sample of the loop, sharing the packet's bytes (no copy).
    func sample(_ i: Int) -> CompressedSample {
        samples[i % samples.count].renumbered(as: i, readStart: monotonicNanoseconds())
    }

    /// Warms a session up on `warmFrames` frames, then times a fresh one on
    /// `options.frames`; every frame must decode cleanly (the CPU path; the
    /// GPU paths, on one device or several, are `runGPU`).
    private func measure<Session: FrameDecoding>(
        _ name: String, warmFrames: (Session) -> Int,
        _ make: (@escaping FrameOutputHandler) throws -> Session
    )
        throws -> (seconds: Double, cpuSeconds: Double, latencies: [Double])
    {
        let outcomes = FrameOutcomes()
        let warmUp = try make(outcomes.record)
        for i in 0..<min(options.frames, warmFrames(warmUp)) { try warmUp.decode(sample(i)) }
        try warmUp.finish()
        outcomes.reset()
        let timed = try make(outcomes.record)
        let start = monotonicNanoseconds()
        let cpuStart = Self.processCPUSeconds()
        for i in 0..<options.frames {
            try timed.decode(sample(i))
            progress?(i + 1, options.frames)
        }
        try timed.finish()
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        let cpuSeconds = Self.processCPUSeconds() - cpuStart
        return (seconds, cpuSeconds, try outcomes.latencies(on: name))
    }

    /// User + system time of all the process's threads so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = usage.ru_utime
        let system = usage.ru_stime
        return Double(user.tv_sec + system.tv_sec) + Double(user.tv_usec + system.tv_usec) / 1e6
    }

    private func runCPU(_ path: Path) throws -> Result {
        let threads = options.threads
        let (seconds, cpuSeconds, latencies) =
            path == .ffmpeg
            ? try measure("FFmpeg", warmFrames: { _ in 2 * threads }) { handler -> FFmpegDecodeSession in
                try DecodeSessionFactory.ffmpeg(
                    format: format, configuration: .init(threads: threads), outputHandler: handler)
            }
            : try measure("CPU", warmFrames: { _ in 2 * threads }) { handler -> CPUDecodeSession in
                DecodeSessionFactory.ours(format: format, threads: threads, outputHandler: handler)
            }
        let engine = path == .ffmpeg ? "FFmpeg libavcodec" : "ours on the CPU"
        return Result(
            path: path, engine: "\(engine), \(options.threads) threads", frames: options.frames, seconds: seconds,
            batch: nil, stages: [("decode", Percentiles(latencies)!)],
            cpuMicrosecondsPerFrame: cpuSeconds * 1e6 / Double(options.frames), latencies: latencies, devices: [])
    }
}

/// Every timed frame's decode latency (µs), in the order frames came out,
/// and how many did not decode cleanly: the output handler of each bench path.
final class FrameOutcomes: @unchecked Sendable {  // @unchecked: every field under `lock`
    private let lock = NSLock()
    private var values: [Double] = []
    private var failures = 0
    /// With measurements asked for (`gpu-check`): the clip's length, and
    /// each of its samples' digest and integer sums: FFmpeg's frame's,
    /// measured on the CPU, where there is a reference, else what the
    /// sample gave first. Every frame must carry its measurements and every
    /// loop of a sample give them again: a pass that did not run, or ran on
    /// the wrong frame, fails the run instead of timing less work.
    private let clipFrames: Int?
    private var expected: [Int: (digest: BLAKE3Digest, sums: PictureSums)] = [:]
    private var unmeasured = 0, inconsistent = 0

    init(measuredClipFrames: Int? = nil, reference: [Int: FrameAnalysis] = [:]) {
        clipFrames = measuredClipFrames
        for (index, analysis) in reference {
            if let digest = analysis.digest, let sums = analysis.sums { expected[index] = (digest, sums.integers) }
        }
    }

    func record(_ frame: DecodedFrame) {
        lock.lock()
        values.append(Double(frame.decodeNanoseconds) / 1000)
        if !frame.status.isOK { failures += 1 }
        if let clipFrames {
            if let digest = frame.analysis?.digest, let sums = frame.analysis?.sums?.integers {
                let first = expected[frame.index % clipFrames, default: (digest, sums)]
                expected[frame.index % clipFrames] = first
                if first.digest != digest || first.sums != sums { inconsistent += 1 }
            } else {
                unmeasured += 1
            }
        }
        lock.unlock()
    }

    /// Forgets the warm-up's frames (the digests stay: the timed run must repeat them).
    func reset() {
        lock.lock()
        values.removeAll()
        failures = 0
        lock.unlock()
    }

    /// The latencies; an error when any frame did not decode cleanly on
    /// `engine`, or was not measured as asked.
    func latencies(on engine: String) throws -> [Double] {
        lock.lock()
        defer { lock.unlock() }
        if failures > 0 {
            throw BenchmarkDamagedInput(message: "bench: \(failures) frames did not decode cleanly on the \(engine)")
        }
        if unmeasured > 0 {
            throw ProResDecodeError.badRequest(
                .message("bench: \(unmeasured) frames came back without their hash and statistics on the \(engine)"))
        }
        if inconsistent > 0 {
            throw ProResDecodeError.badRequest(
                .message(
                    "bench: \(inconsistent) frames measured otherwise (hash or statistics) than FFmpeg's frame of the same sample, or its loop before, on the \(engine)"
                ))
        }
        return values
    }
}

/// Frames of the benchmarked input that did not decode cleanly: damaged
/// input, not a malformed request (the CLI's exit 5, as for a decode).
public struct BenchmarkDamagedInput: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
