import CVulkan

/// Commands being recorded for one submission. Every command names the
/// buffers it touches and how; the barriers and cross-queue waits that
/// order it after earlier work are derived from each buffer's state
/// (`ResourceState`), and writes the host will read are made visible to it
/// at submission. Made by `CommandRecorder.begin`, handed back to `submit`.
///
/// Thread-safety: owned by the one thread recording it.
public final class CommandBuffer {
    let raw: VkCommandBuffer
    unowned let recorder: CommandRecorder
    let submission: Submission
    let slot: Int
    private(set) var waits: [(Submission, PipelineStage)] = []
    /// Mapped buffers this submission writes, and at which stage last.
    private var hostVisibleWrites: [ObjectIdentifier: PipelineStage] = [:]
    /// What the commands use, kept alive until the GPU is done with them
    /// (the recorder holds the submitted buffer until its slot is reused).
    private var kept: [AnyObject] = []
    private var vk: VulkanDeviceFunctions { recorder.context.vk }

    init(raw: VkCommandBuffer, recorder: CommandRecorder, slot: Int) {
        self.raw = raw
        self.recorder = recorder
        self.slot = slot
        submission = Submission(recorder: recorder)
    }

    /// Copies `bytes` from `source` to `destination`.
    public func copy(
        _ source: VulkanBuffer, offset sourceOffset: Int = 0, to destination: VulkanBuffer,
        offset destinationOffset: Int = 0, bytes: Int
    ) {
        copy(source, to: destination, regions: [(sourceOffset, destinationOffset, bytes)])
    }

    /// Copies each region's `bytes` from `source` to `destination` (one command).
    public func copy(
        _ source: VulkanBuffer, to destination: VulkanBuffer, regions: [(source: Int, destination: Int, bytes: Int)]
    ) {
        guard !regions.isEmpty else { return }
        access([(source, false), (destination, true)], at: .transfer)
        kept += [source, destination]
        let copies = regions.map {
            VkBufferCopy(
                srcOffset: VkDeviceSize($0.source), dstOffset: VkDeviceSize($0.destination),
                size: VkDeviceSize($0.bytes))
        }
        copies.withUnsafeBufferPointer {
            vk.vkCmdCopyBuffer(raw, source.buffer, destination.buffer, UInt32($0.count), $0.baseAddress)
        }
    }

    /// Sets the first `bytes` of `buffer` (a multiple of 4) to `value` in every word.
    public func fill(_ buffer: VulkanBuffer, bytes: Int, with value: UInt32 = 0) {
        access([(buffer, true)], at: .transfer)
        kept.append(buffer)
        vk.vkCmdFillBuffer(raw, buffer.buffer, 0, VkDeviceSize(bytes), value)
    }

    /// Runs `kernel` over `groups` workgroups with `buffers` at its bindings
    /// (in the order its interface declares them) through binding set `set`,
    /// and `push` as its push constants (one value per declared field).
    public func dispatch(
        _ kernel: Kernel, set: BindingSet, buffers: [BufferRange], push: [PushValue] = [],
        groups: (x: Int, y: Int, z: Int)
    ) {
        let interface = kernel.interface
        precondition(
            buffers.count == interface.bindings.count,
            "\(interface.shader): \(buffers.count) buffers for \(interface.bindings.count) bindings")
        access(
            zip(buffers, interface.bindings).map { range, binding in (range.buffer, binding.access != .read) },
            at: .compute)
        kernel.bind(set.raw, buffers)
        kept += [kernel, set.pool] + buffers.map(\.buffer)
        vk.vkCmdBindPipeline(raw, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline)
        var bound: VkDescriptorSet? = set.raw
        vk.vkCmdBindDescriptorSets(raw, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.layout, 0, 1, &bound, 0, nil)
        if interface.push.size > 0 {
            let bytes = interface.push.bytes(push)
            bytes.withUnsafeBytes {
                vk.vkCmdPushConstants(
                    raw, kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0, UInt32($0.count), $0.baseAddress)
            }
        }
        vk.vkCmdDispatch(raw, UInt32(groups.x), UInt32(groups.y), UInt32(groups.z))
    }

