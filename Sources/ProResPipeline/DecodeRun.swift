import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// One decode from a sample source to sinks, timed per frame: the pipeline
/// `prores-decode INPUT` runs. The reader runs on the caller's thread, the
/// decoder on the session's, packing and sinks on the session's output thread.
public final class DecodeRun: @unchecked Sendable {
    public let source: SampleSource
    public let options: Options
    public let output: OutputSelection
    private let sinks: [FrameSink]
    /// Sinks of the native planar frame whatever `output` is (hashes that
    /// default to the native planes while `-o` or `--vulkan` needs a packed layout).
    private let nativeSinks: [FrameSink]
    private let gpuSinks: [ConvertedFrameSink]
    private let analysisSink: FrameAnalysisSink?
    private let timingLog: OutputFile?
    private let lock = NSLock()
    private var session: FrameDecoding?
    private var pacer: FramePacer?
    private var cancelled = false
    /// Which decoder decodes, and its name.
    public let plan: DecoderPlan
    /// "cpu" or "gpu (device)": which decoder this run uses.
    public var decoderName: String { plan.name }
    /// Why `--decoder auto` chose the CPU.
    public var decoderNote: String? { plan.note }
    /// `auto` wanted the GPU decoder but it failed to start: worth telling.
    public var decoderFellBack: Bool { plan.fellBack }
    /// Whether a handover's next decoder is known: the next sample goes to it.
    package var handoverIsDue: Bool { plan.handoverIsDue }

    /// Called on the output thread after each frame, with the number done.
    public var progress: ((Int) -> Void)?

    public init(
        source: SampleSource, options: Options, sinks: [FrameSink], nativeSinks: [FrameSink] = [],
        gpuSinks: [ConvertedFrameSink] = [],
        analysisSink: FrameAnalysisSink? = nil, timingLog: OutputFile? = nil
    ) throws {
        self.analysisSink = analysisSink
        self.nativeSinks = nativeSinks
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
        precondition(
            (options.analysis == nil) == (analysisSink == nil)
                && (options.analysis?.hashedLayout).map { requested == .packed($0) } ?? true,
            "an analysis needs its sink, and a hashed packed layout that output")
        plan = options.plan ?? DecoderPlan(selection: options.decoder, deviceStarting: options.deviceStarting)
        precondition(
            plan.deviceStarting == nil || (options.gpu == nil && options.realtime == nil),
            "a handover needs a run whose stages need no device before the first frame")
        try plan.resolve(for: source.format)
        // Nothing reads the frames (no sink, no GPU stage, no analysis): the
        // CPU decoder's stay as FFmpeg made them, as `ffmpeg -f null` leaves
        // them. Packing them anyway would be a pass over every frame on all
        // cores, competing with FFmpeg's frame threads, and long runs would
        // lose to the CLI. A layout asked for is still
        // packed, so that pass can be timed on its own.
        if options.output == nil, sinks.isEmpty, nativeSinks.isEmpty, gpuSinks.isEmpty, options.gpu == nil,
            analysisSink == nil,
            plan.decodesOnCPUAlone
        {
            output = .native
        } else {
            output = requested
        }
    }

    /// Stops the run from another thread (a signal handler); `run()` then
    /// throws `.interrupted` and every sink discards its output.
    public func cancel() {
        lock.lock()
        cancelled = true
        let session = self.session
        let pacer = self.pacer
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
        defer { plan.release() }
        do {
            let report = try decodeAll()
            for sink in sinks + nativeSinks { try sink.finish() }
            for sink in gpuSinks { try sink.finish() }
            try separateAnalysisSink?.finish()
            try timingLog?.commit()
            return report
        } catch {
            for sink in sinks + nativeSinks { sink.abort() }
            for sink in gpuSinks { sink.abort() }
            separateAnalysisSink?.abort()
            timingLog?.discard()
            throw error
        }
    }

