import Foundation
import ProResCore
import GPUKit

/// Converts packed y416/v216 surfaces to RGBA16F linear Display P3 on the
/// GPU, several frames in flight. Each frame's source surface holds one extra
/// use until the timeline semaphore says the GPU finished reading it, exactly
/// like an IOSurface's use count, so the pool cannot recycle it early.
/// A completion thread waits for the GPU, runs the handler (in submission
/// order) and hands surfaces back, so neither the submitter nor the pool ever
/// waits for a frame it is not itself blocked on.
// @unchecked: `submit` and `finish` come from one thread; what the completion
// thread shares with it (each slot's job, `failure`) is under `slotCondition`.
public final class GPUFrameConverter: @unchecked Sendable {
    public typealias Handler = (ConvertedFrame) throws -> Void

    private struct Job {
        let index: Int
        let pts: Int64?
        let reference: UInt64
        let input: ConverterInput
        let value: UInt64
        let width: Int
        let height: Int
        let submitted: UInt64
    }

    private final class Slot {
        let bindingSet: BindingSet
        var output: VulkanBuffer?
        var readback: VulkanBuffer?
        var deviceInput: VulkanBuffer?
        var job: Job?
        init(bindingSet: BindingSet) {
            self.bindingSet = bindingSet
        }
    }

    public let context: VulkanContext
    /// Shader variants by (layout, two pixels per invocation), made on first use.
    private let kernels: KernelCache
    private let cache: TextureCache
    private let effects: EffectChain?
    /// Per frame: start, after the upload, after the conversion, after each effect.
    private let timestamps: TimestampQueries?
    private let handler: Handler
    private let readback: Bool
    private let recorder: CommandRecorder
    private var slots: [Slot] = []
    private var next = 0
    private let completions: BlockingQueue<Slot>
    private let slotCondition = NSCondition()
    private var failure: Error?
    private let completionThread = DispatchGroup()

    /// `readback` false skips copying results back to the host (a benchmark
    /// run on a discrete GPU); the handler then sees an empty `pixels`.
    /// `effects` run on every converted frame, in order, before the handler sees it.
    public init(context: VulkanContext, kernels: KernelCache, framesInFlight: Int = 3,
                readback: Bool = true, effects: [Effect] = [], handler: @escaping Handler) throws {
        self.context = context
        self.handler = handler
        self.readback = readback
        completions = BlockingQueue(capacity: framesInFlight)
        self.kernels = kernels
        cache = TextureCache(context: context)
        self.effects = effects.isEmpty ? nil : try EffectChain(context: context, kernels: kernels, effects: effects,
                                                               framesInFlight: framesInFlight)
        timestamps = try TimestampQueries.make(context, slots: framesInFlight, perSlot: 3 + effects.count)
        recorder = try CommandRecorder(context: context, count: framesInFlight)

        // Every variant has the same two bindings: one set of binding sets serves all.
        let sets = try kernel(.y416, pairs: true).makeBindingSets(framesInFlight)
        slots = sets.map(Slot.init)
        completionThread.enter()
        startWorkerThread("prores-decode.gpu-completion", { [unowned self] in runCompletions() }, finished: completionThread.leave)
    }

    deinit {
        // Whatever is still in flight must finish before its memory goes away.
        completions.close()
        completionThread.wait()
        slots.removeAll()
    }

    /// The shader variant for `layout`, made on first use.
    private func kernel(_ layout: PackedLayout, pairs: Bool) throws -> Kernel {
        try kernels.kernel(ConversionKernel.interface(layout, pairs: pairs))
    }

    /// Surfaces imported without a copy, and frames that needed a CPU copy.
    public var importedSurfaces: Int { cache.importedCount }
    public var copiedFrames: Int { cache.copies }

    /// Queues the conversion of `surface` (a packed y416 or v216 surface).
    /// Blocks only when every slot is busy, finishing the oldest frame first.
    /// `spec`, the description `parameters` came from, is needed by effects
    /// that read the source's Y'CbCr (the chroma key).
    public func submit(_ surface: PixelBuffer, parameters: ConversionParameters, index: Int, pts: Int64?, reference: UInt64 = 0,
                       spec: ConversionSpec? = nil) throws {
        try submit(.host(surface), parameters: parameters, index: index, pts: pts, reference: reference, spec: spec)
    }

