import Foundation
import ProResCore
import GPUKit

/// The hardware decode session: the same contract as `DecodeSession`
/// (samples in, frames out in order with a status, bounded memory), decoded
/// by `GPUProResDecoder`. Three threads: the caller's queues samples; the
/// submit thread batches whatever is queued, parses headers and submits;
/// the completion thread waits for each batch in order and queues its
/// frames for the output thread, which runs the handler, so a slow handler
/// holds back only frames already decoded.
public final class GPUDecodeSession: FrameDecoding, @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Frames per dispatch; nil lets the decoder choose
        /// (`DecoderBatchSize`: from the frame size, the stream's length and
        /// the device's limits).
        public var framesPerBatch: Int?
        /// Frames the session will decode, when the caller knows better than
        /// the container (a benchmark loops a clip); nil: the container's count.
        public var expectedFrames: Int?
        /// Batches in flight.
        public var slots: Int
        /// Copy each frame into a host surface (for sinks); false leaves the
        /// frames on the GPU (benchmarks) and delivers them without a surface.
        public var readback: Bool
        /// Deliver each frame's device-local surface too (for `--vulkan`).
        public var deviceSurfaces: Bool
        /// Allocate every batch's buffers up front, for compressed frames of
        /// up to this many bytes, so that the first batches do not pay for
        /// it (pinning host memory takes milliseconds); nil allocates them
        /// as the first batches arrive.
        public var expectedFrameBytes: Int?
        /// Measure every frame on the device (`check`): `DecodedFrame.analysis`.
        public var analysis: AnalysisRequest?
        /// The CPUs the session's own threads (parse, submit, completion,
        /// output) run on; nil leaves them to the scheduler. A session on a
        /// `GPUDevice` takes the device's `placement` when this is nil.
        public var cpus: [Int]?
        /// How compressed bytes reach the device; nil: `PRORES_DECODE_UPLOAD`,
        /// else the fastest the device has.
        public var upload: UploadPath?
        /// While another batch is parsed and waiting, hold each batch's
        /// transform and record it beside the next batch's entropy pass, in
        /// one command buffer, so that the GPU may run the two together.
        /// On by default: on the H200 it saved a submission per batch
        /// (4K 422 HQ 6,960 → 7,100 fps; no profile slower), bit-exact on
        /// every clip (BENCHMARKS.md §7). `PRORES_DECODE_OVERLAP=0` turns it off.
        public var overlapTransforms: Bool

        /// `PRORES_DECODE_BATCH=N`: frames per batch for every session, for
        /// measurements of whole-process jobs (`bench --batch` sets it for one run).
        public static let batchSetting = ProcessInfo.processInfo.environment["PRORES_DECODE_BATCH"].flatMap(Int.init).map { max(1, $0) }

        /// Batches in flight: one being staged by the host, one uploading,
        /// one entropy decoding and one being transformed, each on its own
        /// engine. `PRORES_DECODE_SLOTS` overrides it, for measurements.
        public static let defaultSlots = ProcessInfo.processInfo.environment["PRORES_DECODE_SLOTS"].flatMap(Int.init).map { max(2, min($0, 8)) } ?? 4

        public init(framesPerBatch: Int? = Configuration.batchSetting, slots: Int = Configuration.defaultSlots, readback: Bool = true, deviceSurfaces: Bool = false,
                    expectedFrames: Int? = nil, expectedFrameBytes: Int? = nil, analysis: AnalysisRequest? = nil, cpus: [Int]? = nil,
                    upload: UploadPath? = nil,
                    overlapTransforms: Bool = ProcessInfo.processInfo.environment["PRORES_DECODE_OVERLAP"] != "0") {
            self.upload = upload
            self.overlapTransforms = overlapTransforms
            self.analysis = analysis
            self.cpus = cpus
            self.framesPerBatch = framesPerBatch
            self.expectedFrames = expectedFrames
            self.slots = slots
            self.readback = readback
            self.deviceSurfaces = deviceSurfaces
            self.expectedFrameBytes = expectedFrameBytes
        }
    }

    public let format: FormatDescription
    private let decoder: GPUProResDecoder
    private let readback: Bool
    private let overlapTransforms: Bool
    private let surfacePool: PixelBufferPool
    private let handler: FrameOutputHandler
    private let idleHandler: OutputIdleHandler?
    private let input: BlockingQueue<CompressedSample>
    private let freeSlots: BlockingQueue<Int>
    private let slotCount: Int
    /// Batches parsed, waiting for a slot.
    private let parsed: BlockingQueue<Batch>
    private let submitted: BlockingQueue<Batch>
    private let output: BlockingQueue<DecodedFrame>
    private let threads = SessionThreads()
    private let timingLock = NSLock()
    private var timings: [GPUProResDecoder.BatchTiming] = []

    /// A batch, parsed, then submitted. It owns one use of each host
    /// surface until that surface is handed to its frame (`take`): a batch
    /// dropped on the way (a failed session drains its queues) gives its
    /// surfaces back.
    // @unchecked: passed from the parse thread to the submit thread to the
    // completion thread through queues; one thread at a time touches it.
    private final class Batch: @unchecked Sendable {
        let samples: [CompressedSample]
        /// Host surfaces, made once the batch has a slot (none while it
        /// waits for one: at 4K each is 33 MB).
        var surfaces: [PixelBuffer?] = []
        let prepared: GPUProResDecoder.PreparedBatch
        var slot = 0
        var submitted: UInt64 = 0

        init(samples: [CompressedSample], prepared: GPUProResDecoder.PreparedBatch) {
            self.samples = samples
            self.prepared = prepared
        }

        /// Frame i's surface, with its use, now the caller's.
        func take(_ i: Int) -> PixelBuffer? {
            guard i < surfaces.count else { return nil }  // no host surfaces (frames stay on the GPU)
            defer { surfaces[i] = nil }
            return surfaces[i]
        }

        deinit { surfaces.forEach { $0?.releaseUse() } }
    }

    public convenience init(format: FormatDescription, context: VulkanContext, kernels: KernelCache,
                            configuration: Configuration = .init(), outputHandler: @escaping FrameOutputHandler,
                            outputIdleHandler: OutputIdleHandler? = nil) throws {
        try self.init(format: format, decoder: GPUProResDecoder(
            context: context, kernels: kernels, format: format, slots: configuration.slots,
            framesPerBatch: configuration.framesPerBatch, expectedFrames: configuration.expectedFrames,
            expectedFrameBytes: configuration.expectedFrameBytes,
            analysis: configuration.analysis, upload: configuration.upload, deliversSurfaces: configuration.deviceSurfaces),
            configuration: configuration, outputHandler: outputHandler,
            outputIdleHandler: outputIdleHandler)
    }

    /// On a shared device: the decoder (and its buffers) of an earlier
    /// session of the same geometry is taken when there is one, and given
    /// back when this session ends cleanly.
    public convenience init(format: FormatDescription, device: GPUDevice, configuration: Configuration = .init(),
                            outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil) throws {
        var configuration = configuration
        if configuration.cpus == nil { configuration.cpus = device.placement.cpus }
        let key = Self.reuseKey(format, configuration)
        let decoder = try device.takeDecoder(key) ?? Trace.span("decoder made") {
            try GPUProResDecoder(context: device.context, kernels: device.kernels, format: format, slots: configuration.slots,
                                 framesPerBatch: configuration.framesPerBatch, expectedFrames: configuration.expectedFrames,
                                 expectedFrameBytes: configuration.expectedFrameBytes,
                                 analysis: configuration.analysis, upload: configuration.upload,
                                 deliversSurfaces: configuration.deviceSurfaces)
        }
        try self.init(format: format, decoder: decoder, configuration: configuration, outputHandler: outputHandler,
                      outputIdleHandler: outputIdleHandler)
        reuse = (device, key)
    }

    /// What a decoder's buffers and passes depend on: geometry, layout,
    /// batching and the analysis (whose light pass depends on the colour tags).
    static func reuseKey(_ format: FormatDescription, _ configuration: Configuration) -> String {
        let tags = format.colorTags
        let analysis = configuration.analysis.map { "hash \($0.hash) stats \($0.statistics.map { "\($0.range) \($0.light != nil)" } ?? "-")" }
        return "\(format.width)x\(format.height) \(format.chroma) alpha \(format.hasAlpha) \(format.fieldOrder) "
            + "\(tags.primaries.value.code)/\(tags.transfer.value.code)/\(tags.matrix.value.code) "
            + "slots \(configuration.slots) batch \(configuration.framesPerBatch ?? 0) \(analysis ?? "no analysis") "
            + "upload \(configuration.upload?.rawValue ?? "auto") overlap \(configuration.overlapTransforms) "
            + "surfaces \(configuration.deviceSurfaces ? "delivered" : "kept")"
    }

    private init(format: FormatDescription, decoder: GPUProResDecoder, configuration: Configuration,
                 outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler?) throws {
        self.format = format
        self.decoder = decoder
        uploadsBefore = (decoder.uploadedInPlace, decoder.staged)
        heldBefore = decoder.heldTransforms
        readback = configuration.readback
        overlapTransforms = configuration.overlapTransforms
        surfacePool = PixelBufferPool(layout: decoder.surfaceLayout)
        handler = outputHandler
        idleHandler = outputIdleHandler
        input = BlockingQueue(capacity: 2 * decoder.framesPerBatch)
        slotCount = configuration.slots
        freeSlots = BlockingQueue(capacity: slotCount)
        for slot in 0..<slotCount { freeSlots.push(slot) }
        parsed = BlockingQueue(capacity: 1)
        submitted = BlockingQueue(capacity: configuration.slots)
        output = BlockingQueue(capacity: decoder.framesPerBatch + 2)
        // Pinning is best effort: a refused mask leaves the thread where it was.
        let cpus = configuration.cpus
        func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
            threads.start(name) {
                if let cpus { _ = pinCurrentThread(to: cpus) }
                body()
            }
        }
        start("prores-decode.gpu-parse") { [self] in runParse() }
        start("prores-decode.gpu-submit") { [self] in runSubmit() }
        start("prores-decode.gpu-complete") { [self] in runCompletions() }
        start("prores-decode.output") { [self] in runOutput() }
    }

    deinit {
        cancel()
        threads.wait()
        // Only a decoder whose every batch completed may serve another file.
        if finishedCleanly, let reuse { reuse.device.keep(decoder, key: reuse.key) }
    }

    /// Set by the shared-device initialiser.
    private var reuse: (device: GPUDevice, key: String)?
    private var finishedCleanly = false

    public var framesPerBatch: Int { decoder.framesPerBatch }
    /// The decoder's upload path, and this session's frames so far uploaded in place and staged.
    package var uploads: (path: UploadPath, inPlace: Int, staged: Int) {
        (decoder.upload, decoder.uploadedInPlace - uploadsBefore.inPlace, decoder.staged - uploadsBefore.staged)
    }
    /// The decoder's counts when this session took it (a decoder serves one session at a time).
    private let uploadsBefore: (inPlace: Int, staged: Int)
    private let heldBefore: Int
    /// Batches whose transform went beside the next batch's entropy pass (`overlapTransforms`).
    package var heldTransforms: Int { decoder.heldTransforms - heldBefore }

    public func decode(_ sample: CompressedSample) throws {
        try threads.feed(sample, to: input)
    }

    public func finish() throws {
        try threads.finish(closing: input)
        finishedCleanly = true
    }

    public func cancel() { fail(ProResDecodeError.interrupted) }

    public var poolStatistics: PixelBufferPool.Statistics { surfacePool.statistics }

    /// GPU time of every batch so far (timestamp queries), in order.
    package var batchTimings: [GPUProResDecoder.BatchTiming] {
        timingLock.lock()
        defer { timingLock.unlock() }
        return timings
    }

    // MARK: - Threads

    private func fail(_ error: Error) {
        threads.record(error)
        input.closeAndDrain()
        parsed.closeAndDrain()
        freeSlots.closeAndDrain()
        submitted.closeAndDrain()
        output.closeAndDrain()
    }

    /// Forms batches and parses them, one batch ahead of the submit
    /// thread: parsing (compute) then overlaps the previous batch's staging
    /// (memory bandwidth). While the GPU has work (a slot taken or a parsed
    /// batch waiting) a batch waits to be full, since small batches leave it
    /// idle later; with none it waits at most `batchPatience` for the rest,
    /// then takes what has arrived, so a slow source still gets each frame
    /// soon. Completions `wake` the input to re-ask.
    ///
    /// Why the patience: a file's first frames arrive ~0.15 ms apart, and
    /// taking them as they came split a file's start into several small
    /// batches, each in a slot of its own whose buffers (over a gigabyte at
    /// 4K then, ~18 ms a gigabyte to allocate on the H200) were made for it: the
    /// first file of each kind in `check` filled four slots with 48 frames
    /// (BENCHMARKS.md §6, sixth session).
    static let batchPatience = 0.008
    private func runParse() {
        defer { parsed.close() }
        while true {
            let samples = input.popBatch(limit: decoder.framesPerBatch, patience: Self.batchPatience) { [freeSlots, parsed, slotCount] in
                freeSlots.queued < slotCount || parsed.queued > 0
            }
            if samples.isEmpty { return }
            let prepared = Trace.span("batch parsed") { decoder.prepare(samples.map(\.bytes)) }
            if !parsed.push(Batch(samples: samples, prepared: prepared)) { return }
        }
    }

    /// Stages each parsed batch into a free slot and submits it. With
    /// `overlapTransforms`, a batch followed by one already parsed is held
    /// (its transform goes into that next batch's command buffer) and
    /// handed to the completion thread once that is submitted; with nothing
    /// waiting, nothing is held, so a slow source still gets every frame.
    private func runSubmit() {
        defer { submitted.close() }
        var held: Batch?
        while let batch = parsed.pop() {
            input.wake()  // the parse thread may be waiting for the GPU to have less work
            guard let slot = Trace.span("wait for a free slot", { freeSlots.pop() }) else { return }
            do {
                batch.slot = slot
                // A batch dropped on the way (the session failed) gives its surfaces back.
                if readback { for _ in batch.samples { batch.surfaces.append(try surfacePool.makeBuffer()) } }
                batch.submitted = monotonicNanoseconds()
                let hold = overlapTransforms && parsed.queued > 0
                try Trace.span("batch staged and submitted") {
                    try decoder.encode(slot: slot, batch.prepared, hostSurfaces: batch.surfaces, holdTransform: hold)
                }
                if let previous = held, !submitted.push(previous) { return }
                held = nil
                if hold { held = batch } else if !submitted.push(batch) { return }
            } catch {
                fail(error)
                return
            }
        }
        guard let held else { return }
        do {
            try decoder.releaseHeldTransform()
            _ = submitted.push(held)
        } catch {
            fail(error)
        }
    }

    private func runCompletions() {
        defer { output.close() }
        while let batch = submitted.pop() {
            let outcome: (outputs: [GPUProResDecoder.Output], timing: GPUProResDecoder.BatchTiming?)
            do {
                outcome = try Trace.span("wait for batch on GPU") { try decoder.complete(slot: batch.slot) }
            } catch {
                fail(error)
                return
            }
            if let timing = outcome.timing {
                timingLock.lock()
                timings.append(timing)
                timingLock.unlock()
            }
            let now = monotonicNanoseconds()
            var frames: [DecodedFrame] = []
            for (i, sample) in batch.samples.enumerated() {
                let result = outcome.outputs[i]
                var surface = batch.take(i)
                let status: FrameStatus
                if let failure = result.failure {
                    surface?.releaseUse()
                    surface = nil
                    status = .failed(failure)
                } else {
                    var problems: [String] = []
                    if let header = result.header, header.frameSize > sample.bytes.count {
                        problems.append("truncated: the frame header says \(header.frameSize) bytes, the sample has \(sample.bytes.count)")
                    }
                    // A missing field's concealed slices are named by its own line;
                    // the order is the CPU session's.
                    if result.missingSecondField { problems.append(ProResFrameHeader.missingSecondField) }
                    if result.missingAlpha { problems.append(ProResFrameHeader.missingAlpha) }
                    if !result.missingSecondField && result.damagedSlices > 0 {
                        problems.append("some slices could not be decoded and were concealed")
                    }
                    status = problems.isEmpty ? .ok : .damaged(problems.joined(separator: "; "))
                }
                let codes = result.header.map { ($0.colorPrimaries, $0.transferCharacteristic, $0.matrixCoefficients) }
                let frame = DecodedFrame(index: sample.index, pts: sample.pts, status: status, pixelBuffer: surface,
                                         deviceSurface: result.deviceSurface, analysis: result.analysis, colorCodes: codes, readStart: sample.readStart,
                                         demuxNanoseconds: sample.demuxNanoseconds, decodeNanoseconds: now - batch.submitted)
                frames.append(frame)
            }
            // Together: the output thread sees the batch's frames queued
            // behind one another, and its consumer may group their work.
            if !output.push(contentsOf: frames) { return }
            // The batch's host surfaces are filled: the slot may take the next one.
            if !freeSlots.push(batch.slot) { return }
            input.wake()
        }
    }

    private func runOutput() {
        while let frame = output.pop() {
            do {
                try Trace.span("frame handler") { try handler(frame) }
                if output.queued == 0 { try idleHandler?() }
            } catch { fail(error) }
        }
    }
}
