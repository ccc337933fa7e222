import Foundation
import GPUKit
import HostSupport
import ProResCore

/// Converts packed y416/v216 surfaces to RGBA16F linear Display P3 on the
/// GPU, several frames in flight. Each frame's source surface holds one extra
/// use until the timeline semaphore says the GPU finished reading it, exactly
/// like an IOSurface's use count, so the pool cannot recycle it early.
/// Frames go to the GPU in groups, one command buffer and one submission
/// each: `record` holds a frame, `flush` submits what is held (the producer
/// calls it when it has nothing more queued), or once it holds
/// `framesPerSubmission` frames. `submit` is `record` then `flush`: one
/// frame per submission.
/// A completion thread waits for the GPU, runs the handler (in submission
/// order) and hands surfaces back, so neither the submitter nor the pool ever
/// waits for a frame it is not itself blocked on.
// @unchecked: `record`, `flush` and `finish` come from one thread; what the
// completion thread and `cancel` share with it (each slot's job, the frames
// held, `failure`) is under `slotCondition`.
public final class GPUFrameConverter: @unchecked Sendable {
    public typealias Handler = (ConvertedFrame) throws -> Void

    /// A frame held for its group's submission, with its slot's buffers ready.
    private struct Held {
        let slot: Slot
        let input: ConverterInput
        /// Where the shader reads the surface.
        let source: (buffer: VulkanBuffer, offset: Int)
        /// The imported host surface, when it is copied to `source` first (a discrete GPU).
        let hostCopy: VulkanBuffer?
        let layout: PackedLayout
        let parameters: ConversionParameters
        let spec: ConversionSpec?
        let index: Int
        let pts: Int64?
        let reference: UInt64

        var surfaceLayout: SurfaceLayout { input.layout }
        var width: Int { surfaceLayout.width }
        var height: Int { surfaceLayout.height }
        var outputBytes: Int { width * height * 8 }
    }

    /// One submission's frames: they complete together and share its GPU time.
    private final class Group {
        /// The slot whose command buffer and timestamp queries the group used.
        let firstSlot: Int
        let frames: Int
        let value: UInt64
        let submitted: UInt64
        private var spans: [Double]?
        private var spansRead = false

        init(firstSlot: Int, frames: Int, value: UInt64, submitted: UInt64) {
            self.firstSlot = firstSlot
            self.frames = frames
            self.value = value
            self.submitted = submitted
        }

        /// Each span of the group's timestamps shared evenly by its frames.
        /// Read once, by the completion thread, as the group's first frame is
        /// delivered: its first slot (and queries) cannot be reused before.
        func spansPerFrame(_ timestamps: TimestampQueries?) -> [Double]? {
            if !spansRead {
                spansRead = true
                // A timing that cannot be read leaves the frames untimed, not failed.
                spans = (try? timestamps?.spans(slot: firstSlot))?.map { $0 / Double(frames) }
            }
            return spans
        }
    }

    private struct Job {
        let index: Int
        let pts: Int64?
        let reference: UInt64
        let input: ConverterInput
        let width: Int
        let height: Int
        let group: Group
    }

    private final class Slot {
        let index: Int
        let bindingSet: BindingSet
        var output: VulkanBuffer?
        var readback: VulkanBuffer?
        var deviceInput: VulkanBuffer?
        var job: Job?
        init(index: Int, bindingSet: BindingSet) {
            self.index = index
            self.bindingSet = bindingSet
        }
    }

    public let context: VulkanContext
    /// Shader variants by (layout, two pixels per invocation), made on first use.
    private let kernels: KernelCache
    private let cache: TextureCache
    private let effects: EffectChain?
    /// Per group, in its first slot's queries: start, after the uploads,
    /// after the conversions, after each effect.
    private let timestamps: TimestampQueries?
    private let handler: Handler
    private let readback: Bool
    /// One command buffer per slot; a group records into its first slot's,
    /// whose last submission (a group that began there) completed before
    /// that slot was free.
    private let recorder: CommandRecorder
    private var slots: [Slot] = []
    private var next = 0
    public let framesPerSubmission: Int
    /// Frames recorded, not yet submitted.
    private var held: [Held] = []
    /// Submissions so far (written by the submitting thread).
    public private(set) var submissions = 0
    private let completions: BlockingQueue<Slot>
    private let slotCondition = NSCondition()
    private var failure: Error?
    private let completionThread = DispatchGroup()

