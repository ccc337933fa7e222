import CVulkan

/// The `--effect` passes of one `GPUFrameConverter` (the Core Image filter
/// chain / custom Metal kernels of Apple's pipeline). Each is a compute pass
/// recorded into the frame's own command buffer right after the conversion,
/// reading and writing the converted frame in place: no copy, no extra
/// submission, and each pass timed by its own GPU timestamp. The chroma key
/// also reads the decoded surface the conversion read (the texture cache's
/// binding of the pooled surface, or its device copy).
final class EffectChain {
    /// What one frame's passes work on.
    struct Frame {
        /// The converted RGBA16F frame, 8 bytes a pixel.
        let output: VulkanBuffer
        /// The y416/v216 surface as the conversion read it.
        let source: VulkanBuffer
        let sourceOffset: Int
        let sourceBytes: Int
        let layout: PackedLayout
        let sourceBytesPerRow: Int
        let width: Int
        let height: Int
        /// The frame's colour description: the chroma key needs its matrix and range.
        let spec: ConversionSpec?
    }

    let effects: [Effect]
    private let context: VulkanContext
    private let compiler: ShaderCompiler
    private var pipelines: [String: ComputePipeline] = [:]
    /// descriptors[slot].sets[pass]
    private var descriptors: [DescriptorSets] = []
    /// The LUT of each `lut` pass, by pass index, in device memory.
    private var tables: [Int: VulkanBuffer] = [:]
    /// Host copies of the LUTs, copied over by the first frame's command
    /// buffer; kept, since that buffer may still be running.
    private var staging: [(from: VulkanBuffer, to: VulkanBuffer)] = []
    private var uploaded = false

    static let workgroupWidth = 128

    init(context: VulkanContext, compiler: ShaderCompiler, effects: [Effect], framesInFlight: Int) throws {
        self.context = context
        self.compiler = compiler
        self.effects = effects
        // The y416 chroma-key variant's set layout serves the v216 one too (identical definitions).
        let passes = try effects.map { try pipeline(for: $0, layout: .y416) }
        let buffers = passes.reduce(0) { $0 + $1.bufferCount }
        descriptors = try (0..<framesInFlight).map { _ in
            try DescriptorSets(context: context, layouts: passes.map(\.setLayout), buffers: buffers, what: "effects")
        }
        for (index, effect) in effects.enumerated() {
            if case let .lut(lut) = effect { tables[index] = try upload(lut.lut.values) }
        }
    }


    var count: Int { effects.count }

    /// Records every pass after the conversion in `cb`: each waits for the
    /// previous writes to the frame, and writes timestamp `first + i` after
    /// pass i when `timestamps` is given.
    func record(_ cb: VkCommandBuffer, slot: Int, frame: Frame, timestamps: (queries: TimestampQueries, first: Int)?) throws {
        let vk = context.vk
        if !uploaded && !staging.isEmpty {
            for (from, to) in staging {
                var region = VkBufferCopy(srcOffset: 0, dstOffset: 0, size: VkDeviceSize(from.size))
                vk.vkCmdCopyBuffer(cb, from.buffer, to.buffer, 1, &region)
            }
            context.memoryBarrier(cb, from: VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT.rawValue,
                                  to: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT.rawValue)
            uploaded = true
        }
        let frameBytes = frame.width * frame.height * 8
        for (index, effect) in effects.enumerated() {
            context.memoryBarrier(cb, from: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT.rawValue,
                                  to: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                  VK_ACCESS_SHADER_READ_BIT.rawValue | VK_ACCESS_SHADER_WRITE_BIT.rawValue)
            let pipeline = try self.pipeline(for: effect, layout: frame.layout)
            let set = descriptors[slot].sets[index]
            let constants: [UInt8]
            switch effect {
            case .sepia, .exposure, .saturation:
                pipeline.bind(set, to: [(frame.output.buffer, frameBytes)])
                constants = EffectPushConstants.matrix(ColorMatrixEffects.matrix(for: effect)!, width: frame.width, height: frame.height)
            case let .chromaKey(key):
                guard let spec = frame.spec else { preconditionFailure("the chroma key needs the frame's colour description") }
                pipeline.bind(set, ranges: [(frame.source.buffer, frame.sourceOffset, frame.sourceBytes), (frame.output.buffer, 0, frameBytes)])
                constants = EffectPushConstants.chromaKey(key, matrix: spec.ycbcr, range: spec.range, width: frame.width,
                                                          height: frame.height, sourceBytesPerRow: frame.sourceBytesPerRow)
            case let .lut(lut):
                let table = tables[index]!
                pipeline.bind(set, to: [(frame.output.buffer, frameBytes), (table.buffer, table.size)])
                constants = EffectPushConstants.lut(lut, width: frame.width, height: frame.height)
            }
            vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline)
            var bound: VkDescriptorSet? = set
            vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &bound, 0, nil)
            constants.withUnsafeBytes {
                vk.vkCmdPushConstants(cb, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0, UInt32($0.count), $0.baseAddress)
            }
            let groupsX = (frame.width + Self.workgroupWidth - 1) / Self.workgroupWidth
            vk.vkCmdDispatch(cb, UInt32(groupsX), UInt32(frame.height), 1)
            if let timestamps {
                timestamps.queries.mark(cb, slot: slot, timestamps.first + index, after: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT)
            }
        }
    }

    /// The shader of `effect` (for the chroma key, the variant reading `layout`), made on first use.
    private func pipeline(for effect: Effect, layout: PackedLayout) throws -> ComputePipeline {
        let shader: String, defines: [String: String], buffers: Int, constants: Int
        switch effect {
        case .sepia, .exposure, .saturation:
            (shader, defines, buffers, constants) = ("effect_matrix.comp", [:], 1, 56)
        case .chromaKey:
            (shader, defines, buffers, constants) = ("effect_chroma_key.comp", layout == .v216 ? ["V216": "1"] : [:], 2, 36)
        case .lut:
            (shader, defines, buffers, constants) = ("effect_lut3d.comp", [:], 2, 48)
        }
        let key = shader + defines.keys.sorted().joined()
        if let existing = pipelines[key] { return existing }
        let made = try ComputePipeline(context: context, compiler: compiler, shader: shader, defines: defines,
                                       buffers: buffers, pushConstantSize: constants)
        pipelines[key] = made
        return made
    }

    /// A storage buffer in device memory holding `values`, filled by the
    /// first frame's command buffer from a host-visible copy (one path for
    /// every device, mappable device memory or not).
    private func upload(_ values: [Float]) throws -> VulkanBuffer {
        let bytes = values.count * 4
        let table = try VulkanBuffer(context, size: bytes,
                                     usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue,
                                     required: VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue)
        let host = try VulkanBuffer(context, size: bytes, usage: VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue,
                                    required: VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue)
        values.withUnsafeBytes { host.mapped!.copyMemory(from: $0.baseAddress!, byteCount: bytes) }
        staging.append((host, table))
        return table
    }
}
