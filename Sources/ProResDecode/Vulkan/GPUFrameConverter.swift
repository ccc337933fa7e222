import CVulkan
import Foundation

/// Converts packed y416/v216 surfaces to RGBA16F linear Display P3 on the
/// GPU, several frames in flight. Each frame's source surface holds one extra
/// use until the timeline semaphore says the GPU finished reading it, exactly
/// like an IOSurface's use count, so the pool cannot recycle it early.
/// A completion thread waits for the GPU, runs the handler (in submission
/// order) and hands surfaces back, so neither the submitter nor the pool ever
/// waits for a frame it is not itself blocked on.
public final class GPUFrameConverter {
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
        let descriptorSet: VkDescriptorSet
        var output: VulkanBuffer?
        var readback: VulkanBuffer?
        var deviceInput: VulkanBuffer?
        var job: Job?
        init(descriptorSet: VkDescriptorSet) {
            self.descriptorSet = descriptorSet
        }
    }

    public let context: VulkanContext
    private let compiler: ShaderCompiler
    /// Shader variants by (layout, two pixels per invocation), made on first use.
    private var pipelines: [String: ComputePipeline] = [:]
    private let setLayoutPipeline: ComputePipeline
    private let cache: TextureCache
    private let effects: EffectChain?
    /// Per frame: start, after the upload, after the conversion, after each effect.
    private let timestamps: TimestampQueries?
    private let handler: Handler
    private let readback: Bool
    private let recorder: CommandRecorder
    private let descriptors: DescriptorSets
    private var slots: [Slot] = []
    private var next = 0
    private let completions: BlockingQueue<Slot>
    private let slotCondition = NSCondition()
    private var failure: Error?
    private let completionThread = DispatchGroup()

    /// `readback` false skips copying results back to the host (a benchmark
    /// run on a discrete GPU); the handler then sees an empty `pixels`.
    /// `effects` run on every converted frame, in order, before the handler sees it.
    public init(context: VulkanContext, compiler: ShaderCompiler, framesInFlight: Int = 3,
                readback: Bool = true, effects: [Effect] = [], handler: @escaping Handler) throws {
        self.context = context
        self.handler = handler
        self.readback = readback
        completions = BlockingQueue(capacity: framesInFlight)
        self.compiler = compiler
        setLayoutPipeline = try Self.makePipeline(context, compiler, layout: .y416, pairs: true)
        pipelines[Self.variant(.y416, pairs: true)] = setLayoutPipeline
        cache = TextureCache(context: context)
        self.effects = effects.isEmpty ? nil : try EffectChain(context: context, compiler: compiler, effects: effects,
                                                               framesInFlight: framesInFlight)
        timestamps = try TimestampQueries.make(context, slots: framesInFlight, perSlot: 3 + effects.count)
        recorder = try CommandRecorder(context: context, count: framesInFlight)

        // Every variant has the same two-buffer set layout: one pool of sets serves all.
        descriptors = try DescriptorSets(context: context, layouts: Array(repeating: setLayoutPipeline.setLayout, count: framesInFlight),
                                         buffers: 2 * framesInFlight, what: "conversion")
        let sets = descriptors.sets
        slots = (0..<framesInFlight).map { Slot(descriptorSet: sets[$0]) }
        completionThread.enter()
        startWorkerThread("prores-decode.gpu-completion", { [unowned self] in runCompletions() }, finished: completionThread.leave)
    }

    deinit {
        // Whatever is still in flight must finish before its memory goes away.
        completions.close()
        completionThread.wait()
        slots.removeAll()
    }

    static let shaderName = "convert_to_p3.comp"
    static let workgroupWidth = 128
    static let pushConstantSize = 128

    static func variant(_ layout: PackedLayout, pairs: Bool) -> String { "\(layout)-\(pairs ? "pairs" : "single")" }

    private static func makePipeline(_ context: VulkanContext, _ compiler: ShaderCompiler, layout: PackedLayout, pairs: Bool) throws -> ComputePipeline {
        var defines: [String: String] = [:]
        if pairs { defines["PAIRS"] = "1" }
        if layout == .v216 { defines["V216"] = "1" }
        return try ComputePipeline(context: context, compiler: compiler, shader: shaderName, defines: defines,
                                   buffers: 2, pushConstantSize: pushConstantSize)
    }

    private func pipeline(_ layout: PackedLayout, pairs: Bool) throws -> ComputePipeline {
        let key = Self.variant(layout, pairs: pairs)
        if let existing = pipelines[key] { return existing }
        let made = try Self.makePipeline(context, compiler, layout: layout, pairs: pairs)
        pipelines[key] = made
        return made
    }

    /// The 128-byte push-constant block: the colour parameters, then geometry.
    static func pushConstants(_ parameters: ConversionParameters, width: Int, height: Int,
                              layout: PackedLayout, sourceBytesPerRow: Int) -> [UInt8] {
        var bytes = parameters.bytes
        for value in [UInt32(width), UInt32(height), layout == .y416 ? 0 : 1, UInt32(sourceBytesPerRow / 4)] {
            withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        }
        precondition(bytes.count == pushConstantSize)
        return bytes
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

        let vk = context.vk
        let width = surfaceLayout.width, height = surfaceLayout.height
        let sourceBytes = surfaceLayout.byteCount
        let outputSize = width * height * 8
        // A host surface is imported (and copied to a discrete GPU's memory);
        // the GPU decoder's device-local surface is read where it is.
        var hostSource: VulkanBuffer?
        if case let .host(surface) = input { hostSource = try cache.buffer(for: surface) }
        let copiesToDevice = hostSource != nil && !context.sharesHostMemory
        if copiesToDevice, (slot.deviceInput?.size ?? 0) < sourceBytes {
            slot.deviceInput = try VulkanBuffer(context, size: sourceBytes,
                                                usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue,
                                                required: VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue)
        }
        if slot.output?.size != outputSize {
            slot.output = try VulkanBuffer(context, size: outputSize,
                                           usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue,
                                           required: VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue,
                                           preferred: context.sharesHostMemory ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue : 0)
            slot.readback = nil
        }
        let output = slot.output!
        if readback, output.mapped == nil, slot.readback == nil {
            slot.readback = try VulkanBuffer(context, size: outputSize, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue,
                                             required: VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue,
                                             preferred: VK_MEMORY_PROPERTY_HOST_CACHED_BIT.rawValue)
        }
        let shaderInput: (buffer: VulkanBuffer, offset: Int)
        switch input {
        case .host: shaderInput = (copiesToDevice ? slot.deviceInput! : hostSource!, 0)
        case let .device(surface): shaderInput = (surface.buffer, surface.offset)
        }

        let pairs = width % 2 == 0
        let pipeline = try self.pipeline(layout, pairs: pairs)
        pipeline.bind(slot.descriptorSet, ranges: [(shaderInput.buffer.buffer, shaderInput.offset, sourceBytes), (output.buffer, 0, outputSize)])

        let slotIndex = slots.firstIndex { $0 === slot }!
        let cb = try recorder.begin(slotIndex)
        timestamps?.start(cb, slot: slotIndex)
        if case .device = input {
            // The decoder's batch was submitted earlier on this queue: its writes before our reads.
            context.memoryBarrier(cb, from: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT.rawValue,
                                  to: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT.rawValue)
        }
        if copiesToDevice {
            var region = VkBufferCopy(srcOffset: 0, dstOffset: 0, size: VkDeviceSize(sourceBytes))
            vk.vkCmdCopyBuffer(cb, hostSource!.buffer, shaderInput.buffer.buffer, 1, &region)
            context.memoryBarrier(cb, from: VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT.rawValue,
                    to: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT.rawValue)
        }
        timestamps?.mark(cb, slot: slotIndex, 1, after: VK_PIPELINE_STAGE_TRANSFER_BIT)
        vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline)
        var set: VkDescriptorSet? = slot.descriptorSet
        vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &set, 0, nil)
        let constants = Self.pushConstants(parameters, width: width, height: height, layout: layout,
                                           sourceBytesPerRow: surfaceLayout.planes[0].bytesPerRow)
        constants.withUnsafeBytes { vk.vkCmdPushConstants(cb, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0, UInt32($0.count), $0.baseAddress) }
        let invocationsPerRow = pairs ? width / 2 : width
        let groupsX = (invocationsPerRow + Self.workgroupWidth - 1) / Self.workgroupWidth
        vk.vkCmdDispatch(cb, UInt32(groupsX), UInt32(height), 1)
        timestamps?.mark(cb, slot: slotIndex, 2, after: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT)
        try effects?.record(cb, slot: slotIndex, frame: EffectChain.Frame(
            output: output, source: shaderInput.buffer, sourceOffset: shaderInput.offset, sourceBytes: sourceBytes, layout: layout,
            sourceBytesPerRow: surfaceLayout.planes[0].bytesPerRow, width: width, height: height, spec: spec),
            timestamps: timestamps.map { ($0, 3) })
        if readback, let target = slot.readback {
            context.memoryBarrier(cb, from: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT.rawValue,
                    to: VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT.rawValue)
            var region = VkBufferCopy(srcOffset: 0, dstOffset: 0, size: VkDeviceSize(outputSize))
            vk.vkCmdCopyBuffer(cb, output.buffer, target.buffer, 1, &region)
            context.memoryBarrier(cb, from: VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT.rawValue,
                    to: VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT.rawValue)
        } else {
            context.memoryBarrier(cb, from: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT.rawValue,
                    to: VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT.rawValue)
        }
        let submitted = monotonicNanoseconds()
        // The GPU reads the surface from now on: hold a use until it is done.
        input.retainUse()
        let value: UInt64
        do {
            value = try recorder.submit(slotIndex)
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