    /// `readback` false skips copying results back to the host (a benchmark
    /// run on a discrete GPU); the handler then sees an empty `pixels`.
    /// `effects` run on every converted frame, in order, before the handler sees it.
    /// `framesPerSubmission`: the most frames `record` groups into one
    /// submission (at most `framesInFlight`); nil: half the frames in
    /// flight, so that one group is recorded while the one before runs.
    public init(
        context: VulkanContext, kernels: KernelCache, framesInFlight: Int = 3, framesPerSubmission: Int? = nil,
        readback: Bool = true, effects: [Effect] = [], handler: @escaping Handler
    ) throws {
        self.context = context
        self.handler = handler
        self.readback = readback
        let group = framesPerSubmission ?? (framesInFlight + 1) / 2
        self.framesPerSubmission = max(1, min(group, framesInFlight))
        completions = BlockingQueue(capacity: framesInFlight)
        self.kernels = kernels
        cache = TextureCache(context: context)
        self.effects =
            effects.isEmpty
            ? nil
            : try EffectChain(
                context: context, kernels: kernels, effects: effects,
                framesInFlight: framesInFlight)
        timestamps = try TimestampQueries.make(context, slots: framesInFlight, perSlot: 3 + effects.count)
        recorder = try CommandRecorder(context: context, count: framesInFlight)

        // Every variant has the same two bindings: one set of binding sets serves all.
        let sets = try kernel(.y416, pairs: true).makeBindingSets(framesInFlight)
        slots = sets.enumerated().map { Slot(index: $0.offset, bindingSet: $0.element) }
        // The thread must not own the converter: `deinit` is what ends it
        // (closing the queue, then waiting for it). An `unowned` capture
        // took a strong reference for the whole loop, so no converter was
        // ever freed, and one freed before its thread started trapped.
        // (So the handler must not release the converter's last reference.)
        let converter = UncountedReference(self)
        completionThread.enter()
        startWorkerThread(
            "prores-decode.gpu-completion", { converter.use { $0.runCompletions() } }, finished: completionThread.leave)
    }

    deinit {
        // Whatever is still in flight must finish before its memory goes away.
        completions.close()
        completionThread.wait()
        for frame in held { frame.input.releaseUse() }
        slots.removeAll()
    }

    /// The shader variant for `layout`, made on first use.
    private func kernel(_ layout: PackedLayout, pairs: Bool) throws -> Kernel {
        try kernels.kernel(ConversionKernel.interface(layout, pairs: pairs))
    }

    /// The kernels a converter of frames of `layout` and `width` builds:
    /// the variant whose binding sets every variant shares (made with the
    /// converter), and the frames' own.
    static func kernelInterfaces(_ layout: PackedLayout, width: Int) -> [KernelInterface] {
        [ConversionKernel.interface(.y416, pairs: true), ConversionKernel.interface(layout, pairs: width % 2 == 0)]
    }

    /// Surfaces imported without a copy, and frames that needed a CPU copy.
    public var importedSurfaces: Int { cache.importedCount }
    public var copiedFrames: Int { cache.copies }

    /// Converts `surface` (a packed y416 or v216 surface) in a submission of its own.
    /// Blocks only when every slot is busy, finishing the oldest frame first.
    /// `spec`, the description `parameters` came from, is needed by effects
    /// that read the source's Y'CbCr (the chroma key).
    public func submit(
        _ surface: PixelBuffer, parameters: ConversionParameters, index: Int, pts: Int64?, reference: UInt64 = 0,
        spec: ConversionSpec? = nil
    ) throws {
        try submit(.host(surface), parameters: parameters, index: index, pts: pts, reference: reference, spec: spec)
    }

    public func submit(
        _ input: ConverterInput, parameters: ConversionParameters, index: Int, pts: Int64?, reference: UInt64 = 0,
        spec: ConversionSpec? = nil
    ) throws {
        try record(input, parameters: parameters, index: index, pts: pts, reference: reference, spec: spec)
        try flush()
    }