    /// The run's steps: the presenter, the timing record, the GPU stage and
    /// the CPU analysis; the session through `plan`; the samples fed to it;
    /// the report.
    private func decodeAll() throws -> Report {
        let format = source.format
        let started = monotonicNanoseconds()
        // With a GPU stage a frame's timing is complete only when its GPU work
        // is, on the GPU's completion thread: hence the lock.
        let ledger = TimingLedger()
        let (pacer, presenter) = startPresenter()
        // However the run ends, the presenter thread ends with it.
        defer {
            pacer?.cancel()
            _ = try? presenter?.get()
        }
        let record = recorder(ledger, pacer)
        let gpuStage = makeGPUStage(format, ledger: ledger, record: record)
        let cpuAnalysis = makeCPUAnalysis(format)
        defer { cpuAnalysis?.cancel() }
        let delivered = DeliveredFrames()
        let handler = frameHandler(
            format, delivered: delivered, ledger: ledger, record: record, gpuStage: gpuStage, cpuAnalysis: cpuAnalysis)
        // The decoder has no frame queued: conversions held to share a
        // submission go to the GPU (a GPU batch's frames share one).
        let idle: OutputIdleHandler? = options.gpu == nil ? nil : { try gpuStage?.get().flush() }
        // Host copies only for sinks that need the bytes; `--vulkan` reads the
        // device-local surfaces. A run with a GPU stage (`check --previews`)
        // keeps a session of its own rather than a shared lane's stream.
        let tuning = plan.selection.tuning
        var configuration = GPUDecodeSession.Configuration(
            framesPerBatch: tuning.batch, slots: tuning.slots, readback: !sinks.isEmpty || !nativeSinks.isEmpty,
            deviceSurfaces: options.gpu != nil, analysis: options.analysis)
        configuration.timestampInterval = tuning.timestampInterval
        var samples: SampleSource = source
        let session: FrameDecoding
        let handover: HandoverSession?
        do {
            (session, handover) = try plan.makeSession(
                format: format, threads: options.threads, configuration: configuration,
                lanes: options.gpu == nil ? plan.selection.lanes : nil,
                cpuPacking: cpuPacking(analysing: cpuAnalysis != nil),
                outputHandler: handler, outputIdleHandler: idle)
        } catch ProResDecodeError.decoderUnavailable(let why) where options.gpu == nil {
            // A picture size the device cannot hold, claimed by a frame too
            // small to hold it: rejected frame by frame, in FFmpeg's session's
            // words, as `--decoder cpu` rejects it (no frame is decoded).
            guard let forged = try ForgedPictureSource.reading(source, start: options.start) else {
                throw ProResDecodeError.decoderUnavailable(why)
            }
            samples = forged
            session = try plan.forgedPictureSession(why, format: format, threads: options.threads, handler, idle)
            handover = nil
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
        let fed = try feed(
            session, samples: samples, handover: handover, pacer: pacer, presenter: presenter, cpuAnalysis: cpuAnalysis,
            gpuStage: gpuStage)
        if isCancelled { throw ProResDecodeError.interrupted }
        if fed.read == 0 {
            throw ProResDecodeError.badRequest(options.start > 0 ? .noFrame(at: options.start) : .noFrames)
        }
        if let pacing = fed.pacing { try self.timingLog?.write(pacing.timingLogLine + "\n") }
        return try report(
            fed, shortfall: samples.shortfall, delivered: delivered, ledger: ledger, started: started, session: session,
            handover: handover, gpuStage: gpuStage)
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    /// --realtime: a finished frame goes to the presenter, which runs on its
    /// own thread from now on and waits for its preroll.
    private func startPresenter() -> (FramePacer?, Deferred<PacingReport>?) {
        let clock: PacingClock
        if let given = options.pacingClock { clock = given } else { clock = MonotonicPacingClock() }
        let pacer = options.realtime.map { FramePacer(rate: $0, firstIndex: options.start, clock: clock) }
        pacer?.onPresent = options.present
        let presenter = pacer.map { pacer in Deferred("prores-decode.presenter") { pacer.run() } }
        lock.lock()
        self.pacer = pacer
        lock.unlock()
        return (pacer, presenter)
    }

    /// A finished frame's timing: into the ledger, the timing log and the
    /// progress, then to the presenter. Called on the output thread, or the
    /// GPU's completion thread: each object it touches orders itself (the
    /// ledger's lock, the log's and the pacer's own).
    private func recorder(_ ledger: TimingLedger, _ pacer: FramePacer?) -> @Sendable (FrameTiming) throws -> Void {
        let timingLog = UncheckedSendable(self.timingLog)
        let progress = UncheckedSendable(self.progress)
        return { timing in
            try ledger.append(timing) { count in
                try timingLog.value?.write(timing.jsonLine + "\n")
                progress.value?(count)
            }
            // Outside the lock: this waits while the presenter's queue is full.
            if case .failed = timing.status {} else { pacer?.push(timing.index) }
        }
    }

    /// `--vulkan`'s stage: its set-up (device, pipeline) runs while the
    /// decoder starts; the first frame to reach the GPU waits for it.
    private func makeGPUStage(
        _ format: FormatDescription, ledger: TimingLedger,
        record: @escaping @Sendable (FrameTiming) throws -> Void
    ) -> Deferred<GPUStage>? {
        let decoderDevice = plan.gpuDevice
        return options.gpu.map { requested in
            var adjusted = requested
            // The GPU decoder hands over a batch of frames at once, and their
            // conversions queue behind the next batch's decoding: with only
            // a few frames in flight the converter waits out each batch. As
            // many as two batches of 4K, within 2 GiB of converted frames
            // (64, tried together with 32-frame batches, made a 1,920-frame
            // --vulkan run slower).
            if decoderDevice != nil {
                let converted = max(1, format.width * format.height * 8)
                adjusted.framesInFlight = max(adjusted.framesInFlight, min(32, (2 << 30) / converted))
            }
            let gpuOptions = adjusted
            // The sinks and context are used by the set-up thread, then by the
            // GPU stage alone.
            let handedOver = UncheckedSendable((gpuSinks, decoderDevice))
            return Deferred("prores-decode.gpu-setup") { () throws -> GPUStage in
                let stage = try Trace.span("gpu stage made") {
                    try GPUStage(
                        options: gpuOptions, format: format, sinks: handedOver.value.0,
                        device: handedOver.value.1 ?? gpuOptions.device)
                }
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
    }

    /// Frames the CPU decoder made are measured on every core, in order.
    private func makeCPUAnalysis(_ format: FormatDescription) -> OrderedFrameWork<FrameAnalysis>? {
        let analysisSink = self.analysisSink
        return options.analysis.map { request in
            OrderedFrameWork<FrameAnalysis>(
                work: { frames in
                    frames.map { frame in
                        frame.withSpans {
                            FrameAnalysis(
                                planar: $0, format: format.nativeFormat, width: format.width, height: format.height,
                                request: request)
                        }
                    }
                },
                deliver: { index, pts, _, analysis in
                    try analysisSink?.consume(index: index, pts: pts, analysis: analysis)
                })
        }
    }

    /// The packed layout our CPU decoder writes its frames in itself, slice
    /// by slice, with no planar frame in between: the output's, where
    /// nothing wants the planar frame (no native sink, no analysis of it).
    private func cpuPacking(analysing: Bool) -> PackedLayout? {
        guard case .packed(let layout) = output, nativeSinks.isEmpty else { return nil }
        return !analysing || options.analysis?.hashedLayout != nil ? layout : nil
    }

    /// Each decoded frame, on the session's output thread: its status noted,
    /// its bytes unpacked or packed for the output, to the sinks and the
    /// analysis, then to the GPU stage or straight to the record.
    private func frameHandler(
        _ format: FormatDescription, delivered: DeliveredFrames, ledger: TimingLedger,
        record: @escaping @Sendable (FrameTiming) throws -> Void, gpuStage: Deferred<GPUStage>?,
        cpuAnalysis: OrderedFrameWork<FrameAnalysis>?
    ) -> FrameOutputHandler {
        let routing = FrameRouting(self, cpuAnalysis: cpuAnalysis)
        return { [self] frame in
            delivered.note(frame)
            let held = HeldSurfaces()
            // Before anything can throw: a sink that fails (EPIPE on `-o -`)
            // must not keep a use of the surface, and with it the pool.
            defer { held.release() }
            var pack: UInt64 = 0
            var write: UInt64 = 0
            if let surface = frame.pixelBuffer, !routing.nothingReadsFrames {
                let views = try views(of: surface, frame, format, routing, delivered: delivered, held: held)
                pack = views.packNanoseconds
                let t1 = monotonicNanoseconds()
                try feed(frame, views, format, routing, cpuAnalysis: cpuAnalysis)
                write = monotonicNanoseconds() - t1
            }
            if let analysis = frame.analysis {
                // After a handover, the CPU decoder's last frames may still be measured on the CPU.
                try cpuAnalysis?.waitUntilDelivered()
                try analysisSink?.consume(index: frame.index, pts: frame.pts, analysis: analysis)
            }
            let timing = FrameTiming(
                index: frame.index, pts: frame.pts, status: frame.status,
                demux: Double(frame.demuxNanoseconds) / 1000, decode: Double(frame.decodeNanoseconds) / 1000,
                pack: Double(pack) / 1000, output: Double(write) / 1000,
                latency: Double(monotonicNanoseconds() - frame.readStart) / 1000)
            let gpu = try gpuStage?.get()
            // The GPU decoder's frames are converted where they are, on the device.
            if let gpu,
                let input = (frame.deviceSurface as? DeviceSurface).map(ConverterInput.device)
                    ?? held.packed.map(ConverterInput.host)
            {
                ledger.waitForGPU(timing)
                try gpu.submit(input, frame: frame)
            } else {
                // Keep timing lines in order behind frames still on the GPU.
                try gpu?.drain()
                try record(timing)
            }
        }
    }

    /// What the run's sinks and analyses read, decided once for every frame.
    private struct FrameRouting {
        /// A handover's first frames when nothing reads them and no layout
        /// was asked for: not packed for nothing (the GPU decoder's have no
        /// host surface then).
        let nothingReadsFrames: Bool
        /// The CPU's analyses measure the planar frame, or hash the output's packed bytes.
        let analysesOutput: Bool
        /// Sinks of the native planes that read them from the GPU decoder's
        /// packed frame in place (`readsNativePlanesOfPacked`): its planar
        /// frame is then never written, and the work runs on the sinks' threads.
        let sinksReadPackedPlanes: Bool
        let nativeSinksReadPackedPlanes: Bool
        let cpuAnalyses: Bool

        init(_ run: DecodeRun, cpuAnalysis: OrderedFrameWork<FrameAnalysis>?) {
            nothingReadsFrames =
                run.options.output == nil && run.sinks.isEmpty && run.nativeSinks.isEmpty && run.gpuSinks.isEmpty
                && run.options.gpu == nil && run.analysisSink == nil
            analysesOutput = run.options.analysis?.hashedLayout != nil
            sinksReadPackedPlanes =
                run.output == .native && !run.sinks.isEmpty && run.sinks.allSatisfy(\.readsNativePlanesOfPacked)
            nativeSinksReadPackedPlanes =
                !run.nativeSinks.isEmpty && run.nativeSinks.allSatisfy(\.readsNativePlanesOfPacked)
            cpuAnalyses = cpuAnalysis != nil
        }
    }

    /// A frame as its readers take it: the output's bytes and the native
    /// planar frame, each with the surface that holds them.
    private struct FrameViews {
        /// The frame's surface, unpacked to planes where the output is not its packed layout.
        let surface: PixelBuffer
        let spans: [UnsafeRawBufferPointer]
        let holder: PixelBuffer
        let planarSpans: [UnsafeRawBufferPointer]
        let planarHolder: PixelBuffer
        let sinksTakePlanes: Bool
        let nativeSinksTakePlanes: Bool
        let packNanoseconds: UInt64
    }

    /// Unpacks, copies or packs `decoded` into what the sinks and analyses
    /// read; every surface taken for it is in `held`.
    private func views(
        of decoded: PixelBuffer, _ frame: DecodedFrame, _ format: FormatDescription, _ routing: FrameRouting,
        delivered: DeliveredFrames, held: HeldSurfaces
    ) throws -> FrameViews {
        var surface = decoded
        var pack: UInt64 = 0
        // Nothing on the CPU measures this frame's planes.
        let noCPUAnalysis = frame.analysis != nil || !routing.cpuAnalyses
        let holdsNativePacked = surface.layout.content == .packed(format.nativePackedLayout)
        let sinksTakePlanes = noCPUAnalysis && routing.sinksReadPackedPlanes && holdsNativePacked
        let nativeSinksTakePlanes = noCPUAnalysis && routing.nativeSinksReadPackedPlanes && holdsNativePacked
        // The GPU decoder hands over its native packed layout: used as
        // it is when asked for, else unpacked to the planar layout.
        if case .packed(let packedLayout) = surface.layout.content, output != .packed(packedLayout), !sinksTakePlanes {
            let t0 = monotonicNanoseconds()
            let planar = try unpackToPlanar(surface, format: format, pool: &delivered.unpackPool)
            held.unpacked = planar
            surface = planar
            pack = monotonicNanoseconds() - t0
        }
        // The native planar frame, for the sinks and analyses that
        // want it whatever the output: unpacked only when the
        // output is the GPU decoder's packed surface.
        let wantsPlanar =
            (!nativeSinks.isEmpty && !nativeSinksTakePlanes)
            || (frame.analysis == nil && routing.cpuAnalyses && !routing.analysesOutput)
        var planarSpans: [UnsafeRawBufferPointer] = []
        var planarHolder = surface
        if wantsPlanar {
            if case .packed = surface.layout.content {
                let t0 = monotonicNanoseconds()
                let copy = try unpackToPlanar(surface, format: format, pool: &delivered.unpackPool)
                held.planarCopy = copy
                planarHolder = copy
                pack += monotonicNanoseconds() - t0
            }
            planarSpans = planarHolder.visibleSpans()
        }
        let holder: PixelBuffer
        if case .packed = surface.layout.content {
            surface.retainUse()
            held.packed = surface
            holder = surface
        } else if case .packed(let layout) = output {
            let t0 = monotonicNanoseconds()
            let wanted = SurfaceLayout.packed(layout, width: surface.layout.width, height: surface.layout.height)
            let destination = try PixelBufferPool.makeBuffer(wanted, from: &delivered.packPool)
            held.packed = destination
            FramePacker.pack(surface, into: destination)
            holder = destination
            pack += monotonicNanoseconds() - t0
        } else {
            holder = surface
        }
        return FrameViews(
            surface: surface, spans: holder.visibleSpans(), holder: holder, planarSpans: planarSpans,
            planarHolder: planarHolder, sinksTakePlanes: sinksTakePlanes, nativeSinksTakePlanes: nativeSinksTakePlanes,
            packNanoseconds: pack)
    }

    /// Hands one frame's views to every sink and to the CPU's analyses.
    private func feed(
        _ frame: DecodedFrame, _ views: FrameViews, _ format: FormatDescription, _ routing: FrameRouting,
        cpuAnalysis: OrderedFrameWork<FrameAnalysis>?
    ) throws {
        for sink in sinks {
            if views.sinksTakePlanes {
                try sink.consume(
                    index: frame.index, pts: frame.pts, nativePlanesOf: views.holder, format: format.nativeFormat)
            } else {
                try sink.consume(index: frame.index, pts: frame.pts, spans: views.spans, holder: views.holder)
            }
        }
        for sink in nativeSinks {
            if views.nativeSinksTakePlanes {
                try sink.consume(
                    index: frame.index, pts: frame.pts, nativePlanesOf: views.surface, format: format.nativeFormat)
            } else {
                try sink.consume(
                    index: frame.index, pts: frame.pts, spans: views.planarSpans, holder: views.planarHolder)
            }
        }
        if frame.analysis == nil {
            try cpuAnalysis?.submit(
                index: frame.index, pts: frame.pts, spans: routing.analysesOutput ? views.spans : views.planarSpans,
                holder: routing.analysesOutput ? views.holder : views.planarHolder)
        }
    }

    /// What feeding the session left: samples read, those skipped as late, the presenter's report.
    private struct Fed {
        var read = 0
        var skippedLate: [Int] = []
        var pacing: PacingReport?
    }

    /// Reads every sample asked for into the session and waits for all of
    /// it to finish: the session, the CPU analysis, the GPU stage, the
    /// presenter. On failure every stage is stopped before the error goes on.
    private func feed(
        _ session: FrameDecoding, samples source: SampleSource, handover: HandoverSession?, pacer: FramePacer?,
        presenter: Deferred<PacingReport>?,
        cpuAnalysis: OrderedFrameWork<FrameAnalysis>?, gpuStage: Deferred<GPUStage>?
    ) throws -> Fed {
        let format = source.format
        var fed = Fed()
        var inputHasEnded = false
        func endInput() {
            if !inputHasEnded { options.inputEnded?() }
            inputHasEnded = true
        }
        // On failure not before the session stopped: the next file's clock
        // must not run while this one's dropped frames still hold the decoder.
        defer { endInput() }
        // A frame of another picture format ends the input there: every
        // frame before it is decoded and delivered, so a stream output
        // (stdout) holds exactly those frames, whatever the decoder and
        // threads, before the run fails.
        var formatChange: Error?
        do {
            if options.start > 0 { try source.seek(toFrame: options.start) }
            while options.frames.map({ fed.read < $0 }) ?? true,
                let sample = try Trace.span("next sample", { try source.nextSample() })
            {
                fed.read += 1
                if options.skipLateFrames, pacer?.hasMissedItsTick(sample.index) == true {
                    fed.skippedLate.append(sample.index)
                    continue
                }
                do { try Self.checkPictureFormat(sample, against: format) } catch {
                    formatChange = error
                    break
                }
                try Trace.span("sample queued") { try session.decode(sample) }
            }
            endInput()
            try Trace.span("session finished") { try session.finish() }
            if let handover, !handover.handedOver { plan.stayedOnCPU() }
            try cpuAnalysis?.finish()
            try gpuStage?.get().drain()
            pacer?.finish()
            fed.pacing = try presenter?.get()
            if let formatChange { throw formatChange }
        } catch {
            pacer?.cancel()
            session.cancel()
            try? session.finish()
            // Frames already converting must not reach the sinks after run() aborts them.
            if let stage = try? gpuStage?.get() { stage.cancel() }
            throw isCancelled ? ProResDecodeError.interrupted : error
        }
        return fed
    }

    /// The GPU decoder's packed surface as the native planar frame, in a
    /// buffer of `pool` (the caller releases its use).
    private func unpackToPlanar(_ surface: PixelBuffer, format: FormatDescription, pool: inout PixelBufferPool?) throws
        -> PixelBuffer
    {
        let wanted = SurfaceLayout.planar(
            format.nativeFormat, width: surface.layout.width, height: surface.layout.height,
            paddedWidth: surface.layout.width, paddedHeight: surface.layout.height, rowAlignment: 64)
        let planar = try PixelBufferPool.makeBuffer(wanted, from: &pool)
        FrameUnpacker.unpack(surface, into: planar)
        return planar
    }

    private func report(
        _ fed: Fed, shortfall sourceShortfall: String?, delivered: DeliveredFrames, ledger: TimingLedger,
        started: UInt64, session: FrameDecoding,
        handover: HandoverSession?, gpuStage: Deferred<GPUStage>?
    ) throws -> Report {
        // A requested --frames N that was fully read cannot have fallen short.
        let shortfall = options.frames.map { fed.read < $0 } ?? true ? sourceShortfall : nil
        let timings = ledger.timings
        var report = Report(
            output: output, framesRead: fed.read, framesWritten: timings.count - delivered.failed.count,
            damaged: delivered.damaged, failed: delivered.failed, frames: timings.map { ($0.index, $0.status) },
            shortfall: shortfall,
            summary: TimingSummary(
                timings: timings, seconds: Double(monotonicNanoseconds() - started) / 1e9,
                effects: options.gpu?.effects ?? []),
            decoderPool: session.poolStatistics, packPool: delivered.packPool?.statistics,
            gpu: try gpuStage?.get().report,
            decoder: plan.name, decoderNote: plan.note, pacing: fed.pacing, firstFrameAt: delivered.firstFrameAt)
        report.skippedLate = fed.skippedLate
        report.decodersMayDiffer = delivered.mayDiffer
        // Counted only where the GPU decoder took over (not FFmpeg from FFmpeg).
        if plan.gpuDevice != nil, let handover, handover.handedOver {
            report.framesBeforeHandover = handover.framesOnFirst
        }
        return report
    }
}

/// What the output handler gathers as frames come out: touched on the
/// session's output thread only, and read once the session finished.
private final class DeliveredFrames: @unchecked Sendable {
    var damaged: [(Int, String)] = []
    var failed: [(Int, String)] = []
    var mayDiffer: [Int] = []
    var firstFrameAt: UInt64?
    var packPool: PixelBufferPool?
    var unpackPool: PixelBufferPool?

    /// The frame's arrival and what its decoder said of it.
    func note(_ frame: DecodedFrame) {
        if firstFrameAt == nil { firstFrameAt = monotonicNanoseconds() }
        switch frame.status {
        case .ok: break
        case .damaged(let why): damaged.append((frame.index, why))
        case .failed(let why): failed.append((frame.index, why))
        }
        if frame.decodersMayDiffer { mayDiffer.append(frame.index) }
    }
}

/// The surfaces one frame's handling took a use of (the GPU decoder's
/// frame unpacked, its planar copy, the packed output), released together
/// when the frame is handled or its handling threw.
private final class HeldSurfaces {
    var packed: PixelBuffer?
    var unpacked: PixelBuffer?
    var planarCopy: PixelBuffer?

    func release() {
        packed?.releaseUse()
        unpacked?.releaseUse()
        planarCopy?.releaseUse()
    }
}