    /// Copies `buffer` (rows of `width` pixels, tightly packed) into a
    /// swapchain image. The image is the presentation engine's between
    /// frames, so it is not a tracked resource: its layout goes from
    /// undefined (the old contents are not needed) to transfer destination
    /// and on to presentable here, the one place that knows; the buffer's
    /// barrier is derived as for any other use.
    func copy(
        _ buffer: VulkanBuffer, toSwapchainImage image: VkImage, width: Int, height: Int,
        _ copyToImage: PFN_vkCmdCopyBufferToImage
    ) {
        access([(buffer, false)], at: .transfer)
        kept.append(buffer)
        var transition = VkImageMemoryBarrier()
        transition.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER
        transition.srcQueueFamilyIndex = PD_VK_QUEUE_FAMILY_IGNORED
        transition.dstQueueFamilyIndex = PD_VK_QUEUE_FAMILY_IGNORED
        transition.image = image
        transition.subresourceRange = VkImageSubresourceRange(
            aspectMask: VK_IMAGE_ASPECT_COLOR_BIT.rawValue, baseMipLevel: 0,
            levelCount: 1, baseArrayLayer: 0, layerCount: 1)
        transition.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED
        transition.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
        transition.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT.rawValue
        // From the transfer stage: the acquire semaphore is waited for there.
        vk.vkCmdPipelineBarrier(
            raw, PipelineStage.transfer.flags, PipelineStage.transfer.flags, 0, 0, nil, 0, nil, 1, &transition)
        var region = VkBufferImageCopy()
        region.imageSubresource = VkImageSubresourceLayers(
            aspectMask: VK_IMAGE_ASPECT_COLOR_BIT.rawValue, mipLevel: 0,
            baseArrayLayer: 0, layerCount: 1)
        region.imageExtent = VkExtent3D(width: UInt32(width), height: UInt32(height), depth: 1)
        copyToImage(raw, buffer.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region)
        transition.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
        transition.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR
        transition.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT.rawValue
        transition.dstAccessMask = 0
        // The present waits on a semaphore, which makes the write available.
        vk.vkCmdPipelineBarrier(
            raw, PipelineStage.transfer.flags, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT.rawValue, 0, 0, nil, 0, nil,
            1, &transition)
    }

    /// Records `uses` at `stage`: one barrier for whatever earlier work on
    /// this queue they depend on, waits for work on other queues.
    private func access(_ uses: [(buffer: VulkanBuffer, writes: Bool)], at stage: PipelineStage) {
        var sourceStages: VkPipelineStageFlags = 0
        var sourceWrites: VkAccessFlags = 0
        for use in uses {
            let dependency = use.buffer.state.use(by: submission, at: stage, writes: use.writes)
            sourceStages |= dependency.stages
            sourceWrites |= dependency.writes
            waits += dependency.waits.map { ($0, stage) }
            if use.writes && use.buffer.mapped != nil { hostVisibleWrites[ObjectIdentifier(use.buffer)] = stage }
        }
        if sourceStages != 0 { barrier(from: sourceStages, sourceWrites, to: stage.flags, stage.accesses) }
    }

    /// Called at submission: the host reads mapped buffers once the
    /// submission completed, after their writes are made visible to it.
    func makeWritesVisibleToHost() {
        guard !hostVisibleWrites.isEmpty else { return }
        let stages = hostVisibleWrites.values.reduce(VkPipelineStageFlags(0)) { $0 | $1.flags }
        let writes = hostVisibleWrites.values.reduce(VkAccessFlags(0)) { $0 | $1.writeAccess }
        barrier(from: stages, writes, to: PipelineStage.host.flags, VK_ACCESS_HOST_READ_BIT.rawValue)
        hostVisibleWrites = [:]
    }

    /// One global memory barrier: our passes share whole buffers, so
    /// buffer-range barriers would buy nothing.
    private func barrier(
        from sourceStages: VkPipelineStageFlags, _ sourceAccess: VkAccessFlags,
        to destinationStages: VkPipelineStageFlags, _ destinationAccess: VkAccessFlags
    ) {
        var memory = VkMemoryBarrier()
        memory.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER
        memory.srcAccessMask = sourceAccess
        memory.dstAccessMask = destinationAccess
        vk.vkCmdPipelineBarrier(raw, sourceStages, destinationStages, 0, 1, &memory, 0, nil, 0, nil)
    }
}

/// A byte range of a buffer bound to one of a kernel's bindings.
public struct BufferRange {
    public let buffer: VulkanBuffer
    public let offset: Int
    public let bytes: Int

    /// `bytes` nil: from `offset` to the end.
    public init(_ buffer: VulkanBuffer, offset: Int = 0, bytes: Int? = nil) {
        self.buffer = buffer
        self.offset = offset
        self.bytes = bytes ?? buffer.size - offset
    }
}