    public func submit(_ input: ConverterInput, parameters: ConversionParameters, index: Int, pts: Int64?, reference: UInt64 = 0,
                       spec: ConversionSpec? = nil) throws {
        let surfaceLayout = input.layout
        guard case let .packed(layout) = surfaceLayout.content else {
            preconditionFailure("the GPU converter reads y416 or v216 surfaces")
        }
        let slot = slots[next]
        next = (next + 1) % slots.count
        try waitUntilFree(slot)

        let width = surfaceLayout.width, height = surfaceLayout.height
        let sourceBytes = surfaceLayout.byteCount
        let outputSize = width * height * 8
        // A host surface is imported (and copied to a discrete GPU's memory);
        // the GPU decoder's device-local surface is read where it is.
        var hostSource: VulkanBuffer?
        if case let .host(surface) = input { hostSource = try cache.buffer(for: surface) }
        let copiesToDevice = hostSource != nil && !context.sharesHostMemory
        if copiesToDevice, (slot.deviceInput?.size ?? 0) < sourceBytes {
            slot.deviceInput = try VulkanBuffer(context, size: sourceBytes, usage: [.storage, .transferDestination], memory: .device)
        }
        if slot.output?.size != outputSize {
            slot.output = try VulkanBuffer(context, size: outputSize, usage: [.storage, .transferSource], memory: .deviceMappedWhenShared)
            slot.readback = nil
        }
        let output = slot.output!
        if readback, output.mapped == nil, slot.readback == nil {
            slot.readback = try VulkanBuffer(context, size: outputSize, usage: .transferDestination, memory: .hostReadback)
        }
        let shaderInput: (buffer: VulkanBuffer, offset: Int)
        switch input {
        case .host: shaderInput = (copiesToDevice ? slot.deviceInput! : hostSource!, 0)
        case let .device(surface): shaderInput = (surface.buffer, surface.offset)
        }

        let pairs = width % 2 == 0
        let kernel = try self.kernel(layout, pairs: pairs)
        let slotIndex = slots.firstIndex { $0 === slot }!
        let cb = try recorder.begin(slotIndex)
        timestamps?.start(cb, slot: slotIndex)
        if copiesToDevice { cb.copy(hostSource!, to: shaderInput.buffer, bytes: sourceBytes) }
        timestamps?.mark(cb, slot: slotIndex, 1, after: .transfer)
        let invocationsPerRow = pairs ? width / 2 : width
        cb.dispatch(kernel, set: slot.bindingSet,
                    buffers: [BufferRange(shaderInput.buffer, offset: shaderInput.offset, bytes: sourceBytes), BufferRange(output, bytes: outputSize)],
                    push: ConversionKernel.values(parameters, width: width, height: height, layout: layout,
                                                  sourceBytesPerRow: surfaceLayout.planes[0].bytesPerRow),
                    groups: (kernel.interface.groups(covering: invocationsPerRow), height, 1))
        timestamps?.mark(cb, slot: slotIndex, 2, after: .compute)
        try effects?.record(cb, slot: slotIndex, frame: EffectChain.Frame(
            output: output, source: shaderInput.buffer, sourceOffset: shaderInput.offset, sourceBytes: sourceBytes, layout: layout,
            sourceBytesPerRow: surfaceLayout.planes[0].bytesPerRow, width: width, height: height, spec: spec),
            timestamps: timestamps.map { ($0, 3) })
        if readback, let target = slot.readback { cb.copy(output, to: target, bytes: outputSize) }
        let submitted = monotonicNanoseconds()
        // The GPU reads the surface from now on: hold a use until it is done.
        input.retainUse()
        let value: UInt64
        do {
            value = try recorder.submit(cb)
        } catch {
            input.releaseUse()
            throw error
        }
        slotCondition.lock()
        slot.job = Job(index: index, pts: pts, reference: reference, input: input, value: value, width: width, height: height,
                       submitted: submitted)
        slotCondition.unlock()
        completions.push(slot)
    }

    /// Waits until every frame in flight went through the handler; rethrows
    /// the handler's error, if it threw.
    public func finish() throws {
        for slot in slots { try waitUntilFree(slot) }
    }

    /// Hands no more frames to the handler and waits until the GPU (and a
    /// handler call under way) is done with every frame in flight. A run
    /// being torn down calls it before its sinks discard what they wrote,
    /// so that no frame reaches a sink after that (a `--save` directory
    /// made again after its removal, say).
    public func cancel() {
        slotCondition.lock()
        defer { slotCondition.unlock() }
        if failure == nil { failure = ProResDecodeError.interrupted }
        while slots.contains(where: { $0.job != nil }) { slotCondition.wait() }
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
        while let slot = completions.pop() {
            slotCondition.lock()
            let job = slot.job
            let failed = failure != nil
            slotCondition.unlock()
            guard let job else { continue }
            var error: Error?
            do {
                try recorder.wait(for: job.value)
                if !failed { try deliver(job, from: slot) }
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
        var upload: Double?, convert: Double?, effectTimes: [Double] = []
        // A timing that cannot be read leaves the frame untimed, not failed.
        if let spans = try? timestamps?.spans(slot: slots.firstIndex { $0 === slot }!) {
            upload = spans[0]
            convert = spans[1]
            effectTimes = Array(spans.dropFirst(2))
        }
        let source = readback ? (slot.readback ?? slot.output)?.mapped : nil
        let pixels = UnsafeRawBufferPointer(start: source, count: source == nil ? 0 : job.width * job.height * 8)
        try handler(ConvertedFrame(index: job.index, pts: job.pts, reference: job.reference, width: job.width, height: job.height, pixels: pixels,
                                   device: slot.output!, context: context, kernels: kernels,
                                   uploadMicroseconds: upload, convertMicroseconds: convert, effectMicroseconds: effectTimes,
                                   gpuWallMicroseconds: Double(done - job.submitted) / 1000))
    }
}

/// What the converter reads: a pooled host surface (imported through the
/// texture cache, copied to a discrete GPU's memory) or a frame the GPU
/// decoder left in device-local memory (read in place, no copy).
public enum ConverterInput {
    case host(PixelBuffer)
    case device(DeviceSurface)

    var layout: SurfaceLayout {
        switch self {
        case let .host(surface): return surface.layout
        case let .device(surface): return surface.layout
        }
    }

    /// A host surface goes back to its pool only once the GPU is done with
    /// it; a device surface is kept by the job holding it.
    func retainUse() { if case let .host(surface) = self { surface.retainUse() } }
    func releaseUse() { if case let .host(surface) = self { surface.releaseUse() } }
}
