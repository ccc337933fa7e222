import Foundation
import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// One decode from a sample source to sinks, timed per frame: the pipeline
/// `prores-decode INPUT` runs. The reader runs on the caller's thread, the
/// decoder on the session's, packing and sinks on the session's output thread.
public final class DecodeRun: @unchecked Sendable {
    public let source: SampleSource
    public let options: Options
    public let output: OutputSelection
    private let sinks: [FrameSink]
    private let gpuSinks: [ConvertedFrameSink]
    private let analysisSink: FrameAnalysisSink?
    private let timingLog: OutputFile?
    private let lock = NSLock()
    private var session: FrameDecoding?
    private var pacer: FramePacer?
    private var cancelled = false
    /// Cleared when the run ends, so that the Vulkan device goes with the
    /// session even if the run object itself lives on.
    private var decoder: DecoderSelection.Resolved
    /// "cpu" or "gpu (device)": which decoder this run uses.
    public private(set) var decoderName: String
    /// Why `--decoder auto` chose the CPU.
    public private(set) var decoderNote: String?
    /// `auto` wanted the GPU decoder but it failed to start: worth telling.
    public private(set) var decoderFellBack = false

    /// With a handover, what decodes after it, once the device is there.
    private var handoverResolution: Deferred<DecoderSelection.Resolved>?
    /// Whether a handover's next decoder is known: the next sample goes to it.
    package var handoverIsDue: Bool { handoverResolution?.isReady(waitingUpTo: 0) ?? false }

    /// Called on the output thread after each frame, with the number done.
    public var progress: ((Int) -> Void)?

    public init(source: SampleSource, options: Options, sinks: [FrameSink], gpuSinks: [ConvertedFrameSink] = [],
                analysisSink: FrameAnalysisSink? = nil, timingLog: OutputFile? = nil) throws {
        self.analysisSink = analysisSink
        self.source = source
        self.options = options
        let requested = options.output ?? .packed(source.format.nativePackedLayout)
        self.sinks = sinks
        self.gpuSinks = gpuSinks
        self.timingLog = timingLog
        if options.gpu != nil, requested == .native {
            throw ProResDecodeError.badRequest(.conversionNeedsPackedLayout)
        }
        if options.gpu == nil, !gpuSinks.isEmpty {
            throw ProResDecodeError.badRequest(.saveNeedsConversion)
        }
        precondition((options.analysis == nil) == (analysisSink == nil) && (options.analysis == nil || requested == .native),
                     "an analysis needs its sink and the native planar output")
        precondition(options.deviceStarting == nil || (options.gpu == nil && options.realtime == nil),
                     "a handover needs a run whose stages need no device before the first frame")
        // With a device still starting, the CPU decodes first and the
        // decision is taken when the device is there (`successor`).
        decoder = options.deviceStarting == nil ? try options.decoder.resolve(for: source.format) : .cpu(reason: nil, fellBack: false)
        // Nothing reads the frames (no sink, no GPU stage, no analysis): the
        // CPU decoder's stay in its native planar layout, as `ffmpeg -f null`
        // leaves them. Packing them anyway was a pass over every frame on all
        // cores, competing with FFmpeg's frame threads: why long runs lost
        // to the CLI (BENCHMARKS.md §1). A layout asked for is still
        // packed, so that pass can be timed on its own.
        if options.output == nil, sinks.isEmpty, gpuSinks.isEmpty, options.gpu == nil, analysisSink == nil, options.deviceStarting == nil,
           case .cpu = decoder {
            output = .native
        } else {
            output = requested
        }
        switch decoder {
        case .cpu where options.deviceStarting != nil:
            decoderName = "gpu (starting)"
            decoderNote = nil
        case let .cpu(reason, fellBack):
            decoderName = options.decoder.cpuDecoderName
            decoderNote = reason
            decoderFellBack = fellBack
        case let .gpu(device):
            decoderName = "gpu (\(device.context.info.name))"
            decoderNote = nil
        }
    }

    /// Stops the run from another thread (a signal handler); `run()` then
    /// throws `.interrupted` and every sink discards its output.
    public func cancel() {
        lock.lock()
        cancelled = true
        let session = self.session, pacer = self.pacer
        lock.unlock()
        // A pipeline waiting for its tick must be let go before the session can stop.
        pacer?.cancel()
        session?.cancel()
    }