    /// Holds the conversion of `input` for the next submission, which
    /// `flush` makes (or this call, once the group is full). Blocks only when
    /// the next slot is busy, until its frame went through the handler.
    public func record(
        _ input: ConverterInput, parameters: ConversionParameters, index: Int, pts: Int64?, reference: UInt64 = 0,
        spec: ConversionSpec? = nil
    ) throws {
        let surfaceLayout = input.layout
        guard case .packed(let layout) = surfaceLayout.content else {
            preconditionFailure("the GPU converter reads y416 or v216 surfaces")
        }
        // The held frames' slots are the ones before `next`, and a group is
        // smaller than the ring: this waits for a frame already submitted.
        // Holding the group meanwhile costs the GPU nothing while a group
        // is at most half the ring: it is submitted before the completion
        // thread has delivered every frame ahead of it.
        let slot = slots[next]
        try waitUntilFree(slot)
        next = (next + 1) % slots.count

        let width = surfaceLayout.width
        let height = surfaceLayout.height
        let sourceBytes = surfaceLayout.byteCount
        let outputSize = width * height * 8
        // A host surface is imported (and copied to a discrete GPU's memory);
        // the GPU decoder's device-local surface is read where it is.
        var hostSource: VulkanBuffer?
        if case .host(let surface) = input { hostSource = try cache.buffer(for: surface) }
        let copiesToDevice = hostSource != nil && !context.sharesHostMemory
        if copiesToDevice, (slot.deviceInput?.size ?? 0) < sourceBytes {
            slot.deviceInput = try VulkanBuffer(
                context, size: sourceBytes, usage: [.storage, .transferDestination], memory: .device)
        }
        if slot.output?.size != outputSize {
            slot.output = try VulkanBuffer(
                context, size: outputSize, usage: [.storage, .transferSource], memory: .deviceMappedWhenShared)
            slot.readback = nil
        }
        if readback, slot.output!.mapped == nil, slot.readback == nil {
            slot.readback = try VulkanBuffer(
                context, size: outputSize, usage: .transferDestination, memory: .hostReadback)
        }
        let source: (buffer: VulkanBuffer, offset: Int)
        switch input {
        case .host: source = (copiesToDevice ? slot.deviceInput! : hostSource!, 0)
        case .device(let surface): source = (surface.buffer, surface.offset)
        }
        // The GPU reads the surface once the group is submitted: hold a use until it is done.
        input.retainUse()
        slotCondition.lock()
        held.append(
            Held(
                slot: slot, input: input, source: source, hostCopy: copiesToDevice ? hostSource : nil, layout: layout,
                parameters: parameters, spec: spec, index: index, pts: pts, reference: reference))
        let full = held.count >= framesPerSubmission
        slotCondition.unlock()
        if full { try flush() }
    }

    /// Submits the frames held, in one command buffer; rethrows the
    /// handler's error, if it threw, dropping them.
    public func flush() throws {
        slotCondition.lock()
        let group = held
        held = []
        let failed = failure
        slotCondition.unlock()
        guard !group.isEmpty else { return }
        let value: UInt64
        let submitted: UInt64
        do {
            if let failed { throw failed }
            (value, submitted) = try Trace.span("conversion submitted") { try encode(group) }
        } catch {
            for frame in group { frame.input.releaseUse() }
            throw error
        }
        submissions += 1
        let shared = Group(firstSlot: group[0].slot.index, frames: group.count, value: value, submitted: submitted)
        slotCondition.lock()
        for frame in group {
            frame.slot.job = Job(
                index: frame.index, pts: frame.pts, reference: frame.reference, input: frame.input,
                width: frame.width, height: frame.height, group: shared)
        }
        slotCondition.unlock()
        for frame in group { completions.push(frame.slot) }
    }

    /// Records `group` stage by stage (every upload, every conversion, each
    /// effect over every frame, every readback), so that one timestamp
    /// after each stage times the group, and submits it. Each frame writes
    /// its own slot's buffers: the barriers derived from them order a frame's
    /// stages and leave different frames' passes free to overlap.
    private func encode(_ group: [Held]) throws -> (value: UInt64, submitted: UInt64) {
        let first = group[0].slot.index
        let cb = try recorder.begin(first)
        timestamps?.start(cb, slot: first)
        for frame in group {
            if let copy = frame.hostCopy {
                cb.copy(copy, to: frame.source.buffer, bytes: frame.surfaceLayout.byteCount)
            }
        }
        timestamps?.mark(cb, slot: first, 1, after: .transfer)
        for frame in group {
            let pairs = frame.width % 2 == 0
            let kernel = try self.kernel(frame.layout, pairs: pairs)
            let invocationsPerRow = pairs ? frame.width / 2 : frame.width
            let bytesPerRow = frame.surfaceLayout.planes[0].bytesPerRow
            cb.dispatch(
                kernel, set: frame.slot.bindingSet,
                buffers: [
                    BufferRange(frame.source.buffer, offset: frame.source.offset, bytes: frame.surfaceLayout.byteCount),
                    BufferRange(frame.slot.output!, bytes: frame.outputBytes),
                ],
                push: ConversionKernel.values(
                    frame.parameters, width: frame.width, height: frame.height, layout: frame.layout,
                    sourceBytesPerRow: bytesPerRow),
                groups: (kernel.interface.groups(covering: invocationsPerRow), frame.height, 1))
        }
        timestamps?.mark(cb, slot: first, 2, after: .compute)
        try effects?.record(
            cb,
            frames: group.map { frame in
                (
                    frame.slot.index,
                    EffectChain.Frame(
                        output: frame.slot.output!, source: frame.source.buffer, sourceOffset: frame.source.offset,
                        sourceBytes: frame.surfaceLayout.byteCount, layout: frame.layout,
                        sourceBytesPerRow: frame.surfaceLayout.planes[0].bytesPerRow,
                        width: frame.width, height: frame.height, spec: frame.spec)
                )
            }, timestamps: timestamps.map { ($0, first, 3) })
        if readback {
            for frame in group {
                if let target = frame.slot.readback {
                    cb.copy(frame.slot.output!, to: target, bytes: frame.outputBytes)
                }
            }
        }
        let submitted = monotonicNanoseconds()
        return (try recorder.submit(cb), submitted)
    }