    /// The analysis sink, unless it is one of `sinks` too.
    private var separateAnalysisSink: FrameAnalysisSink? {
        guard let analysisSink else { return nil }
        return sinks.contains { ObjectIdentifier($0) == ObjectIdentifier(analysisSink) } ? nil : analysisSink
    }

    public func run() throws -> Report {
        defer { decoder = .cpu(reason: nil, fellBack: false) }
        do {
            let report = try decodeAll()
            for sink in sinks { try sink.finish() }
            for sink in gpuSinks { try sink.finish() }
            try separateAnalysisSink?.finish()
            try timingLog?.commit()
            return report
        } catch {
            for sink in sinks { sink.abort() }
            for sink in gpuSinks { sink.abort() }
            separateAnalysisSink?.abort()
            timingLog?.discard()
            throw error
        }
    }

    private func decodeAll() throws -> Report {
        let format = source.format
        var damaged: [(Int, String)] = []
        var failed: [(Int, String)] = []
        var packPool: PixelBufferPool?
        let started = monotonicNanoseconds()
        // With a GPU stage a frame's timing is complete only when its GPU work
        // is, on the GPU's completion thread: hence the lock.
        let ledger = TimingLedger()
        // --realtime: a finished frame goes to the presenter, which runs on
        // its own thread from now on and waits for its preroll.
        let pacer = options.realtime.map { FramePacer(rate: $0, firstIndex: options.start) }
        pacer?.onPresent = options.present
        let presenter = pacer.map { pacer in Deferred("prores-decode.presenter") { pacer.run() } }
        lock.lock()
        self.pacer = pacer
        lock.unlock()
        // However the run ends, the presenter thread ends with it.
        defer {
            pacer?.cancel()
            _ = try? presenter?.get()
        }
        // Called on the output thread, or the GPU's completion thread: each
        // object it touches orders itself (the ledger's lock, the log's and
        // the pacer's own).
        let timingLog = UncheckedSendable(self.timingLog), progress = UncheckedSendable(self.progress)
        @Sendable func record(_ timing: FrameTiming) throws {
            try ledger.append(timing) { count in
                try timingLog.value?.write(timing.jsonLine + "\n")
                progress.value?(count)
            }
            // Outside the lock: this waits while the presenter's queue is full.
            if case .failed = timing.status {} else { pacer?.push(timing.index) }
        }
        // Vulkan set-up (device, pipeline) runs while the decoder starts; the
        // first frame to reach the GPU waits for it.
        var decoderDevice: GPUDevice?
        if case let .gpu(device) = decoder { decoderDevice = device }
        let gpuStage = options.gpu.map { requested in
            var adjusted = requested
            // The GPU decoder hands over a batch of frames at once, and their
            // conversions queue behind the next batch's decoding: with only
            // a few frames in flight the converter waits out each batch. As
            // many as two batches of 4K, within 2 GiB of converted frames
            // (64, tried on the H200 together with 32-frame batches, went
            // with a slower 1,920-frame --vulkan run; 32 until timed alone).
            if decoderDevice != nil {
                let converted = max(1, format.width * format.height * 8)
                adjusted.framesInFlight = max(adjusted.framesInFlight, min(32, (2 << 30) / converted))
            }
            let gpuOptions = adjusted
            // The sinks and context are used by the set-up thread, then by the
            // GPU stage alone.
            let handedOver = UncheckedSendable((gpuSinks, decoderDevice))
            return Deferred("prores-decode.gpu-setup") { () throws -> GPUStage in
                let stage = try GPUStage(options: gpuOptions, format: format, sinks: handedOver.value.0, device: handedOver.value.1 ?? gpuOptions.device)
                stage.onConverted = { converted in
                    guard var timing = ledger.converted(converted.index) else { return }
                    timing.gpuUpload = converted.uploadMicroseconds
                    timing.gpuConvert = converted.convertMicroseconds
                    timing.gpuEffects = converted.effectMicroseconds.isEmpty ? nil : converted.effectMicroseconds
                    timing.latency = Double(monotonicNanoseconds() - converted.readStart) / 1000
                    try record(timing)
                }
                return stage
            }
        }

        var unpackPool: PixelBufferPool?
        var firstFrameAt: UInt64?
        // Frames the CPU decoder made are measured on every core, in order.
        let analysisSink = self.analysisSink
        // A handover's first frames when nothing reads them and no layout
        // was asked for: not packed for nothing (the GPU decoder's have no
        // host surface then).
        let nothingReadsFrames = options.output == nil && sinks.isEmpty && gpuSinks.isEmpty && options.gpu == nil && analysisSink == nil
        let cpuAnalysis = options.analysis.map { request in
            OrderedFrameWork<FrameAnalysis>(work: { frames in
                frames.map { FrameAnalysis(planar: $0, format: format.nativeFormat, width: format.width, height: format.height, request: request) }
            }, deliver: { index, pts, _, analysis in try analysisSink?.consume(index: index, pts: pts, analysis: analysis) })
        }
        defer { cpuAnalysis?.cancel() }
        let handler: DecodeSession.OutputHandler = { [self] frame in
            if firstFrameAt == nil { firstFrameAt = monotonicNanoseconds() }
            var pack: UInt64 = 0, write: UInt64 = 0
            switch frame.status {
            case .ok: break
            case let .damaged(why): damaged.append((frame.index, why))
            case let .failed(why): failed.append((frame.index, why))
            }
            var packed: PixelBuffer?
            var unpacked: PixelBuffer?
            // Before anything can throw: a sink that fails (EPIPE on `-o -`)
            // must not keep a use of the surface, and with it the pool.
            defer { unpacked?.releaseUse() }
            defer { packed?.releaseUse() }
            if var surface = frame.pixelBuffer, !nothingReadsFrames {
                let spans: [UnsafeRawBufferPointer]
                // The surface behind `spans`, for sinks that hold it.
                let holder: PixelBuffer
                // The GPU decoder hands over its native packed layout: used as
                // it is when asked for, else unpacked to the planar layout.
                if case let .packed(held) = surface.layout.content, output != .packed(held) {
                    let t0 = monotonicNanoseconds()
                    let wanted = SurfaceLayout.planar(format.nativeFormat, width: surface.layout.width, height: surface.layout.height,
                                                      paddedWidth: surface.layout.width, paddedHeight: surface.layout.height, rowAlignment: 64)
                    let planar = try PixelBufferPool.makeBuffer(wanted, from: &unpackPool)
                    FrameUnpacker.unpack(surface, into: planar)
                    unpacked = planar
                    surface = planar
                    pack = monotonicNanoseconds() - t0
                }
                if case .packed = surface.layout.content {
                    surface.retainUse()
                    packed = surface
                    spans = surface.visibleSpans()
                    holder = surface
                } else if case let .packed(layout) = output {
                    let t0 = monotonicNanoseconds()
                    let wanted = SurfaceLayout.packed(layout, width: surface.layout.width, height: surface.layout.height)
                    let destination = try PixelBufferPool.makeBuffer(wanted, from: &packPool)
                    FramePacker.pack(surface, into: destination)
                    packed = destination
                    spans = destination.visibleSpans()
                    holder = destination
                    pack += monotonicNanoseconds() - t0
                } else {
                    spans = surface.visibleSpans()
                    holder = surface
                }
                let t1 = monotonicNanoseconds()
                for sink in sinks { try sink.consume(index: frame.index, pts: frame.pts, spans: spans, holder: holder) }
                if frame.analysis == nil { try cpuAnalysis?.submit(index: frame.index, pts: frame.pts, spans: spans, holder: holder) }
                write = monotonicNanoseconds() - t1
            }
            if let analysis = frame.analysis {
                // After a handover, the CPU decoder's last frames may still be measured on the CPU.
                try cpuAnalysis?.waitUntilDelivered()
                try analysisSink?.consume(index: frame.index, pts: frame.pts, analysis: analysis)
            }
            let timing = FrameTiming(index: frame.index, pts: frame.pts, status: frame.status,
                                     demux: Double(frame.demuxNanoseconds) / 1000, decode: Double(frame.decodeNanoseconds) / 1000,
                                     pack: Double(pack) / 1000, output: Double(write) / 1000,
                                     latency: Double(monotonicNanoseconds() - frame.readStart) / 1000)
            let gpu = try gpuStage?.get()
            // The GPU decoder's frames are converted where they are, on the device.
            if let gpu, let input = (frame.deviceSurface as? DeviceSurface).map(ConverterInput.device) ?? packed.map(ConverterInput.host) {
                ledger.waitForGPU(timing)
                try gpu.submit(input, frame: frame)
            } else {
                // Keep timing lines in order behind frames still on the GPU.
                try gpu?.drain()
                try record(timing)
            }
        }
        // The decoder has no frame queued: conversions held to share a
        // submission go to the GPU (a GPU batch's frames share one).
        let idle: OutputIdleHandler? = options.gpu == nil ? nil : { try gpuStage?.get().flush() }
        let session: FrameDecoding
        var handover: HandoverSession?
        switch decoder {
        case .cpu where options.deviceStarting != nil:
            // Half the cores: the other half makes the device, reads ahead
            // and parses (with all of them, the device came ~20 ms later on
            // the H200's host).
            let threads = options.threads > 0 ? options.threads : max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
            let starting = options.deviceStarting!, selection = options.decoder
            let first: HandoverSession.Maker = { handler, idle in
                try selection.makeCPUSession(format: format, threads: threads, slicesOnly: true, outputHandler: handler,
                                             outputIdleHandler: idle)
            }
            let resolution = Deferred("prores-decode.handover") { () throws -> DecoderSelection.Resolved in
                var resolving = selection
                resolving.shared = try starting.get()
                return try resolving.resolve(for: format)
            }
            handoverResolution = resolution
            handover = try HandoverSession(first: first, successor: { [self] in
                resolution.isReady(waitingUpTo: 0) ? decoderAfterHandover(format, try resolution.get()) : nil
            }, outputHandler: handler, outputIdleHandler: idle)
            session = handover!
        case .cpu:
            session = try options.decoder.makeCPUSession(format: format, threads: options.threads, outputHandler: handler,
                                                         outputIdleHandler: idle)
        case let .gpu(device):
            // Host copies only for sinks that need the bytes; `--vulkan` reads the device-local surfaces.
            let configuration = GPUDecodeSession.Configuration(readback: !sinks.isEmpty, deviceSurfaces: options.gpu != nil,
                                                               analysis: options.analysis)
            do {
                session = try Trace.span("session made") { () throws -> FrameDecoding in
                    // A run with a GPU stage (`check --previews`) keeps a session of its own.
                    if let lanes = options.decoder.lanes, lanes.device == device, options.gpu == nil {
                        return try lanes.stream(format: format, configuration: configuration, outputHandler: handler,
                                                outputIdleHandler: idle)
                    }
                    return try GPUDecodeSession(format: format, device: device, configuration: configuration,
                                                outputHandler: handler, outputIdleHandler: idle)
                }
            } catch where options.decoder.choice == .auto && !options.decoder.requireHardware {
                // `auto` means the best decoder that works: the CPU when the GPU cannot start.
                session = try options.decoder.makeCPUSession(format: format, threads: options.threads, outputHandler: handler,
                                                             outputIdleHandler: idle)
                decoderName = options.decoder.cpuDecoderName
                decoderNote = "the GPU decoder could not start: \(error)"
                decoderFellBack = true
            }
        }
        lock.lock()
        self.session = session
        let stopEarly = cancelled
        lock.unlock()
        // The session's handler holds this run; letting go of the session when
        // the run ends breaks that cycle (check runs one DecodeRun per file).
        defer {
            lock.lock()
            self.session = nil
            lock.unlock()
        }
        if stopEarly { throw ProResDecodeError.interrupted }

        var read = 0
        var skippedLate: [Int] = []
        var pacing: PacingReport?
        var inputHasEnded = false
        func endInput() {
            if !inputHasEnded { options.inputEnded?() }
            inputHasEnded = true
        }
        // On failure not before the session stopped: the next file's clock
        // must not run while this one's dropped frames still hold the decoder.
        defer { endInput() }
        do {
            if options.start > 0 { try source.seek(toFrame: options.start) }
            while options.frames.map({ read < $0 }) ?? true, let sample = try Trace.span("next sample", { try source.nextSample() }) {
                read += 1
                if options.skipLateFrames, pacer?.hasMissedItsTick(sample.index) == true {
                    skippedLate.append(sample.index)
                    continue
                }
                try Self.checkPictureFormat(sample, against: format)
                try Trace.span("sample queued") { try session.decode(sample) }
            }
            endInput()
            try Trace.span("session finished") { try session.finish() }
            if let handover, !handover.handedOver {
                // The CPU decoded every frame: why the GPU decoder did not.
                // Waiting for the device costs the command line nothing (it
                // waits for it before exiting anyway).
                decoderName = options.decoder.cpuDecoderName
                if case let .cpu(reason, fellBack)? = try? handoverResolution?.get() {
                    decoderNote = reason
                    decoderFellBack = fellBack
                } else {
                    decoderNote = "the stream ended before the GPU decoder's device was ready"
                }
            }
            try cpuAnalysis?.finish()
            try gpuStage?.get().drain()
            pacer?.finish()
            pacing = try presenter?.get()
        } catch {
            pacer?.cancel()
            session.cancel()
            try? session.finish()
            // Frames already converting must not reach the sinks after run() aborts them.
            if let stage = try? gpuStage?.get() { stage.cancel() }
            lock.lock()
            let wasCancelled = cancelled
            lock.unlock()
            throw wasCancelled ? ProResDecodeError.interrupted : error
        }
        lock.lock()
        let wasCancelled = cancelled
        lock.unlock()
        if wasCancelled { throw ProResDecodeError.interrupted }
        if read == 0 {
            throw ProResDecodeError.badRequest(options.start > 0 ? .noFrame(at: options.start) : .noFrames)
        }
        // A requested --frames N that was fully read cannot have fallen short.
        let shortfall = options.frames.map { read < $0 } ?? true ? source.shortfall : nil
        if let pacing { try self.timingLog?.write(pacing.timingLogLine + "\n") }
        let timings = ledger.timings
        var report = Report(output: output, framesRead: read, framesWritten: timings.count - failed.count,
                      damaged: damaged, failed: failed, frames: timings.map { ($0.index, $0.status) }, shortfall: shortfall,
                      summary: TimingSummary(timings: timings, seconds: Double(monotonicNanoseconds() - started) / 1e9,
                                             effects: options.gpu?.effects ?? []),
                      decoderPool: session.poolStatistics, packPool: packPool?.statistics, gpu: try gpuStage?.get().report,
                      decoder: decoderName, decoderNote: decoderNote, pacing: pacing, firstFrameAt: firstFrameAt)
        report.skippedLate = skippedLate
        // Counted only where the GPU decoder took over (not the CPU from the CPU).
        if case .gpu = decoder, let handover, handover.handedOver { report.framesBeforeHandover = handover.framesOnFirst }
        return report
    }

    /// What decodes after the handover, chosen as `init` would have with
    /// the device there: the GPU decoder, or the CPU decoder with every
    /// thread (`auto` without a hardware GPU, or a GPU decoder that cannot start).
    /// The maker, called on the feeding thread at the handover, names the
    /// decoder then (never, when the stream ends first: `decodeAll` names it).
    private func decoderAfterHandover(_ format: FormatDescription, _ resolved: DecoderSelection.Resolved) -> HandoverSession.Maker {
        let threads = options.threads, selection = options.decoder
        let cpu: HandoverSession.Maker = { handler, idle in
            try selection.makeCPUSession(format: format, threads: threads, outputHandler: handler, outputIdleHandler: idle)
        }
        switch resolved {
        case let .cpu(reason, fellBack):
            return { [self] handler, idle in
                decoderName = options.decoder.cpuDecoderName
                decoderNote = reason
                decoderFellBack = fellBack
                return try cpu(handler, idle)
            }
        case let .gpu(device):
            let configuration = GPUDecodeSession.Configuration(readback: !sinks.isEmpty, analysis: options.analysis)
            let fallsBack = options.decoder.choice == .auto && !options.decoder.requireHardware
            return { [self] handler, idle in
                do {
                    let session = try Trace.span("session made") {
                        try GPUDecodeSession(format: format, device: device, configuration: configuration, outputHandler: handler,
                                             outputIdleHandler: idle)
                    }
                    decoder = .gpu(device)
                    decoderName = "gpu (\(device.context.info.name))"
                    return session
                } catch where fallsBack {
                    decoderName = options.decoder.cpuDecoderName
                    decoderNote = "the GPU decoder could not start: \(error)"
                    decoderFellBack = true
                    return try cpu(handler, idle)
                }
            }
        }
    }
}