    /// Submits what is held and waits until every frame in flight went
    /// through the handler; rethrows the handler's error, if it threw.
    public func finish() throws {
        try flush()
        for slot in slots { try waitUntilFree(slot) }
    }

    /// Hands no more frames to the handler, drops the frames held, and
    /// waits until the GPU (and a handler call under way) is done with every
    /// frame in flight. A run being torn down calls it before its sinks
    /// discard what they wrote, so that no frame reaches a sink after that
    /// (a `--save` directory made again after its removal, say).
    public func cancel() {
        slotCondition.lock()
        if failure == nil { failure = ProResDecodeError.interrupted }
        let dropped = held
        held = []
        while slots.contains(where: { $0.job != nil }) { slotCondition.wait() }
        slotCondition.unlock()
        for frame in dropped { frame.input.releaseUse() }
    }

    /// Blocks while the GPU (and the handler) still own `slot`.
    private func waitUntilFree(_ slot: Slot) throws {
        slotCondition.lock()
        defer { slotCondition.unlock() }
        while slot.job != nil && failure == nil { slotCondition.wait() }
        if let failure { throw failure }
    }

    /// The completion thread: slots arrive in submission order.
    private func runCompletions() {
        // A group's frames complete together: one wait serves them all.
        var completed: UInt64 = 0
        while let slot = completions.pop() {
            slotCondition.lock()
            let job = slot.job
            let failed = failure != nil
            slotCondition.unlock()
            guard let job else { continue }
            var error: Error?
            do {
                if job.group.value > completed {
                    try Trace.span("wait for conversion on GPU") { try recorder.wait(for: job.group.value) }
                    completed = job.group.value
                }
                if !failed { try Trace.span("converted frame handled") { try deliver(job, from: slot) } }
            } catch let thrown {
                error = thrown
            }
            job.input.releaseUse()
            slotCondition.lock()
            slot.job = nil
            if let error, failure == nil { failure = error }
            slotCondition.broadcast()
            slotCondition.unlock()
        }
    }

    /// Hands a finished frame to the handler; the caller then lets the
    /// source surface go back to its pool.
    private func deliver(_ job: Job, from slot: Slot) throws {
        let done = monotonicNanoseconds()
        var upload: Double?
        var convert: Double?
        var effectTimes: [Double] = []
        if let spans = job.group.spansPerFrame(timestamps) {
            upload = spans[0]
            convert = spans[1]
            effectTimes = Array(spans.dropFirst(2))
        }
        let source = readback ? (slot.readback ?? slot.output)?.mapped : nil
        let pixels = UnsafeRawBufferPointer(start: source, count: source == nil ? 0 : job.width * job.height * 8)
        try handler(
            ConvertedFrame(
                index: job.index, pts: job.pts, reference: job.reference, width: job.width, height: job.height,
                pixels: pixels,
                device: slot.output!, context: context, kernels: kernels,
                uploadMicroseconds: upload, convertMicroseconds: convert, effectMicroseconds: effectTimes,
                gpuWallMicroseconds: Double(done - job.group.submitted) / 1000))
    }
}

/// An object used from a thread that must not keep it alive: the object's
/// `deinit` waits for that thread, so it is valid whenever it is used.
private struct UncountedReference<Object: AnyObject>: @unchecked Sendable {
    private let object: Unmanaged<Object>
    init(_ object: Object) { self.object = .passUnretained(object) }
    func use<Result>(_ body: (Object) -> Result) -> Result { object._withUnsafeGuaranteedRef(body) }
}
